/* gql_http — GraphQL over HTTP on libuv + llhttp.
 *
 * This header needs the http library (`gql_http`, which links libuv and
 * llhttp) besides libgql. A server runs one libuv loop per worker thread,
 * each listening on the same address with SO_REUSEPORT; the schema is shared
 * read-only between them. Resolvers run on the worker thread that received
 * the request; a resolver that returns pending (gql_out_pending) completes
 * its field later from that same thread, for instance from a uv_timer_t on
 * gql_http_loop(info). */
#ifndef GQL_HTTP_H
#define GQL_HTTP_H

#include "gql.h"

#include <stdio.h>
#include <uv.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gql_http_log_level {
  GQL_HTTP_LOG_ERROR,
  GQL_HTTP_LOG_WARN, /* the default */
  GQL_HTTP_LOG_INFO, /* adds one access-log line per request */
  GQL_HTTP_LOG_DEBUG
} gql_http_log_level;

/* Advanced: a request executor that replaces gql's executor (the federation
 * gateway uses it). The server still parses the HTTP request, negotiates
 * the media type, and parses, validates and caches the operation against
 * the server's schema; then, instead of executing it, it calls `execute`
 * on the worker thread, which answers later (or at once) with
 * gql_http_exec_done. */
/* One HTTP request being answered (see "the request" below). */
typedef struct gql_http_request gql_http_request;

typedef struct gql_http_exec {
  gql_arena *arena;             /* the request's; lives until done */
  uv_loop_t *loop;              /* the worker's */
  gql_str query;                /* the operation text (valid) */
  const char *operation_name;   /* NULL: the only operation */
  const gql_value *variables;   /* the variables object, or NULL */
  const gql_prepared *prepared; /* the validated operation (cached) */
  /* the request's trace (options.tracer; NULL: none): add spans with
   * gql_trace_span_start; it ends once the response is written */
  gql_trace *trace;
  void *internal_;
  gql_http_request *request; /* its headers, peer, context (see below) */
  /* The ud of the generation the request runs on (gql_http_generation;
   * NULL for the server's first one). */
  void *generation;
} gql_http_exec;

typedef struct gql_http_executor {
  void *ud;
  /* Per worker, before its loop runs: state for that worker (NULL fails
   * the start). Handles may be created on `loop`. */
  void *(*worker_start)(void *ud, uv_loop_t *loop);
  /* The server is stopping: close idle handles so the loop can end
   * (requests in flight still finish). May be NULL. */
  void (*worker_stop)(void *worker);
  /* After the worker's loop ended. May be NULL. */
  void (*worker_free)(void *worker);
  /* Executes a request. Returns 0 once it has called or will call
   * gql_http_exec_done exactly once; a negative gql_err otherwise (the
   * server answers 500). */
  int (*execute)(void *worker, gql_http_exec *req);
  /* The worker moved to a new generation (gql_http_server_swap; `ud` is
   * its ud), between two requests: make the worker's state for it now
   * (plans of the hot operations) rather than in its first request. Its
   * requests carry it as gql_http_exec.generation. May be NULL. */
  void (*generation)(void *worker, void *ud);
  /* The stop's deadline passed (gql_http_options.shutdown_timeout_ms) and
   * the connections still open were closed: end the work still in flight
   * now (each request still ends exactly once). May be NULL. */
  void (*worker_deadline)(void *worker);
} gql_http_executor;

/* The response of an executor's request: a GraphQL response (JSON), sent
 * with the status the negotiated media type calls for. */
GQL_API void gql_http_exec_done(gql_http_exec *req, const char *json,
                                size_t len);
/* gql_http_exec_done from an executor that knows whether the response has
 * errors (gql_http_exec_done assumes it may, so that the observer's
 * gql_graphql_errors_total reads the response back to look). */
GQL_API void gql_http_exec_done_errors(gql_http_exec *req, const char *json,
                                       size_t len, bool has_errors);

/* Whether the request's transport carries more than one payload: a
 * WebSocket operation (graphql-transport-ws), a graphql-sse request, or an
 * HTTP request whose Accept allows multipart/mixed or text/event-stream. */
GQL_API bool gql_http_exec_streams(const gql_http_exec *req);

/* One payload of a streamed response, in order: a GraphQL response or an
 * incremental-delivery payload (JSON). Each is framed for the transport
 * (a multipart part, an SSE `next` event, a graphql-ws `Next` message) and
 * flushed as it comes. has_next false ends the response, in place of
 * gql_http_exec_done (over graphql-ws: `Complete` after it); json NULL with
 * has_next false ends it without a payload (a subscription's end). When
 * the transport does not stream, the first call answers graphql-http's
 * refusal (406) and later calls only count toward the end. */
GQL_API void gql_http_exec_payload(gql_http_exec *req, const char *json,
                                   size_t len, bool has_next);

/* The client went away or stopped the operation (connection closed,
 * graphql-ws `Complete`, graphql-sse DELETE) before the last payload:
 * `cancel(ud)` runs once, on the worker's loop. The executor must still
 * end the request exactly once (gql_http_exec_payload(req, NULL, 0,
 * false) or gql_http_exec_done), which then sends nothing and frees it. */
GQL_API void gql_http_exec_on_cancel(gql_http_exec *req,
                                     void (*cancel)(void *ud), void *ud);

/* What the server tells an observer of a request once its response is
 * written (strings valid during the call only). */
typedef struct gql_http_request_info {
  const char *method;
  gql_str path;           /* without the query string */
  gql_str client;         /* the peer, "127.0.0.1:53211" or "[::1]:53211" ("":
                           * unknown) */
  int status;             /* the HTTP status sent */
  size_t bytes;           /* body bytes sent */
  uint64_t duration_ns;   /* first byte of the request to response written */
  gql_str operation_name; /* the operationName given ("" none) */
  int operation_type;     /* a gql_operation_type, or -1: no operation ran */
  int document_cache; /* 1 the document was cached, 0 prepared now, -1 none */
  /* The response body; `errors`: it may hold GraphQL errors (the executor
   * said so, or an error answered before execution, or the executor
   * replaced by options.executor); NULL for a streamed response (several
   * payloads: @defer, @stream, an event stream) */
  const char *body;
  bool errors;
  /* the request's trace, when traced (gql_trace_id gives its id) */
  gql_trace *trace;
} gql_http_request_info;

/* What GraphQL over WebSocket tells an observer (gql_http_observer.
 * websocket), each a number to add. */
typedef enum gql_http_ws_count {
  GQL_HTTP_WS_CONNECTIONS, /* sockets open: +1 upgraded, -1 closed */
  /* subscriptions open (over graphql-sse too): +1 started, -1 ended */
  GQL_HTTP_WS_SUBSCRIPTIONS,
  GQL_HTTP_WS_EVENTS, /* events written to subscribers (a `next`) */
  /* events a subscriber did not get: its queue overflowed, or it stopped
   * reading (its output bound was reached and the socket dropped) */
  GQL_HTTP_WS_DROPPED,
  /* event executions (a shared one counts once for all its subscribers) */
  GQL_HTTP_WS_EXECUTIONS
} gql_http_ws_count;

/* Observing a server (metrics, structured logs, readiness): callbacks the
 * server calls; each may be NULL. The worker functions run on the worker
 * threads, each with the state worker_start gave for that thread; the
 * others on any thread. */
typedef struct gql_http_observer {
  void *ud;
  /* Per worker, before its loop runs (NULL fails the start). */
  void *(*worker_start)(void *ud);
  void (*worker_free)(void *worker);
  /* A request's response was written (also refused requests). */
  void (*request)(void *worker, const gql_http_request_info *info);
  /* A connection opened (+1) or closed (-1). */
  void (*connection)(void *worker, int delta);
  /* GraphQL over WebSocket's counts (on the worker threads). */
  void (*websocket)(void *worker, gql_http_ws_count what, int64_t n);
  /* GET metrics_path (NULL: no such page; "/metrics" for instance):
   * appends the page to out and returns its Content-Type, or NULL (503). */
  const char *metrics_path;
  const char *(*metrics)(void *ud, gql_output *out);
  /* GET /ready: true when ready (200), else 503. NULL: always ready. */
  bool (*ready)(void *ud);
  /* Replaces the server's log lines: a message (access NULL), or the
   * access line of a request (at level info). One call per line. */
  void (*log)(void *ud, gql_http_log_level level, const char *message,
              const gql_http_request_info *access);
} gql_http_observer;

/* The limits of GraphQL over WebSocket (gql_http_options.subscription);
 * 0 in a field means its default. */
typedef struct gql_http_subscription_limits {
  bool disabled; /* no upgrade: such a request is answered as HTTP */
  /* Subscriptions open in the whole server (0: no limit); past it a
   * subscribe gets an `error` message. */
  uint32_t max_opened;
  uint32_t max_per_connection; /* operations in progress per socket (100) */
  uint32_t queue_capacity;     /* events waiting per subscriber (64) */
  uint32_t ping_interval_ms;   /* keep-alive ping (12,000); a peer silent
                                * for a whole interval is dropped */
  uint32_t init_timeout_ms;    /* connection_init wait (3,000): 4408 */
  uint32_t max_message;        /* bytes of a client message (1 MiB): 1009 */
  /* graphql-sse's single connection mode: a reservation (PUT) whose
   * stream no GET opened within this is dropped (30,000) */
  uint32_t sse_reservation_ttl_ms;
  /* Subscribers of a worker running the same operation with the same
   * variables share one execution per event: its response is framed for
   * each with its own id. A connection whose hook set a context or claims
   * still subscribes alone; the others' upgrade headers are released after
   * connection_init. Set it only when no resolver of an operation sent over
   * a WebSocket reads the request (headers, context), and when the
   * subscription fields are broadcasts (a subscriber joining a group gets
   * the events one subscribing alone then would: a pub/sub channel, not a
   * counter started per subscription): gql serve's JSON and Redis event
   * resolvers are both. */
  bool shared_execution;
} gql_http_subscription_limits;

/* A per-worker service (gql_http_options.service): state on each worker's
 * loop that resolvers reach with gql_http_service_worker, such as the
 * connection an event source pushes subscription events from. */
typedef struct gql_http_service {
  void *ud;
  /* Per worker, before its loop runs; handles may be made on `loop`.
   * NULL fails the worker's start. */
  void *(*worker_start)(void *ud, uv_loop_t *loop);
  /* The server is stopping: close the handles so the loop can end. */
  void (*worker_stop)(void *worker);
  /* After the worker's loop ended. */
  void (*worker_free)(void *worker);
} gql_http_service;

/* Request hooks (gql_http_options.hooks), all optional. They run on the
 * worker threads, several at once: `worker_start` gives each worker its
 * own state (say, a token cache), handed to the others as `worker` (without
 * worker_start, `worker` is `ud`).
 *
 * request: every request, before it is routed (/graphql, /health, ...):
 *   it may answer the request itself with gql_http_request_answer (a CORS
 *   preflight) and add response headers (gql_http_request_add_header).
 * execute: a GraphQL request, once its parameters are read and before its
 *   operation is parsed or run: it may refuse it with
 *   gql_http_request_reject (401 with WWW-Authenticate), add response
 *   headers, and set the request's context for the resolvers
 *   (gql_http_request_set_context).
 * response: every response, just before its head is written (status
 *   known): it may add response headers.
 * A hook that does not answer lets the request go on. With no hooks the
 * server does no work for them. */
typedef struct gql_http_hooks {
  void *ud;
  void *(*worker_start)(void *ud); /* NULL fails the worker's start */
  void (*worker_free)(void *ud, void *worker);
  void (*request)(void *worker, gql_http_request *r);
  void (*execute)(void *worker, gql_http_request *r);
  void (*response)(void *worker, gql_http_request *r, int status);
} gql_http_hooks;

/* Hot reload (gql_http_options.reload): what gql_http_server_run watches
 * and how it loads the next generation. SIGHUP, or a change to one of the
 * `watch` files (settled for debounce_ms: editors write in steps), calls
 * `load` on the thread of gql_http_server_run; a generation it returns goes
 * to gql_http_server_swap, a failure (it logs why) leaves the old one
 * serving. */
typedef struct gql_http_generation gql_http_generation;
typedef struct gql_http_reload {
  void *ud;
  /* 0 with *out filled, or a negative gql_err once it has logged why. */
  int (*load)(void *ud, gql_http_generation *out);
  const char *const *watch; /* files (NULL: SIGHUP only) */
  unsigned nwatch;
  unsigned debounce_ms; /* default 100 */
} gql_http_reload;

/* Persisted operations (gql_http_options.documents): before a GraphQL
 * request's operation is parsed, `decide` says what it runs: the query it
 * sent, a document found by id or hash (Automatic Persisted Queries,
 * persisted documents, safelisting), or an error. gql serve and gql
 * gateway fill it from src/pubsub; a decision that asks a store (Redis)
 * may come later, from the worker's loop (gql_http_document_done). Without
 * it the server reads neither documentId nor extensions. */
typedef struct gql_http_document {
  /* What the request sent: query, documentId, the extensions object. */
  bool has_query, has_document_id;
  gql_str query, document_id;
  const gql_value *extensions;
  /* RUN: `query` (has_query false: the server's "Missing query."). ERROR:
   * answer `status` with `body` (a GraphQL response), with Cache-Control:
   * private, no-cache, must-revalidate when `no_cache`. */
  int status;
  const char *body;
  size_t body_len;
  bool no_cache;
  void *state; /* the hook's own, for `validated` */
  void *internal_;
} gql_http_document;

enum { GQL_HTTP_DOC_RUN, GQL_HTTP_DOC_ERROR, GQL_HTTP_DOC_PENDING };

typedef struct gql_http_documents {
  void *ud;
  /* Per worker, before its loop runs (NULL fails the start); stop: the
   * server is stopping (close handles; pending decisions still end);
   * free: after the loop ended. */
  void *(*worker_start)(void *ud, uv_loop_t *loop);
  void (*worker_stop)(void *worker);
  void (*worker_free)(void *worker);
  /* GQL_HTTP_DOC_RUN, _ERROR, or _PENDING (then gql_http_document_done
   * follows exactly once, never from inside this call). Strings it sets
   * live in the request's arena or longer. */
  int (*decide)(void *worker, gql_http_request *r, gql_http_document *d);
  /* The operation it ran has validated (optional): where an APQ
   * registration is kept (Apollo keeps only documents that validate). */
  void (*validated)(void *worker, gql_http_request *r, gql_http_document *d);
} gql_http_documents;

/* The end of a PENDING decision: GQL_HTTP_DOC_RUN or GQL_HTTP_DOC_ERROR,
 * from the worker's loop. */
GQL_API void gql_http_document_done(gql_http_document *d, int action);

/* Admission (gql_http_options.admission): demand control. `admit` runs on
 * the worker threads for every GraphQL request whose operation validated
 * and is within the operation limits, before it runs: NULL lets it run; a
 * GraphQL response (JSON, *len bytes, in the request's arena or static)
 * refuses it as a request error (400 with graphql-response+json, 200 with
 * application/json). */
typedef struct gql_http_admission {
  void *ud;
  const char *(*admit)(void *ud, gql_http_request *r, const gql_prepared *p,
                       const gql_value *variables, size_t *len);
} gql_http_admission;

/* Pages the server answers itself (gql_http_options.pages): GET or HEAD of
 * `path` is answered 200 with `body` (another method: 405). A page whose
 * path is NULL is the endpoint's page: a GET of the GraphQL path whose
 * Accept lists text/html gets it instead of a GraphQL response (GraphiQL,
 * as graphql-yoga decides). Bodies are pointed to for the server's life. */
typedef struct gql_http_page {
  const char *path;
  const char *content_type;
  const char *body;
  size_t len;
} gql_http_page;

/* Server options. Zero in a field means its default. */
typedef struct gql_http_options {
  const char *host; /* default "127.0.0.1" */
  /* Listen on this Unix socket instead of host:port (a sidecar, a proxy
   * on the same machine). A stale socket file is replaced, a live one or
   * another file is not; the file is removed when the server is freed.
   * The banner says "on unix:PATH/graphql"; gql_http_request_peer is
   * "". */
  const char *unix_path;
  int port;                 /* default 4000; -1: any free port */
  unsigned threads;         /* worker threads; default one per core */
  const char *path;         /* the GraphQL endpoint; default "/graphql" */
  size_t max_body;          /* request body bytes; default 1 MiB (413) */
  size_t max_header_bytes;  /* request line + headers; default 16 KiB (431) */
  unsigned max_headers;     /* header count; default 100 (431) */
  unsigned max_connections; /* open connections in all; default 10,000 */
  unsigned idle_timeout_ms; /* keep-alive idle; default 30 s */
  /* A stop (gql_http_server_stop, SIGINT, SIGTERM) waits this long for
   * the requests and streams in flight, then closes every connection
   * still open; default 10 s */
  unsigned shutdown_timeout_ms;
  unsigned
      request_timeout_ms;  /* a request's bytes, first to last; default 10 s */
  size_t cache_bytes;      /* per-thread document cache; default 16 MiB */
  gql_parse_options parse; /* query limits (tokens, depth, size) */
  uint32_t max_plan_size;  /* planned fields (0: the engine's default) */
  gql_http_log_level log_level;
  bool log_level_set;     /* log_level applies (else warn) */
  FILE *log;              /* default stderr */
  const void *root_value; /* parent of the root fields */
  void *context;          /* given back by gql_http_context */
  /* gql_http_server_run prints "BANNER on http://HOST:PORT/PATH" to stdout
   * once listening (NULL: nothing). */
  const char *banner;
  const char *log_name; /* prefix of log lines; default "gql serve" */
  /* NULL: gql's executor runs the operations. */
  const gql_http_executor *executor;
  /* Errors of requests that do not parse or validate carry
   * extensions.code as Apollo Router words them (GRAPHQL_PARSE_FAILED,
   * GRAPHQL_VALIDATION_FAILED, GRAPHQL_UNKNOWN_OPERATION_NAME). */
  bool error_codes;
  /* Tracing (NULL: none). Every GraphQL request (POST or GET, document
   * cache hit or miss) gets a gql_trace on the tracer: parse and validate
   * spans when the document was not cached, the execute span and its
   * resolve spans, ended once the response is written (also for pending
   * fields, errors and clients that went away). The tracer is shared by
   * the worker threads, must outlive the server, and is flushed by
   * gql_http_server_run after a graceful stop; the embedder frees it. */
  gql_tracer *tracer;
  /* The trace options of every request (NULL: gql_trace_options_init's);
   * pointed to, with its variables list, for the server's life. */
  const gql_trace_options *trace_options;
  /* Metrics, logs and readiness (NULL: the server's own text log lines,
   * GET /metrics only with a tracer, /ready always 200). Pointed to for
   * the server's life. */
  const gql_http_observer *observer;
  /* Apollo Router's operation limits (0: none) and introspection switch:
   * an operation over a limit, or selecting __schema or __type with
   * no_introspection, is refused as a request error (400 with
   * graphql-response+json, 200 with application/json) with Router's
   * message and extensions.code (MAX_DEPTH_LIMIT, MAX_HEIGHT_LIMIT,
   * MAX_ALIASES_LIMIT, MAX_ROOT_FIELDS_LIMIT, INTROSPECTION_DISABLED).
   * Measured once per cached operation (gql_prepared_shape). */
  uint32_t max_depth, max_height, max_aliases, max_root_fields;
  bool no_introspection;
  /* Request hooks (NULL: none); pointed to for the server's life. */
  const gql_http_hooks *hooks;
  /* Hot reload by gql_http_server_run (NULL: none); pointed to. */
  const gql_http_reload *reload;
  /* Operations each worker prepares on a new generation before it serves
   * from it: the most recently used of its document cache (0: 64). */
  unsigned warm_operations;
  /* Persisted operations (NULL: none); pointed to for the server's life. */
  const gql_http_documents *documents;
  /* Demand control (NULL: none); pointed to for the server's life. */
  const gql_http_admission *admission;
  /* Pages (GraphiQL and its assets; none by default). */
  const gql_http_page *pages;
  uint32_t npages;
  /* A per-worker service beside the executor (NULL: none), such as an
   * event source's connection (gql serve's Redis): pointed to for the
   * server's life. */
  const struct gql_http_service *service;
  /* GraphQL over WebSocket (0: each default). */
  gql_http_subscription_limits subscription;
} gql_http_options;

typedef struct gql_http_server gql_http_server;

/* A server for `schema`, which must outlive it. Nothing listens yet. */
GQL_API int gql_http_server_new(gql_schema *schema,
                                const gql_http_options *options,
                                gql_http_server **out);
/* Binds every worker's socket and starts the workers; returns once they
 * listen (0) or with a negative gql_err (GQL_EIO when the address cannot be
 * bound or another process listens there; a message goes to the log).
 * Sets SIGPIPE to be ignored (a client closing mid-response must give EPIPE,
 * not kill the process). */
GQL_API int gql_http_server_start(gql_http_server *server);
/* The port the server listens on (after start; useful with port -1). */
GQL_API int gql_http_server_port(const gql_http_server *server);
/* Asks the server to stop: stop accepting, finish the requests in flight,
 * close the connections. Safe from any thread and from a signal handler's
 * loop callback. */
GQL_API void gql_http_server_stop(gql_http_server *server);
/* Waits until the workers have stopped. */
GQL_API void gql_http_server_wait(gql_http_server *server);
/* start, then runs until SIGINT or SIGTERM, then stops gracefully: once
 * the requests in flight have finished, flushes options.tracer (every
 * finished span is exported, or counted as failed by the transport).
 * 0 on a clean stop. */
GQL_API int gql_http_server_run(gql_http_server *server);
/* ------------------------------------------------------------ generations
 *
 * What a request runs on: the schema, the root value and the operation
 * limits. The server starts on gql_http_server_new's schema and options;
 * gql_http_server_swap publishes a new generation. Each worker picks it up
 * between two requests (first preparing, on the new schema, the
 * operations it used most recently: options.warm_operations); a request
 * in flight finishes on the generation it started on. Once no worker and
 * no request uses a generation any more, its `release` runs (on some
 * worker thread, or in gql_http_server_free). The request path takes no
 * lock: a worker looks at its own atomic slot. */
struct gql_http_generation {
  gql_schema *schema; /* finalized by the swap */
  const void *root_value;
  uint32_t max_depth, max_height, max_aliases, max_root_fields;
  bool no_introspection;
  void *ud;                  /* gql_http_exec.generation */
  void (*release)(void *ud); /* NULL: nothing to free */
};

/* Publishes `g` (copied) to every worker of a started server. Safe from
 * any one thread at a time (gql_http_server_run's loads it from its own).
 * GQL_EINVAL when not started (then `release` has not run: yours). */
GQL_API int gql_http_server_swap(gql_http_server *server,
                                 const gql_http_generation *g);
/* How many generations the server has published (0: still the first). */
GQL_API uint64_t gql_http_server_generation(const gql_http_server *server);
/* Applies to a running server, from any thread, the options it can change
 * while it runs; the others in `options` are ignored, zeros take the
 * defaults as in gql_http_server_new: log_level (with log_level_set), the
 * request limits max_body, max_header_bytes and max_headers, and
 * idle_timeout_ms, request_timeout_ms and shutdown_timeout_ms. Each is
 * stored atomically, and the server reads it so: every worker's next log
 * line, the bytes of requests still to be read and the timers armed from
 * then on follow the new values (an idle timer already armed fires as it
 * was set, then waits out the new value). gql serve and gql gateway call
 * it on a reload. */
GQL_API void gql_http_server_update(gql_http_server *server,
                                    const gql_http_options *options);

/* Frees a stopped (or never started) server. NULL is allowed. */
GQL_API void gql_http_server_free(gql_http_server *server);

/* From inside a resolver run by the server: the worker's loop (to complete
 * pending fields from its timers or I/O) and options.context. */
GQL_API uv_loop_t *gql_http_loop(const gql_resolve_info *info);
GQL_API void *gql_http_context(const gql_resolve_info *info);
/* From inside a resolver run by the server: its worker's service state
 * (gql_http_options.service), NULL without one. */
GQL_API void *gql_http_service_worker(const gql_resolve_info *info);

/* ------------------------------------------------------------ the request
 *
 * What a hook, a resolver (synchronous or pending) or an executor knows of
 * the HTTP request it serves. A gql_http_request is valid from the request
 * hook until its response is written: a pending resolver may keep it until
 * it completes its field. Strings are not NUL-terminated unless stated, and
 * point into the request's memory. Reading costs nothing unless called. */

/* The request a resolver runs for (NULL outside the server). */
GQL_API gql_http_request *gql_http_request_of(const gql_resolve_info *info);
/* "GET", "POST", "OPTIONS"... (NUL-terminated). */
GQL_API gql_str gql_http_request_method(const gql_http_request *r);
/* The URL's path, without the query string. */
GQL_API gql_str gql_http_request_path(const gql_http_request *r);
/* The value of header `name` (any case), the first when repeated; ptr NULL
 * when absent. */
GQL_API gql_str gql_http_request_header(const gql_http_request *r,
                                        const char *name);
/* The headers as received, in order (repeated names included): count, and
 * header i's name and value (false when out of range). */
GQL_API uint32_t gql_http_request_header_count(const gql_http_request *r);
GQL_API bool gql_http_request_header_at(const gql_http_request *r, uint32_t i,
                                        gql_str *name, gql_str *value);
/* The client's address as "IP:PORT" ("[V6]:PORT"), NUL-terminated in the
 * request's arena; "" when unknown (no socket). */
GQL_API const char *gql_http_request_peer(gql_http_request *r);
/* A POST request's JSON body (an object), once the server has read it
 * (from the execute hook on); NULL for GET and before. */
GQL_API const gql_value *gql_http_request_body(const gql_http_request *r);
/* The request's arena: memory that lives until the response is written. */
GQL_API gql_arena *gql_http_request_arena(gql_http_request *r);
/* The embedder's pointer for this request (NULL until set). */
GQL_API void *gql_http_request_context(const gql_http_request *r);
GQL_API void gql_http_request_set_context(gql_http_request *r, void *ctx);
/* The verified JWT claims of the request (an object), or NULL: no token,
 * or none verified. gql serve and gql gateway set them from the request's
 * `Authorization: Bearer` token once it is verified
 * (authentication.router.jwt, docs/config.md); an embedder's execute hook
 * that verifies tokens sets them (kept by pointer: in the request's arena
 * or longer-lived). Readable from the hooks after execute, the resolvers
 * (gql_http_request_of(info)) and an executor's request. */
GQL_API const gql_value *gql_http_request_claims(const gql_http_request *r);
GQL_API void gql_http_request_set_claims(gql_http_request *r,
                                         const gql_value *claims);
/* The ud of the generation the request runs on (gql_http_generation; NULL
 * for the server's first one): what hooks and admission read their
 * per-generation settings from (hot reload), without a lock. A request in
 * flight keeps its generation until its response is written. */
GQL_API void *gql_http_request_generation(const gql_http_request *r);
/* The observer's state for the worker thread serving the request
 * (gql_http_observer.worker_start's; NULL without it): for a hook or an
 * admission that counts into that worker's metrics. */
GQL_API void *gql_http_request_observer(const gql_http_request *r);
/* Adds a header to the response (name and value copied; no CR or LF
 * allowed). 0, GQL_EINVAL or GQL_ENOMEM. */
GQL_API int gql_http_request_add_header(gql_http_request *r, const char *name,
                                        const char *value);
/* From the request or execute hook: answers the request without running
 * it, with this status and body (204 or 304: no body) and the headers
 * added so far. `content_type` NULL: none. */
GQL_API void gql_http_request_answer(gql_http_request *r, int status,
                                     const char *content_type, const char *body,
                                     size_t len);
/* From the request or execute hook: refuses the request with this status
 * and a GraphQL error body {"errors":[{"message":M,"extensions":{"code":C}}]}
 * (code NULL: no extensions), in the negotiated media type. */
GQL_API void gql_http_request_reject(gql_http_request *r, int status,
                                     const char *message, const char *code);
/* True once the request has been answered (by a hook or otherwise). */
GQL_API bool gql_http_request_answered(const gql_http_request *r);

#ifdef __cplusplus
}
#endif

#endif /* GQL_HTTP_H */
