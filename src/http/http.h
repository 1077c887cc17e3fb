/* The http part: GraphQL over HTTP/1.1, on libgql's public API only
 * (include/gql.h: it links libgql like any embedder).
 *
 * Layers, so that a connection's input handling runs without a socket
 * (the fuzz target and unit tests drive it from a buffer), each using only
 * those below it:
 *   server.c   the libuv transport: threads, sockets, timers, signals
 *   context.c  a worker's state: resolved options, the request memory pool
 *   conn.c     one connection's bytes in (llhttp); each complete request
 *              goes to the handler
 *   handler.c  what a complete request means: GraphQL over HTTP
 *   sse_single.c  graphql-sse's single connection mode across workers
 *   answer.c   a request's one answer (the response, the log)
 *   response.c a response's bytes out (status line, head, body)
 *   cache.c    per-thread document cache of prepared operations (LRU, bytes)
 *   log.c      the clock and the log lines */
#ifndef GQL_HTTP_INTERNAL_H
#define GQL_HTTP_INTERNAL_H

#include "gql_http.h"

#include <llhttp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#define HTTP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* An option that gql_http_server_update changes while workers run (the
 * log level, the request limits, the timeouts): read atomically. */
#define HTTP_LIVE(opt, field) __atomic_load_n(&(opt)->field, __ATOMIC_RELAXED)
#define http_container_of(ptr, type, member)                                   \
  ((type *)((char *)(ptr)-offsetof(type, member)))

#include "http_buf.h"

/* Lines growing in an arena (a request's extra response headers). */
typedef struct http_buf_arena {
  char *data;
  size_t len, cap;
} http_buf_arena;

/* ---- document cache (cache.c) */

typedef struct gql_http_cache_entry {
  uint64_t hash;
  char *key; /* query text, NUL, operation name */
  size_t query_len, key_len;
  bool has_op;
  gql_prepared *prepared;
  size_t bytes;
  unsigned refs; /* the cache's own (while cached) + requests in flight */
  bool cached;
  const char *refusal; /* the operation limits' verdict (NULL: within) */
  const char *refusal_code;
  struct gql_http_cache_entry *hnext, *prev, *next;
} gql_http_cache_entry;

typedef struct gql_http_cache {
  gql_http_cache_entry **buckets;
  size_t nbuckets; /* power of two */
  size_t count, bytes, budget;
  uint64_t seed;
  gql_http_cache_entry lru; /* sentinel: lru.next is the most recent */
  uint64_t hits, misses, evictions;
} gql_http_cache;

void gql_http_cache_init(gql_http_cache *c, size_t budget, uint64_t seed);
void gql_http_cache_free(gql_http_cache *c);
/* The cached operation for (query, operation name), with a reference the
 * caller releases; NULL when absent. */
gql_http_cache_entry *gql_http_cache_get(gql_http_cache *c, gql_str query,
                                         const char *op, size_t op_len);
/* Adds `p` (ownership passes) and returns its entry with a reference for the
 * caller; evicts least recently used entries over the budget. NULL when out
 * of memory (p is then freed). */
gql_http_cache_entry *gql_http_cache_put(gql_http_cache *c, gql_str query,
                                         const char *op, size_t op_len,
                                         gql_prepared *p);
void gql_http_cache_release(gql_http_cache_entry *e);

/* ---- generations (generation.c): what requests run on, swapped at run
 * time (hot reload). A generation is shared by the workers (an atomic
 * count); each worker holds it through a pin of its own, which also holds
 * the worker's document cache for it and counts (without atomics: one
 * thread) the worker's requests on it. */

typedef struct gql_http_gen {
  atomic_uint refs; /* the pins and the workers' slots holding it */
  gql_http_generation g;
  uint64_t id;
} gql_http_gen;

typedef struct gql_http_pin {
  gql_http_gen *gen;
  gql_http_cache cache; /* operations prepared on gen->g.schema */
  unsigned refs;        /* the worker's, while current, + its requests */
} gql_http_pin;

/* A generation with `refs` references (NULL: out of memory). */
gql_http_gen *gql_http_gen_new(const gql_http_generation *g, unsigned refs,
                               uint64_t id);
void gql_http_gen_release(gql_http_gen *gen);
void gql_http_pin_release(gql_http_pin *p);
/* The operation limits' verdict on a newly cached operation (nothing to
 * do per request after this). */
void gql_http_judge_limits(const gql_http_generation *g,
                           gql_http_cache_entry *e);

/* Hot reload's triggers on gql_http_server_run's loop (reload.c): SIGHUP
 * and the watched files, when opt->reload asks (NULL: none). Stop closes
 * its handles (the loop frees it). */
typedef struct gql_http_reloader gql_http_reloader;
/* What the reloader swaps into (the server, through server.c's wrappers:
 * reload.c does not call server.c). */
typedef struct gql_http_swap_target {
  void *ud;
  int (*swap)(void *ud, const gql_http_generation *g);
  uint64_t (*generation)(void *ud);
} gql_http_swap_target;
gql_http_reloader *gql_http_reloader_start(uv_loop_t *loop,
                                           const gql_http_swap_target *target,
                                           const gql_http_options *opt);
void gql_http_reloader_stop(gql_http_reloader *r);

/* ---- per-thread state shared by the connections of one worker */

/* Memory for one request: an arena and a response buffer, pooled. */
typedef struct gql_http_slot {
  gql_arena *arena;
  gql_output output;
  struct gql_http_slot *next;
} gql_http_slot;

typedef struct gql_http_conn gql_http_conn;
/* GraphQL over WebSocket (subscriptions.c): a worker's shared part, and
 * the state of one upgraded connection. */
typedef struct gql_http_ws_worker gql_http_ws_worker;
typedef struct gql_http_ws_session gql_http_ws_session;

typedef struct gql_http_ctx {
  const gql_http_options *opt;  /* defaults filled in */
  gql_http_pin *pin;            /* the current generation and its cache */
  _Atomic(gql_http_gen *) next; /* published, not yet picked up */
  uint64_t seed;
  gql_http_slot *free_slots;
  unsigned nfree_slots;
  uv_loop_t *loop; /* NULL without a transport */
  bool stopping;   /* responses say Connection: close */
  /* A pending execution wrote its response into conn->out: flush it and
   * go on with the connection's input (NULL: nothing to do). */
  void (*resumed)(gql_http_conn *c);
  void *exec_worker; /* opt->executor's per-worker state */
  void *obs_worker;  /* opt->observer's per-worker state */
  void *hook_worker; /* opt->hooks' per-worker state */
  void *doc_worker;  /* opt->documents' per-worker state */
  void *svc_worker;  /* opt->service's per-worker state */
  /* Subscriptions open in the server (shared by the workers; NULL
   * without a transport). */
  _Atomic unsigned *open_subscriptions;
  /* The client's address of a connection, as text (NULL: unknown). */
  bool (*peer)(gql_http_conn *c, char *buf, size_t n);
  /* Made at the first upgrade; freed by the transport. */
  gql_http_ws_worker *ws_worker;
  /* A WebSocket connection has output or work for the next loop turn. */
  void (*ws_wake)(gql_http_conn *c);
  /* A streamed response's payload is in conn->out: write it now (from
   * the loop, the request in flight; NULL without a transport). */
  void (*flush)(gql_http_conn *c);
  /* graphql-sse's single connection mode (sse_single.c; NULL without a
   * transport: not served). */
  struct gql_http_sse_worker *sse;
} gql_http_ctx;

/* ---- a worker's state (context.c) */

/* Fills the defaults of `opt` into `out`. */
void gql_http_options_resolve(const gql_http_options *opt,
                              gql_http_options *out);
int gql_http_ctx_init(gql_http_ctx *x, gql_schema *schema,
                      const gql_http_options *resolved, uint64_t seed);
void gql_http_ctx_free(gql_http_ctx *x);
/* Between requests: moves to the generation waiting in x->next, if any,
 * after preparing the hottest operations of the current one on it. */
void gql_http_gen_poll(gql_http_ctx *x);
/* Memory for one request, from the worker's pool (NULL: out of memory),
 * and back to it. */
gql_http_slot *gql_http_slot_take(gql_http_ctx *x);
void gql_http_slot_give(gql_http_ctx *x, gql_http_slot *s);

/* ---- a connection (conn.c) */

typedef struct gql_http_request gql_http_request;

/* Where one request header is in gql_http_conn.hdrs. */
typedef struct gql_http_header_at {
  uint32_t name, name_len, value, value_len;
} gql_http_header_at;

struct gql_http_conn {
  gql_http_ctx *x;
  llhttp_t parser;
  /* The request being parsed: its URL, its headers (names and values one
   * after the other in hdrs, their places in hidx), the Accept values
   * joined, the body; Content-Type's value is at ctype_off in hdrs. */
  http_buf url, hdrs, hidx, accept, body;
  http_buf traceparent, tracestate; /* W3C trace context (with a tracer) */
  uint32_t ctype_off, ctype_len;
  uint32_t hname_start, hname_end; /* the header being parsed, in hdrs */
  size_t header_bytes;
  unsigned nheaders;
  bool expect_continue, expect_other, in_request, upgrade;
  int error_status; /* set by a callback that refuses the request */
  const char *error_message;
  uint64_t start_ns; /* first byte of the request (uv_hrtime) */
  /* Response bytes not yet handed to the transport. */
  http_buf out;
  /* Input received while a request is in flight. */
  http_buf in;
  gql_http_request *inflight;
  bool close_after; /* close once `out` is written */
  bool gone;        /* the transport has closed (client went away) */
  /* Upgraded to a WebSocket: its input goes to ws (gql_http_ws_feed). */
  gql_http_ws_session *ws;
  size_t out_inflight; /* bytes the transport is writing (after out) */
  /* The request in flight streams its response (stream.c): the transport
   * reads on, to see the client go (gql_http_stream_gone). */
  bool streaming;
  char peer[64]; /* the client's address (with an observer), or "" */
};

void gql_http_conn_init(gql_http_conn *c, gql_http_ctx *x);
void gql_http_conn_free(gql_http_conn *c);
/* Feeds received bytes: parses, handles every complete request in order and
 * appends the responses to c->out. Stops at a request that pends (the rest
 * is kept in c->in) or once c->close_after is set. */
void gql_http_conn_feed(gql_http_conn *c, const char *data, size_t len);
/* Goes on with input kept while a request was in flight or while too much
 * output waited (c->in not empty: the transport stops reading). */
void gql_http_conn_resume(gql_http_conn *c);
/* The client closed its side: handles a request that ends at EOF. */
void gql_http_conn_eof(gql_http_conn *c);

/* ---- responses (response.c) */

/* Appends a complete response to c->out. `headers` are extra header lines,
 * each ending in CRLF (NULL: none). `head_only`: the answer to a HEAD
 * request, the head of what GET would get without its body and without
 * Content-Length (RFC 9110 8.6 lets a HEAD response omit it; every other
 * response has one, so that the framing is never in doubt). */
void gql_http_respond(gql_http_conn *c, int status, const char *ctype,
                      const char *headers, const char *body, size_t len,
                      bool head_only);

/* ---- requests (handler.c) */

struct gql_http_request {
  gql_http_conn *conn;
  gql_http_slot *slot;
  gql_http_cache_entry *entry;
  gql_http_pin *pin; /* the generation it runs on (held) */
  uint64_t start_ns;
  const char *method;
  gql_str path;
  gql_str op_name;
  bool graphql_response; /* application/graphql-response+json */
  bool head;             /* a HEAD request: answered as GET, head only */
  bool done;
  bool answered;           /* its response is written */
  gql_http_exec exec;      /* with opt->executor */
  gql_trace *trace;        /* with opt->tracer: ended with the request */
  void *user;              /* gql_http_request_set_context */
  const gql_value *claims; /* gql_http_request_set_claims */
  http_buf_arena headers;  /* gql_http_request_add_header's lines */
  const char *peer;        /* made on demand */
  const gql_value *body;   /* a POST's JSON body, once read */
  gql_http_document *doc;  /* with opt->documents */
  /* A WebSocket's connection_init payload while the hooks see it: its
   * string members read as headers. */
  const gql_value *init_payload;
  bool socket; /* a WebSocket's: an answer is recorded, not written */
  /* A WebSocket operation run by opt->executor (ws_exec.c): the
   * gql_http_exec_* answers go there. */
  struct gql_http_ws_exec *ws_exec;
  int socket_status; /* the answer's status */
  /* for the observer: the operation type run (-1: none), whether the
   * document was cached (-1: no document), and whether the response may
   * hold errors */
  int8_t op_type, cache;
  bool errors;
  /* A response of several payloads (stream.c): the framing the Accept
   * header allows (a gql_http_stream_format, once stream_negotiated),
   * whether the client accepts only those (then every response is
   * streamed), and the stream once its first payload came. */
  int8_t stream_fmt;
  bool stream_negotiated, stream_only;
  struct gql_http_stream *stream;
  /* graphql-sse's single connection mode (sse_single.c): the route of an
   * operation for a reservation, the operation it became (its answers go
   * there), the reservation's stream this request carries. */
  struct gql_sse_route *sse_route;
  struct gql_http_sse_op *sse_op;
  struct gql_http_sse_hub *sse_hub;
};

/* Handles the request whose head and body c holds. */
void gql_http_handle(gql_http_conn *c);
/* Frees what a finished request holds. */
void gql_http_request_end(gql_http_request *r);

/* ---- a request's one answer (answer.c) */

/* The request's response (the hooks' headers, the observer, the log). */
void gql_http_request_finish(gql_http_request *r, int status, const char *ctype,
                             const char *headers, const char *body, size_t len);
/* The executor's one response (gql_execute's on_done): written with the
 * status the media type calls for, and the request done. */
void gql_http_request_done(void *r, const char *json, size_t len,
                           bool has_errors);

/* ---- streamed responses (stream.c): incremental delivery (@defer,
 * @stream) and the executor hooks' payloads, over multipart/mixed or
 * text/event-stream with chunked coding, a payload flushed as it comes */

/* Negotiates r->stream_fmt from the Accept header (while the request's
 * head is held: in the handler). Once per request; later calls keep it. */
void gql_http_stream_negotiate_request(gql_http_request *r);
/* gql_execute(_incremental)'s on_done for a request that may stream
 * (ud: the request): a payload with "hasNext":true starts or continues
 * the stream, the one without ends it; the first alone is a plain
 * response, unless the client accepts only streams. */
void gql_http_stream_on_payload(void *ud, const char *json, size_t len,
                                bool has_errors);
/* Runs an operation that may stream (@defer / @stream; a subscription
 * over text/event-stream; a client accepting only streams): gql_execute's
 * return value (the subscription's: 0). */
int gql_http_stream_execute(gql_http_request *r, const gql_prepared *p,
                            gql_execute_params *ep);
/* The connection of the request in flight closed mid-stream: nothing more
 * is written, and the executor's cancel runs. */
void gql_http_stream_gone(gql_http_conn *c);
/* A subscription over text/event-stream (graphql-sse's distinct
 * connections mode): each event a `next`, the end `complete`; the client
 * leaving frees it. */
void gql_http_stream_subscribe(gql_http_request *r, const gql_prepared *p,
                               const gql_value *variables,
                               const void *root_value);
/* The server stops: a subscription's stream completes (an incremental
 * one runs to its end). */
void gql_http_stream_going_away(gql_http_conn *c);
/* The transport wrote output: a paused subscription goes on. */
void gql_http_stream_writable(gql_http_conn *c);
/* The request ends: its subscription, if any, is freed. */
void gql_http_stream_release(gql_http_request *r);
/* The request is a subscription over text/event-stream (an executor's
 * too): counted in the observer's open subscriptions until its stream
 * ends. */
void gql_http_stream_observe(gql_http_request *r);
/* Counts r's subscription against subscription.max_opened_subscriptions
 * (uncounted when its stream is released); false after refusing it, one
 * too many, with an error as its one event. */
bool gql_http_stream_admit(gql_http_request *r);

/* ---- pages (pages.c) */

/* The page of opt->pages for r (NULL: none; the endpoint's page only for a
 * GET whose Accept lists text/html). */
const gql_http_page *gql_http_page_for(const gql_http_request *r, bool is_get);

/* ---- persisted operations (persisted_request.c) */

/* Goes on with a request once its document is decided: GQL_HTTP_DOC_RUN
 * (r->doc->query) or GQL_HTTP_DOC_ERROR (answer r->doc's error). */
typedef void (*gql_http_doc_run)(gql_http_request *r, void *ud, int action);
/* Asks opt->documents what `d` runs: `run` follows, now or later from the
 * loop. */
void gql_http_document_decide(gql_http_request *r, gql_http_document *d,
                              gql_http_doc_run run, void *ud);
/* The request's operation validated (r->doc set). */
void gql_http_document_validated(gql_http_request *r);
/* A worker's state for opt->documents (true without them). */
bool gql_http_documents_start(gql_http_ctx *x);
void gql_http_documents_stop(gql_http_ctx *x);
void gql_http_documents_free(gql_http_ctx *x);

/* ---- GraphQL over WebSocket (subscriptions.c) */

/* A request on the GraphQL path asking for `Upgrade: websocket`: answers
 * the handshake; after a 101, c->ws holds the socket (input after the
 * head goes to gql_http_ws_feed). False when the request is no WebSocket
 * upgrade (or the server has its own executor): handle it as HTTP. */
bool gql_http_ws_upgrade(gql_http_request *r);
void gql_http_ws_feed(gql_http_ws_session *s, const char *data, size_t len);
/* Work due by `now_ms` (the protocol's timeouts, keep-alive pings,
 * finished executions); returns when the next is due (ms). */
uint64_t gql_http_ws_tick(gql_http_ws_session *s, uint64_t now_ms);
/* 0 open; 1 closed: close the TCP connection once the output is written;
 * 2 terminated: close it now. */
int gql_http_ws_state(const gql_http_ws_session *s);
/* The server stops: close frame 1001. */
void gql_http_ws_going_away(gql_http_ws_session *s);
/* The socket closed: cancels every operation. True when nothing runs any
 * more (else an execution pends and wakes the connection when done). */
bool gql_http_ws_gone(gql_http_ws_session *s);
void gql_http_ws_free(gql_http_ws_session *s);
void gql_http_ws_worker_free(gql_http_ws_worker *w);
/* The answers of an executor (gql_http_exec_payload, _done, _on_cancel)
 * to a WebSocket operation's request (r->ws_exec set; ws_exec.c). */
void gql_http_ws_exec_payload(gql_http_request *r, const char *json, size_t len,
                              bool has_next);
void gql_http_ws_exec_on_cancel(gql_http_request *r, void (*cancel)(void *),
                                void *ud);

/* ---- the clock and the log (log.c) */

/* Monotonic nanoseconds. */
uint64_t gql_http_now_ns(void);
/* A response was written: the observer's request callback and the access
 * log line (info->duration_ns and client are filled in here). */
void gql_http_log_request(gql_http_conn *c, gql_http_request_info *info,
                          uint64_t start_ns);
void gql_http_log(const gql_http_options *opt, gql_http_log_level level,
                  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
