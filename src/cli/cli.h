/* The gql command: shared helpers and the command table. */
#ifndef GQL_CLI_H
#define GQL_CLI_H

#include "config/config.h"
#include "core/core.h"
#include "gql_http.h"
#include "observe/log.h"
#include "observe/log_limit.h"
#include "observe/server_metrics.h"

#include <stdio.h>

typedef struct gql_cli_command {
  const char *name;
  const char *summary;
  const char *usage;                 /* full help text for `gql CMD --help` */
  int (*run)(int argc, char **argv); /* argv[0] is the command name */
} gql_cli_command;

/* Reads a whole file ("-" or NULL: standard input) into a malloc'ed,
 * NUL-terminated buffer. Returns NULL and prints a message on failure. */
char *gql_cli_read_file(const char *path, size_t *len);
/* The same, with messages prefixed "CMD: " rather than "gql: ". */
char *gql_cli_read_file_as(const char *cmd, const char *path, size_t *len);
/* The name to show for a path in messages ("<stdin>" for "-"). */
const char *gql_cli_display_name(const char *path);
/* True when argv has -h or --help. */
bool gql_cli_wants_help(int argc, char **argv);
/* Errors as a compact JSON array of {message, locations} (graphql-js's
 * toJSON), followed by a newline. */
void gql_cli_print_errors_json(FILE *f, const gql_error *items, uint32_t n);
/* Reads and parses a JSON file into `arena`; *text (malloc'ed, free it)
 * must outlive the value. NULL after printing "CMD: FILE: MESSAGE" (the
 * JSON error with its line and column, or why the file could not be read)
 * on stderr. */
const gql_value *gql_cli_read_json(gql_arena *arena, const char *cmd,
                                   const char *path, char **text);
/* Errors as FILE:LINE:COLUMN: MESSAGE lines. */
void gql_cli_print_errors_text(FILE *f, const gql_error *items, uint32_t n,
                               const char *path);
/* Reads option `opt`'s value `s` as a decimal number from 0 to `max`;
 * false after printing "CMD: OPT needs a number up to MAX, not 'S'". */
bool gql_cli_parse_num(const char *cmd, const char *opt, const char *s,
                       unsigned long long max, unsigned long long *out);
/* The same, also refusing a number below `min` (with the range in the
 * message). */
bool gql_cli_parse_range(const char *cmd, const char *opt, const char *v,
                         unsigned long long min, unsigned long long max,
                         unsigned long long *out);
/* The trace options gql exec and gql serve share. --trace-collapse takes
 * "on" or "off"; --trace-depth a number from -1 (unlimited) to 100,000. */
bool gql_cli_trace_collapse_ok(const char *v);
bool gql_cli_trace_depth_ok(const char *v);
/* --trace-otlp-protocol (and OTEL_EXPORTER_OTLP_PROTOCOL): "http/json" or
 * "http/protobuf" into *out (out may be NULL); false for anything else. */
bool gql_cli_otlp_protocol(const char *v, gql_otlp_protocol *out);
/* Fills `to` from checked values (NULL / false: not given). The names of
 * --trace-variables a,b (at most 64) point into *vars_copy (malloc'ed: free
 * it) through `allow`. Returns 0 or GQL_ENOMEM. */
int gql_cli_trace_options(gql_trace_options *to, bool source,
                          const char *collapse, const char *depth,
                          const char *variables, char **vars_copy,
                          const char *allow[64]);
/* Prints a command's usage to `f`. */
void gql_cli_usage(const gql_cli_command *cmd, FILE *f);

/* ---- serve and gateway (settings.c) */
struct gql_http_options;
/* When argv[*i] is one of names[0..n), takes its value: 1 with *v set and
 * *i advanced past it, 0 when it is none of them, -1 when the value is
 * missing (said on stderr as "CMD: OPT needs a value"). */
int gql_cli_take_value(const char *cmd, int argc, char **argv, int *i,
                       const char *const *names, size_t n, const char **v);
/* "CMD: unknown option 'ARG' (see 'CMD --help')"; returns 2. */
int gql_cli_unknown_option(const char *cmd, const char *arg);
/* The settings of argv's --config FILE (empty ones without it); NULL after
 * printing the file's errors, each line prefixed with "CMD: ". */
gql_settings *gql_cli_settings_load(const char *cmd, int argc, char **argv);
/* Takes argv[*i] when it is a flag serve and gateway share (--config,
 * --host, --port, --threads, the limits, the timeouts, --cache-bytes,
 * --log-level), advancing *i past its value: 1 taken, 0 not such a flag,
 * -1 a bad value (said on stderr). */
int gql_cli_server_flag(const char *cmd, gql_settings *st, int argc,
                        char **argv, int *i);
bool gql_cli_log_level(const char *cmd, const char *v, gql_settings *st);
/* The settings as the HTTP server's options; false after saying why. */
bool gql_cli_http_options(const char *cmd, const gql_settings *st,
                          struct gql_http_options *o);
/* The JWT verifier of the settings' authentication.router.jwt (key sets
 * read from their file:// urls); NULL after printing why, each line
 * "CMD: FILE:LINE:COLUMN: ...". (jwt_setup.c) */
struct gql_jwt_verifier;
struct gql_jwt_verifier *gql_cli_jwt_verifier(const char *cmd,
                                              const gql_settings *st);
/* A log line of the server's own at `level` (server_log.c), routed as
 * the server's lines are (gql_http_log): the observer's log when it has
 * one (JSON lines, --log-format json), else "NAME: LEVEL: message" on
 * o->log (stderr); nothing below the log level (warn unless set). `o` is
 * read now: its observer may be set after the caller keeps it. */
void gql_cli_log(const struct gql_http_options *o, gql_http_log_level level,
                 const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Hot reload (reload.c): the files of gql serve (schema, or the Star Wars
 * demo, and data) or of gql gateway (supergraph), loaded as a generation
 * at start and again on SIGHUP or when they or the --config file change.
 * Fill the command's part, then gql_cli_reload_init after the options
 * are made; options.reload = &r->rl. */
typedef struct gql_cli_reload {
  gql_http_reload rl;
  const char *cmd;
  int argc;
  char **argv;
  /* The command's own flags, to read argv again over a changed file. */
  int (*flag)(gql_settings *st, int argc, char **argv, int *i);
  const char *schema, *data; /* gql serve */
  bool subgraph;
  bool defer_stream;      /* gql serve --defer-stream */
  const char *supergraph; /* gql gateway */
  unsigned debounce_ms;   /* 0: the server's default */
  /* gql serve: called on each schema loaded, before it is finalized (the
   * Subscription fields' event resolvers); NULL: none. */
  int (*schema_ready)(gql_schema *schema);
  /* The server, once made (NULL before): a reload updates its live
   * options (gql_http_server_update). */
  gql_http_server *server;
  /* set by init */
  const char *config;
  gql_http_options *opts;       /* the command's: its own lines' log level */
  gql_http_options first;       /* as served: what a reload cannot change */
  const gql_settings *first_st; /* the same, as settings */
  uint64_t serial;              /* the last gql_cli_live's */
  const char *watch[4 + 16];    /* the files, the first 16 key sets' */
} gql_cli_reload;
void gql_cli_reload_init(gql_cli_reload *r, const gql_settings *st,
                         gql_http_options *o);
/* The first generation (the same load as a reload's, the limits aside):
 * 0, or a negative gql_err after saying why. Release it with
 * out->release(out->ud) once the server is freed. */
int gql_cli_reload_first(gql_cli_reload *r, gql_http_generation *out);
/* The built-in Star Wars demo (gql serve without --schema, gql exec
 * --example starwars); defer_stream: with graphql-js 17's @defer and
 * @stream (--defer-stream). 0 or a negative gql_err. */
int gql_cli_starwars(bool defer_stream, gql_schema **out);
/* The supergraph of a gql gateway generation (gql_http_exec.generation). */
const struct gql_supergraph *gql_cli_generation_supergraph(void *ud);
/* Warns on stderr of each entry of st (subscription.mode.passthrough.
 * subgraphs, headers.subgraphs) naming no subgraph of sg (subgraph_names.c). */
void gql_cli_warn_subgraph_names(const char *cmd, const gql_settings *st,
                                 const struct gql_supergraph *sg);
/* The observer of gql serve's and gql gateway's servers (observer.c):
 * the Prometheus metrics (unless server.metrics is false), JSON log lines
 * (server.log_format json) and readiness (ready(ready_ud), NULL: ready). */
typedef struct gql_cli_observer {
  gql_http_observer ob; /* options.observer = &ob */
  gql_metrics *metrics; /* NULL: metrics off */
  gql_server_metrics sm;
  gql_log_format log_format;
  const char *name;
  FILE *log;
  bool (*ready)(void *ud);
  void *ready_ud;
} gql_cli_observer;
int gql_cli_observer_init(gql_cli_observer *o, const gql_settings *st,
                          const char *name, bool gateway, gql_tracer *tracer);
void gql_cli_observer_free(gql_cli_observer *o);
/* The shard of an observer's worker (gql_http_request_observer's), *sm
 * its families; NULL without a worker or with metrics off. */
gql_metrics_shard *gql_cli_observer_shard(void *worker,
                                          gql_server_metrics **sm);
/* The --trace-* options gql serve and gql gateway share (tracing.c):
 * argv[*i] taken into st->trace (1), not one (0), a bad value (-1). */
int gql_cli_trace_flag(const char *cmd, gql_settings *st, int argc, char **argv,
                       int *i);
/* The tracer of st->trace (tracer NULL when not tracing) and the trace
 * options of every request: 0, else the exit status (2 usage, 1 failure)
 * after saying why; gql_cli_tracing_stop in every case (it prints the
 * tracer's counters and frees it). */
typedef struct gql_cli_tracing {
  gql_tracer *tracer;
  gql_trace_options options;
  gql_trace_http http;
  bool has_http;
  FILE *file;
  char *vars_copy;
  const char *allow[64];
} gql_cli_tracing;
int gql_cli_tracing_start(const char *cmd, gql_settings *st,
                          gql_cli_tracing *k);
void gql_cli_tracing_stop(const char *cmd, gql_cli_tracing *k);
/* The request hooks of serve and gateway: CORS and JWT authentication as
 * the settings say (request_hooks.c). */
/* One Redis client per worker thread (redis_share.c), shared by the APQ
 * store and the subscription events: made at the first take on a loop,
 * closed at the last give. `commands`: the taker issues commands (its
 * command connection is made now; otherwise only the subscriber connection
 * is, at the first channel listened to). */
typedef struct gql_cli_redis gql_cli_redis;
struct gql_redis;
gql_cli_redis *gql_cli_redis_new(const char *url, uint32_t timeout_ms);
void gql_cli_redis_free(gql_cli_redis *h);
const char *gql_cli_redis_url(const gql_cli_redis *h);
struct gql_redis *gql_cli_redis_take(gql_cli_redis *h, uv_loop_t *loop,
                                     bool commands);
void gql_cli_redis_give(gql_cli_redis *h, struct gql_redis *r);

/* Persisted operations (persisted_setup.c): APQ, manifests, safelist, the
 * Redis-backed APQ store. */
typedef struct gql_cli_persisted gql_cli_persisted;
/* --apq, --persisted-queries FILE, --safelist, --safelist-require-id,
 * --redis URL, --redis-timeout MS: 1 taken, 0 not one, -1 bad. */
int gql_cli_persisted_flag(const char *cmd, gql_settings *st, int argc,
                           char **argv, int *i);
/* Sets o->documents when the settings ask for persisted operations (the
 * APQ store on `redis`'s clients when there is one); false after printing
 * why. */
bool gql_cli_persisted_init(const char *cmd, const gql_settings *st,
                            gql_cli_redis *redis, gql_cli_persisted **out,
                            struct gql_http_options *o);
void gql_cli_persisted_free(gql_cli_persisted *p);
/* A reload's persisted-operation settings under the documents hook of
 * `first` (the start's): st's manifests (read again), safelist and
 * log_unknown, with `first`'s APQ. NULL after printing why. */
gql_cli_persisted *gql_cli_persisted_reload(const char *cmd,
                                            const gql_settings *st,
                                            const gql_cli_persisted *first);

/* The subscription section's flags (subscription_flags.c):
 * --subscriptions on|off, --max-opened-subscriptions N,
 * --max-subscriptions-per-connection N, --subscription-queue-capacity N,
 * --subscription-ping-interval MS, --subscription-init-timeout MS,
 * --subscription-max-message BYTES, --subscription-channel-prefix P:
 * 1 taken, 0 not one, -1 bad. */
int gql_cli_subscription_flag(const char *cmd, gql_settings *st, int argc,
                              char **argv, int *i);

/* Demand control (demand_control.c): Router's static_estimated strategy as
 * the server's admission hook. --demand-control-max N (enforces),
 * --demand-control-mode measure|enforce, --demand-control-list-size N. */
typedef struct gql_cli_demand_control gql_cli_demand_control;
int gql_cli_demand_control_flag(const char *cmd, gql_settings *st, int argc,
                                char **argv, int *i);
/* Builds demand control into *out when demand_control.enabled (else
 * NULL), with the weights of
 * `schema` (which must outlive it), or when `weights_sdl` is given of the
 * schema built from it (the gateway's supergraph: its API schema drops the
 * linked @cost / @listSize, the supergraph keeps them and every API type);
 * false after printing why. */
bool gql_cli_demand_control_init(const char *cmd, const gql_settings *st,
                                 const gql_schema *schema,
                                 const char *weights_sdl, size_t weights_len,
                                 gql_cli_demand_control **out);
void gql_cli_demand_control_free(gql_cli_demand_control *dc);
/* What demand control tells operators (cost_report.c): each estimate
 * counted on /metrics in the worker's shard (gql_cost_requests_total
 * {result,mode}, gql_cost_estimated{result}); in measure mode, each
 * operation over the maximum that runs anyway a warning line, at most one
 * every 10 s with the count held back since. `http`'s log settings and
 * observer are read when reporting. */
typedef struct gql_cli_cost_report {
  const struct gql_http_options *http;
  bool limiting; /* lines is set up */
  gql_log_limit lines;
} gql_cli_cost_report;
void gql_cli_cost_report_init(gql_cli_cost_report *cr,
                              const struct gql_http_options *o);
void gql_cli_cost_report_free(gql_cli_cost_report *cr);
/* One estimate of the request's operation (`operation` its name, may be
 * empty), under a maximum `max` in mode enforce or measure. */
void gql_cli_cost_report_estimate(gql_cli_cost_report *cr, gql_http_request *r,
                                  gql_str operation, bool enforce,
                                  gql_cost_result result, double cost,
                                  double max);
/* The admission's verdict (gql_http_admission.admit) under `dc`, told to
 * `cr`. */
const char *gql_cli_demand_control_admit(
    gql_cli_demand_control *dc, gql_cli_cost_report *cr, gql_http_request *r,
    const gql_prepared *p, const gql_value *variables, size_t *len);

/* GraphiQL (graphiql_setup.c): --no-graphiql, --graphiql-assets DIR|URL;
 * sets o->pages unless turned off; false after printing why. */
typedef struct gql_cli_graphiql gql_cli_graphiql;
int gql_cli_graphiql_flag(const char *cmd, gql_settings *st, int argc,
                          char **argv, int *i);
bool gql_cli_graphiql_init(const char *cmd, const gql_settings *st,
                           gql_cli_graphiql **out, struct gql_http_options *o);
void gql_cli_graphiql_free(gql_cli_graphiql *g);

/* The part of the configuration a generation serves with (live_config.c;
 * hot reload): its settings, JWT verifier and demand control. */
typedef struct gql_cli_live {
  uint64_t serial; /* 1 at start, one more per generation loaded */
  const gql_settings *st;
  gql_settings *owned;               /* st when the live owns it */
  struct gql_jwt_verifier *verifier; /* NULL: no authentication */
  bool require;                      /* authorization.require_authentication */
  gql_cli_demand_control *dc;        /* NULL: no demand control */
  gql_cli_persisted *persisted;      /* NULL: the start's */
} gql_cli_live;
/* The live settings `st` (with `owned` NULL or st, freed with it); the
 * verifier is built from st's key sets. NULL after printing why (owned
 * freed). */
gql_cli_live *gql_cli_live_new(const char *cmd, const gql_settings *st,
                               gql_settings *owned, uint64_t serial);
void gql_cli_live_free(gql_cli_live *l);
/* The live settings of a generation of gql serve or gql gateway (its ud;
 * reload.c, whose generations begin with that pointer), NULL when it has
 * none. Inline: the hooks and setups read it without depending on the
 * loader. */
static inline const gql_cli_live *gql_cli_generation_live(void *ud) {
  return ud ? *(gql_cli_live *const *)ud : NULL;
}
/* The headers section of a gql gateway generation (NULL: none). */
const gql_cfg_headers *gql_cli_generation_headers(void *ud);

typedef struct gql_cli_hooks {
  gql_http_hooks hooks;
  gql_http_admission admission; /* demand control, per generation */
  gql_cli_redis *redis;         /* --redis URL's clients (NULL: none) */
  gql_cli_persisted *persisted;
  gql_cli_graphiql *graphiql;
  gql_cli_live *first;      /* the settings at start: the first generation's */
  gql_cli_cost_report cost; /* demand control's metrics and lines */
} gql_cli_hooks;
/* Sets o->hooks and o->admission (CORS, authentication and demand control
 * as each generation's settings say: gql_cli_live_of); false after
 * printing why (a key set that does not load). `h` and `st` must outlive
 * the server. */
bool gql_cli_hooks_init(const char *cmd, const gql_settings *st,
                        gql_cli_hooks *h, struct gql_http_options *o);
void gql_cli_hooks_free(gql_cli_hooks *h);
/* The live settings a request runs with: its generation's, else h->first. */
const gql_cli_live *gql_cli_live_of(const gql_cli_hooks *h,
                                    const gql_http_request *r);

/* ---- gql serve's subscription events (serve_events.c) */

typedef struct gql_cli_serve_events {
  const char *url;      /* redis_url (NULL: no event source) */
  gql_cli_redis *redis; /* the workers' clients (gql_cli_hooks') */
  const char *prefix;   /* of the channels (NULL: "gql:") */
  size_t max_event;     /* bytes of one message; larger: dropped */
  gql_http_service service;
  const gql_http_options *http; /* its log settings, read when logging */
  gql_cli_observer *obs;        /* the metrics (gql_cli_serve_events_observe) */
  bool limiting;                /* drops is set up */
  gql_log_limit drops;          /* the lines of dropped messages */
} gql_cli_serve_events;

/* Gives every Subscription root field of `schema` (not finalized yet) the
 * resolver that streams its Redis channel: called on each schema gql serve
 * loads, the first and every reload's (gql_cli_reload.schema_ready).
 * Without an event source, a subscription answers an error that says so.
 * 0 or a negative gql_err. */
int gql_cli_serve_events_schema(gql_schema *schema);
/* With a Redis URL, sets o->service (each worker's event bus, on its
 * client from `redis`). 0 or a negative gql_err. */
int gql_cli_serve_events_init(gql_cli_serve_events *se, const gql_settings *st,
                              gql_cli_redis *redis, gql_http_options *o);
/* After gql_cli_serve_events_init: the families of the messages on the
 * subscription channels, counted on obs's registry (none without a Redis
 * URL or with metrics off). 0 or GQL_ENOMEM. */
int gql_cli_serve_events_observe(gql_cli_serve_events *se,
                                 gql_cli_observer *obs);
/* Frees what gql_cli_serve_events_init made (once the server has
 * stopped); nothing on a zeroed one. */
void gql_cli_serve_events_free(gql_cli_serve_events *se);
/* The verified JWT claims of a request served with these hooks (NULL: not
 * authenticated). */
const struct gql_json_value *gql_cli_request_claims(const gql_http_request *r);
/* One warning line per configured feature this version does not apply. */
void gql_cli_warn_unapplied(const char *cmd, const gql_settings *st,
                            bool gateway);

/* The commands, each in its own file. */
extern const gql_cli_command gql_cmd_format;
extern const gql_cli_command gql_cmd_print_schema;
extern const gql_cli_command gql_cmd_validate;
extern const gql_cli_command gql_cmd_exec;
extern const gql_cli_command gql_cmd_serve;
extern const gql_cli_command gql_cmd_gateway;
extern const gql_cli_command gql_cmd_config;

#endif
