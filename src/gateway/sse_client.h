/*
 * The gateway's graphql-sse client to a subgraph (distinct connections
 * mode), as pure logic: bytes from the subgraph in (the HTTP response,
 * parsed by llhttp, chunked or not), bytes to write out (the request), and
 * what happened through a handler. No sockets: subscribe.c drives it on
 * libuv beside the graphql-ws client, the fuzz target from a buffer.
 *
 * The request is a POST of the subgraph request's JSON body with
 * `Accept: text/event-stream`; the answer must be 200 with a
 * text/event-stream body, whose `event: next` events carry one result each
 * (`data:` a JSON object; several data lines are joined with "\n") and
 * whose `event: complete` ends the subscription, as does the end of the
 * response's body (its last chunk). Comments (keep-alives) and `id:` /
 * `retry:` fields are ignored. Anything else ends it with a reason: another
 * status (with the first GraphQL error's message of a JSON answer), another
 * content type, an unknown event, a `next` whose data is not a JSON object,
 * an event or line over the size limit, an HTTP error, the connection
 * closing before the body's end.
 */
#ifndef GQL_GATEWAY_SSE_CLIENT_H
#define GQL_GATEWAY_SSE_CLIENT_H

#include "core/core.h"
#include "http/http_buf.h"

#include <llhttp.h>

typedef struct gql_gw_ssec_handler {
  /* An event: the `next` event's data (a JSON object, valid during the
   * call). */
  void (*event)(void *ud, const char *json, size_t len);
  /* The end, once: `why` NULL when the subgraph completed the
   * subscription; else why it ended (valid during the call). `errors` is
   * always NULL (the graphql-ws client's handler shape). */
  void (*end)(void *ud, const char *why, const char *errors, size_t len);
} gql_gw_ssec_handler;

typedef enum gql_gw_ssec_state {
  GQL_GW_SSEC_REQUESTING, /* the request sent, the response's head awaited */
  GQL_GW_SSEC_RUNNING,    /* 200 text/event-stream: events */
  GQL_GW_SSEC_ENDED       /* end was called (or the owner completed) */
} gql_gw_ssec_state;

#define GQL_GW_SSEC_MAX_EVENT_DEFAULT ((size_t)1 << 20)
#define GQL_GW_SSEC_ERROR_BODY_MAX 4096 /* kept of a refusal's body */

typedef struct gql_gw_ssec {
  const gql_gw_ssec_handler *h;
  void *ud;
  http_buf out; /* bytes to write (the owner takes them) */
  llhttp_t parser;
  llhttp_settings_t settings;
  size_t max_event; /* bytes of one event's data, and of one line */
  gql_buf line;     /* the line being read (without its end) */
  gql_buf data;     /* the event's data lines, joined */
  gql_buf refusal;  /* the body of a response that is not the stream */
  gql_arena *arena; /* one event's JSON check, reset per event */
  int status;
  uint8_t state;
  uint8_t event;     /* the event field's value so far (an ev_kind) */
  bool has_data;     /* a data field came in this event */
  bool cr;           /* the last byte was a CR (a CRLF's LF is skipped) */
  bool refused;      /* the answer is not the stream: its body is kept */
  bool header_is_ct; /* the header being read is Content-Type */
  char hname[16];    /* the header name being read (a prefix) */
  size_t hname_len;
  char ctype[64]; /* the Content-Type's value (a prefix) */
  size_t ctype_len;
  char why[200]; /* the reason given to end */
} gql_gw_ssec;

/* Starts a client for http://host/path (host with its port, as the Host
 * header): the request goes to c->out, with `headers` (header lines each
 * ending in CRLF, checked by the caller; NULL: none) after the client's
 * own, then the body `payload` (the subgraph request's JSON: query,
 * variables). `max_event` bounds one event (0: 1 MiB). 0 or GQL_ENOMEM. */
int gql_gw_ssec_init(gql_gw_ssec *c, const gql_gw_ssec_handler *h, void *ud,
                     const char *host, const char *path, const char *headers,
                     const char *payload, size_t len, size_t max_event);
void gql_gw_ssec_free(gql_gw_ssec *c);

/* Bytes from the subgraph. Returns the state (ENDED: close the socket). */
gql_gw_ssec_state gql_gw_ssec_feed(gql_gw_ssec *c, const char *data,
                                   size_t len);
/* The subgraph closed the connection (EOF): a body without framing ends
 * here, which completes it only after a `complete` event (else end(why)). */
void gql_gw_ssec_eof(gql_gw_ssec *c);
/* The owner stops the subscription (the client went): it closes the
 * connection, which aborts the request; end is not called. */
void gql_gw_ssec_complete(gql_gw_ssec *c);
/* The owner gives up (connection lost, timeout): end(why) unless ended. */
void gql_gw_ssec_fail(gql_gw_ssec *c, const char *why);

#endif
