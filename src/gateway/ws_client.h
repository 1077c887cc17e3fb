/*
 * The gateway's graphql-transport-ws client to a subgraph, as pure logic:
 * bytes from the subgraph in (the upgrade's answer, then WebSocket frames),
 * bytes to write out (the upgrade request, frames), and what happened
 * through a handler. No sockets: subscribe.c drives it on libuv, the fuzz
 * target from a buffer.
 *
 * One operation per connection (id "1"): upgrade (subprotocol
 * graphql-transport-ws), connection_init, wait for connection_ack,
 * subscribe with the subgraph request's body as payload; then each `next`
 * is an event, `error` or `complete` ends it, `ping` is answered with
 * `pong`. Anything else from the subgraph (a message that is not JSON, an
 * unknown type, another id, a `next` before the ack, a frame error, a close
 * frame) ends it with a reason, and the connection is closed.
 */
#ifndef GQL_GATEWAY_WS_CLIENT_H
#define GQL_GATEWAY_WS_CLIENT_H

#include "core/core.h"
#include "http/ws.h"

typedef struct gql_gw_wsc_handler {
  /* An event: the `next` message's payload (a JSON object, valid during
   * the call). */
  void (*event)(void *ud, const char *json, size_t len);
  /* The end, once: `why` NULL when the subgraph completed the
   * subscription; else why it ended (valid during the call), and `errors`
   * the `error` message's payload (a JSON array of GraphQL errors) when the
   * subgraph sent one (else NULL). */
  void (*end)(void *ud, const char *why, const char *errors, size_t len);
} gql_gw_wsc_handler;

typedef enum gql_gw_wsc_state {
  GQL_GW_WSC_UPGRADING, /* the upgrade request sent, its answer awaited */
  GQL_GW_WSC_INIT,      /* connection_init sent, the ack awaited */
  GQL_GW_WSC_RUNNING,   /* subscribed */
  GQL_GW_WSC_ENDED      /* end was called (or the owner completed) */
} gql_gw_wsc_state;

#define GQL_GW_WSC_HEAD_MAX 8192 /* bytes of the upgrade's answer head */

typedef struct gql_gw_wsc {
  const gql_gw_wsc_handler *h;
  void *ud;
  gql_ws ws;        /* client role: frames masked */
  http_buf out;     /* bytes to write (the owner takes them) */
  gql_arena *arena; /* one message's parse, reset per message */
  char *payload;    /* the subscribe message's payload (the request body) */
  size_t payload_len;
  char key[25];
  char head[GQL_GW_WSC_HEAD_MAX];
  size_t head_len;
  uint8_t state;
  char why[160]; /* the reason given to end */
} gql_gw_wsc;

/* Starts a client for ws://host/path (host with its port, as the Host
 * header): the upgrade request goes to c->out, with `headers` (header
 * lines each ending in CRLF, checked by the caller; NULL: none) after the
 * client's own. `payload` (the subgraph request's JSON body: query,
 * variables) is copied. 0 or GQL_ENOMEM. */
int gql_gw_wsc_init(gql_gw_wsc *c, gql_ws_pool *pool,
                    const gql_gw_wsc_handler *h, void *ud, const char *host,
                    const char *path, const char *headers, const char *payload,
                    size_t len);
void gql_gw_wsc_free(gql_gw_wsc *c);

/* Bytes from the subgraph. Returns the state (ENDED: close the socket once
 * c->out is written). */
gql_gw_wsc_state gql_gw_wsc_feed(gql_gw_wsc *c, const char *data, size_t len);
/* The owner stops the subscription (the client went): `complete` and a
 * close frame go out, and end is not called. */
void gql_gw_wsc_complete(gql_gw_wsc *c);
/* The owner gives up (connection lost, timeout): end(why) unless ended. */
void gql_gw_wsc_fail(gql_gw_wsc *c, const char *why);
/* Keep-alive, every interval: false when the subgraph sent nothing since
 * the previous call (then it has failed: end was called). */
bool gql_gw_wsc_keepalive(gql_gw_wsc *c);

#endif
