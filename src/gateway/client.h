/*
 * The gateway's subgraph HTTP/1.1 client, on one libuv loop (a worker's).
 *
 * Per subgraph a pool of keep-alive connections, one request at a time on
 * each (no pipelining); requests beyond the pool size wait in a queue.
 * A request is POST application/json; the response is parsed by llhttp
 * (chunked decoding included). The response completes as soon as the
 * root-end scanner says the JSON root closed and the rest of that read is
 * whitespace; the rest of the body (the chunk terminator) is then drained,
 * bounded in bytes and time, and the connection goes back to the pool.
 *
 * Every request ends with exactly one callback, never from inside
 * gql_gw_client_post, within connect + request timeout.
 */
#ifndef GQL_GATEWAY_CLIENT_H
#define GQL_GATEWAY_CLIENT_H

#include "core/core.h"

#include <uv.h>

typedef struct gql_gw_client gql_gw_client;

/* A subgraph's URL, http://HOST[:PORT][/PATH] (also ws:// when `ws`), in
 * pieces pointing into it: the host (at most 255 bytes), the host with
 * its port as written (a Host header), the port (80 without one) and the
 * path ("" when none). 0 or GQL_EINVAL. */
typedef struct gql_gw_url {
  gql_str host, host_port, path;
  int port;
} gql_gw_url;
int gql_gw_url_split(gql_str url, bool ws, gql_gw_url *out);

typedef struct gql_gw_client_options {
  unsigned connect_timeout_ms; /* default 2,000 */
  unsigned request_timeout_ms; /* send to complete answer; default 10,000 */
  unsigned max_connections;    /* per subgraph; default 128 */
  size_t max_response;         /* body bytes; default 64 MiB */
  size_t drain_max_bytes;      /* after the root ended; default 64 KiB */
  unsigned drain_timeout_ms;   /* default 1,000 */
} gql_gw_client_options;

/* The answer to a request: status 0 and the JSON document (its bytes
 * stay valid during the callback only), or a negative gql_err and a
 * message (static or valid during the callback). */
typedef void (*gql_gw_client_cb)(void *ud, int status, const char *why,
                                 const char *json, size_t len);

/* A client for subgraphs at `urls` (http://host[:port][/path]); returns
 * GQL_EINVAL with *bad set to the index of a URL it cannot use. */
int gql_gw_client_new(uv_loop_t *loop, const gql_str *urls, uint32_t nurls,
                      const gql_gw_client_options *options, gql_gw_client **out,
                      uint32_t *bad);
/* Sends `body` (copied) to subgraph `graph`, with `headers` (header lines
 * each ending in CRLF, checked by the caller; NULL: none) after the
 * client's own. 0, or GQL_ENOMEM / GQL_EINVAL (then no callback comes). */
int gql_gw_client_post(gql_gw_client *c, uint32_t graph, const char *headers,
                       const char *body, size_t len, gql_gw_client_cb cb,
                       void *ud);
/* Called from a callback with status 0: takes over the answer's bytes
 * (what the callback was given as `json`, `len` of them, trimmed to size
 * and maybe moved: read them at the pointer returned, no longer at
 * `json`), which the caller frees with free(). NULL when they cannot be
 * taken (then `json` stays valid during the callback only). Saves copying
 * a large answer. */
char *gql_gw_client_take_answer(gql_gw_client *c);
/* Called from a callback: the HTTP status of the subgraph's response (0:
 * none came, as when it could not connect or timed out). */
int gql_gw_client_answer_status(const gql_gw_client *c);
/* Stops pooling: idle connections close now, busy ones after their
 * response. Requests in flight still end with their callback. */
void gql_gw_client_close(gql_gw_client *c);
/* Closes it at once: every request in flight or waiting ends now with
 * GQL_EIO and `why` (a static string), every connection closes; a later
 * gql_gw_client_post is refused with GQL_EIO. */
void gql_gw_client_abort(gql_gw_client *c, const char *why);
/* True when a closed client has no connection and no request left (it
 * may be freed). */
bool gql_gw_client_closed(const gql_gw_client *c);
/* Frees a closed client whose loop has run until its handles closed. */
void gql_gw_client_free(gql_gw_client *c);

/* Connections opened so far (all subgraphs), for tests and stats. */
uint64_t gql_gw_client_connects(const gql_gw_client *c);

#endif
