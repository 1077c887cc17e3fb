/* GraphQL over server-sent events as the graphql-sse package (version 2)
 * speaks it, as pure logic: which requests are SSE and what each asks
 * for, the registry of single-connection reservations, and the event
 * stream's bytes. The server executes and writes; nothing here does I/O.
 *
 * Distinct connections mode: a GET or POST that accepts text/event-stream
 * (and names no open reservation) is one operation on one stream: "next"
 * events with the results, then "complete", then the stream ends.
 *
 * Single connection mode:
 *   PUT                          201, a reservation token (text/plain)
 *   GET, text/event-stream       200, the reservation's stream
 *   POST or GET with an operation in extensions.operationId
 *                                202; its events go to the stream as
 *                                {"id":ID,"payload":RESULT}
 *   DELETE ?operationId=ID       200, the operation stops
 * All but the PUT carry the token, in the X-GraphQL-Event-Stream-Token
 * header or the `token` query parameter. Refusals carry graphql-sse's statuses
 * and messages (404 "Stream not found", 409 "Stream already open", ...).
 *
 * Unlike graphql-sse, a request that is neither SSE nor carries a token is
 * not refused: it is plain GraphQL over HTTP on the same path. The
 * registry is bounded (reservations, operations per reservation) and a
 * reservation that no stream takes within its time-to-live is dropped. */
#ifndef GQL_HTTP_SSE_H
#define GQL_HTTP_SSE_H

#include "http_buf.h"

#define GQL_SSE_TOKEN_HEADER "x-graphql-event-stream-token"

/* ------------------------------------------------------------ routing */

typedef enum gql_sse_kind {
  GQL_SSE_NONE,     /* not SSE: plain GraphQL over HTTP */
  GQL_SSE_DISTINCT, /* one operation, one stream (if no reservation) */
  GQL_SSE_CONNECT,  /* the stream of reservation `token` */
  GQL_SSE_RESERVE,  /* PUT: make a reservation */
  GQL_SSE_EXECUTE,  /* an operation whose events go to `token`'s stream */
  GQL_SSE_STOP,     /* DELETE: stop operation `operation_id` */
  GQL_SSE_REFUSE    /* answer `status` with `message` */
} gql_sse_kind;

/* What the router needs of a request (header values as received). */
typedef struct gql_sse_request {
  gql_str method;
  gql_str target; /* the request target: path and query */
  gql_str accept;
  gql_str token; /* the X-GraphQL-Event-Stream-Token header, if any */
} gql_sse_request;

#define GQL_SSE_MAX_TOKEN 128
#define GQL_SSE_MAX_ID 128

typedef struct gql_sse_route {
  gql_sse_kind kind;
  int status;          /* REFUSE */
  const char *message; /* REFUSE: graphql-sse's, NULL for an empty body */
  const char *allow;   /* REFUSE 405: the Allow header's value */
  /* The token (decoded), for every kind but NONE and DISTINCT; empty
   * when a PUT gave none (a fresh one is made). */
  char token[GQL_SSE_MAX_TOKEN + 1];
  size_t token_len;
  /* STOP: the operationId query parameter (decoded). */
  char operation_id[GQL_SSE_MAX_ID + 1];
  size_t operation_id_len;
} gql_sse_route;

/* Decides the kind of a request from its method, target and headers
 * (the registry decides the rest: see gql_sse_registry_*). A CONNECT or
 * DISTINCT route depends on whether the token names a reservation: the
 * router says CONNECT when a token came, and the registry turns an
 * unknown one into DISTINCT. */
void gql_sse_route_request(const gql_sse_request *rq, gql_sse_route *out);

/* True when `accept` lists text/event-stream (with q > 0). */
bool gql_sse_accepts_stream(gql_str accept);

/* ------------------------------------------------------------ registry */

typedef struct gql_sse_registry gql_sse_registry;

typedef struct gql_sse_limits {
  uint32_t max_streams;    /* reservations (0: 10,000) */
  uint32_t max_operations; /* per reservation (0: 100) */
  uint32_t ttl_ms; /* a reservation no stream took is dropped (0: 30 s) */
  /* A reservation's owner handed out (open, add, stop) gets retain(owner),
   * under the registry's lock, so that it outlives the reservation while
   * the caller holds it; a reservation that goes (close, expire, free)
   * gives drop(owner), also under the lock. Both may be NULL (the owner
   * is then a plain pointer). */
  void (*retain)(void *owner);
  void (*drop)(void *owner);
} gql_sse_limits;

/* Thread-safe: reservations are made and used by any worker. */
gql_sse_registry *gql_sse_registry_new(const gql_sse_limits *limits);
void gql_sse_registry_free(gql_sse_registry *reg);

/* The outcome of a registry call: 0 and what was asked, or an HTTP
 * status with graphql-sse's message. */
typedef struct gql_sse_result {
  int status;          /* 0 when done */
  const char *message; /* NULL: an empty body */
} gql_sse_result;

/* PUT: registers rt->token, or a fresh random one when it is empty (then
 * written into rt->token). 409 "Stream already registered", 503 when
 * full. */
gql_sse_result gql_sse_registry_reserve(gql_sse_registry *reg,
                                        gql_sse_route *rt, uint64_t now_ms);
/* The same, with the reservation's owner from the start (the server's
 * hub, where operations posted before the stream opens queue their
 * events). The registry takes the caller's reference on success. */
gql_sse_result gql_sse_registry_reserve_for(gql_sse_registry *reg,
                                            gql_sse_route *rt, uint64_t now_ms,
                                            void *owner);
/* Whether `token` names a reservation. */
bool gql_sse_registry_has(gql_sse_registry *reg, gql_str token);
/* GET text/event-stream with a token: opens the reservation's stream for
 * `owner` (the server's handle of the stream's connection). When no
 * reservation has the token, rt->kind becomes DISTINCT. 409 "Stream
 * already open". */
gql_sse_result gql_sse_registry_open(gql_sse_registry *reg, gql_sse_route *rt,
                                     void *owner);
/* The same for a reservation made with an owner: *owner is it (retained);
 * NULL when the route turned DISTINCT or on a refusal. */
gql_sse_result gql_sse_registry_open_owned(gql_sse_registry *reg,
                                           gql_sse_route *rt, void **owner);
/* An operation for the reservation: `id` from extensions.operationId
 * (empty when absent). Sets *owner to the stream's owner (NULL while no
 * stream is open: the server keeps the operation until one is). 404
 * "Stream not found", 400 "Operation ID is missing", 409 "Operation with
 * ID already exists", 409 when the reservation has too many. */
gql_sse_result gql_sse_registry_add(gql_sse_registry *reg,
                                    const gql_sse_route *rt, gql_str id,
                                    void **owner);
/* The same, noting who runs the operation (`runner`, for the DELETE). */
gql_sse_result gql_sse_registry_add_run(gql_sse_registry *reg,
                                        const gql_sse_route *rt, gql_str id,
                                        void *runner, void **owner);
/* DELETE: forgets operation rt->operation_id of the reservation (unknown
 * ids too, as graphql-sse); *owner as above, so the server can stop it.
 * 404 "Stream not found", 400 "Operation ID is missing". */
gql_sse_result gql_sse_registry_stop(gql_sse_registry *reg,
                                     const gql_sse_route *rt, void **owner);
/* The same, with the operation's runner (NULL: no such operation). */
gql_sse_result gql_sse_registry_stop_run(gql_sse_registry *reg,
                                         const gql_sse_route *rt, void **owner,
                                         void **runner);
/* The server completed an operation: its id is free again. */
void gql_sse_registry_done(gql_sse_registry *reg, gql_str token, gql_str id);
/* The stream of `token` ended (the client went away, or the server
 * closes): the reservation goes, and with it its operations. */
void gql_sse_registry_close(gql_sse_registry *reg, gql_str token);
/* Drops reservations that no stream took within the time-to-live;
 * returns how many. */
unsigned gql_sse_registry_expire(gql_sse_registry *reg, uint64_t now_ms);
/* Reservations held (for tests and metrics). */
unsigned gql_sse_registry_count(gql_sse_registry *reg);

/* ------------------------------------------------------------ the stream */

/* The head of an event stream response (chunked, so that a distinct
 * stream's connection stays usable after it ends). */
void gql_sse_write_head(http_buf *out);
/* A "next" event: the result alone (distinct mode) or, with an id,
 * {"id":ID,"payload":RESULT} (single connection mode). As one chunk. */
void gql_sse_write_next(http_buf *out, gql_str id, bool with_id,
                        const char *json, size_t len);
/* A "complete" event (`data:` empty in distinct mode, {"id":ID} else). */
void gql_sse_write_complete(http_buf *out, gql_str id, bool with_id);
/* A comment line that keeps the connection alive (":\n\n"). */
void gql_sse_write_ping(http_buf *out);
/* The end of the chunked body. */
void gql_sse_write_end(http_buf *out);

#endif
