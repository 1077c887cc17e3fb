/* The graphql-transport-ws protocol (GraphQL over WebSocket, as graphql-ws
 * 6 speaks it) as pure logic: text messages and clock ticks in, actions
 * out through a handler (send a message, close the socket, ask whether to
 * accept a connection, start or cancel an operation). No sockets, no
 * executor: the transport feeds it and the server executes.
 *
 * What graphql-ws's server does, and so gql:
 *  - a message that is not JSON, not an object, of an unknown type or
 *    malformed for its type: close 4400 "Invalid message received";
 *  - no connection_init within the init timeout: 4408 "Connection
 *    initialisation timeout"; a second one: 4429 "Too many initialisation
 *    requests"; a connection the server refuses: 4403 "Forbidden";
 *  - subscribe before connection_ack: 4401 "Unauthorized"; an id that an
 *    operation in progress already has: 4409 "Subscriber for ID already
 *    exists" (single results included, until their complete);
 *  - ping is answered with pong (its payload echoed); complete from the
 *    client stops the operation, and nothing more is sent for it.
 * Beyond the protocol, gql bounds the operations of one connection (an
 * error message for the extra one) and the length of ids (4400).
 *
 * 4499 ("Terminated") is not a code a server sends: graphql-ws's client
 * reports it when the socket was dropped without a close frame, which is
 * what gql does to a peer that stops reading or answering pings. */
#ifndef GQL_HTTP_GRAPHQL_WS_H
#define GQL_HTTP_GRAPHQL_WS_H

#include "http_buf.h"

#define GQL_GWS_BAD_REQUEST 4400
#define GQL_GWS_UNAUTHORIZED 4401
#define GQL_GWS_FORBIDDEN 4403
#define GQL_GWS_SUBPROTOCOL 4406
#define GQL_GWS_INIT_TIMEOUT 4408
#define GQL_GWS_SUBSCRIBER_EXISTS 4409
#define GQL_GWS_TOO_MANY_INITS 4429
#define GQL_GWS_TERMINATED 4499
#define GQL_GWS_INTERNAL 4500

typedef struct gql_gws_limits {
  uint32_t init_timeout_ms; /* connection_init wait (0: 3,000, as graphql-ws) */
  uint32_t max_operations;  /* in progress per connection (0: 100) */
  uint32_t max_id;          /* bytes of an operation id (0: 128) */
} gql_gws_limits;

/* Shared by the connections of one thread: the limits and the scratch
 * memory of message parsing and writing. Not thread-safe. */
typedef struct gql_gws_env gql_gws_env;

gql_gws_env *gql_gws_env_new(const gql_gws_limits *limits);
void gql_gws_env_free(gql_gws_env *env);

/* An operation in progress: made at subscribe, gone after its error or
 * complete, or once cancelled. `user` is the server's. */
typedef struct gql_gws_op {
  void *user;
  struct gql_gws *g;
  struct gql_gws_op *prev, *next;
  uint32_t id_len;
  uint32_t prefix_len; /* {"id":"ID","type":" */
  bool cancelling;     /* in the cancel callback: nothing more goes out */
  char bytes[];        /* the id, then the prefix */
} gql_gws_op;

static inline gql_str gql_gws_op_id(const gql_gws_op *op) {
  return (gql_str){op->bytes, op->id_len};
}

/* A subscribe message's payload, valid during the call. */
typedef struct gql_gws_request {
  gql_str query;
  gql_str operation_name; /* empty when absent or null */
  bool has_operation_name;
  const gql_value *variables;  /* an object or NULL */
  const gql_value *extensions; /* an object or NULL */
} gql_gws_request;

typedef enum gql_gws_verdict {
  GQL_GWS_ACCEPT, /* acknowledge now */
  GQL_GWS_REJECT, /* close with 4403 */
  GQL_GWS_LATER   /* the server calls gql_gws_accept or gql_gws_reject */
} gql_gws_verdict;

/* The actions. None of them may call back into this connection's machine
 * except where said (a transport whose send fails notes it and tears the
 * connection down after the call). */
typedef struct gql_gws_handler {
  /* One text message to send. */
  void (*send)(void *ud, const char *text, size_t len);
  /* Close the socket with a close frame. Every operation has been
   * cancelled before. */
  void (*close)(void *ud, uint16_t code, const char *reason);
  /* connection_init, with its payload (an object) or NULL. NULL handler:
   * accept. */
  gql_gws_verdict (*connect)(void *ud, const gql_value *payload);
  /* Start operation `op`. From here on (also during this call) the server
   * answers through gql_gws_next / _error / _complete; it may set
   * op->user. */
  void (*subscribe)(void *ud, gql_gws_op *op, const gql_gws_request *rq);
  /* Stop operation `op` (the client completed it, or the connection
   * ends): op is freed after this call, send nothing more for it. */
  void (*cancel)(void *ud, gql_gws_op *op);
} gql_gws_handler;

typedef struct gql_gws {
  gql_gws_env *env;
  const gql_gws_handler *h;
  void *ud;
  gql_gws_op *ops; /* in progress, most recent first */
  uint32_t nops;
  bool init_received, acknowledged, closed;
  uint64_t init_deadline; /* ms; 0 once init came */
  const char *why;        /* the detail behind the last close */
} gql_gws;

/* `now_ms` on the clock later ticks use. */
void gql_gws_init(gql_gws *g, gql_gws_env *env, const gql_gws_handler *h,
                  void *ud, uint64_t now_ms);
/* The socket is gone (or the server drops it): cancels every operation.
 * Then nothing more is sent. */
void gql_gws_free(gql_gws *g);

/* A message from the client (text, or binary taken as text). */
void gql_gws_on_message(gql_gws *g, const char *data, size_t len);
/* When the next tick is due (ms), 0 for none. */
uint64_t gql_gws_deadline(const gql_gws *g);
/* The clock moved: closes with 4408 past the init deadline. */
void gql_gws_tick(gql_gws *g, uint64_t now_ms);

/* Answers a connect that said LATER: acknowledge (with an optional JSON
 * object as the ack's payload) or close with 4403. */
void gql_gws_accept(gql_gws *g, const char *payload_json, size_t len);
void gql_gws_reject(gql_gws *g);

/* An operation's result, event or end. next takes an execution result
 * (a JSON object); error takes a JSON array of GraphQL errors and ends the
 * operation; complete ends it. 0, or GQL_EINVAL once the connection is
 * closed. `op` is freed by error and complete. */
int gql_gws_next(gql_gws_op *op, const char *json, size_t len);
int gql_gws_error(gql_gws_op *op, const char *json, size_t len);
int gql_gws_complete(gql_gws_op *op);

/* Closes the connection from the server's side (1001 on shutdown, 4500). */
void gql_gws_close(gql_gws *g, uint16_t code, const char *reason);

#endif
