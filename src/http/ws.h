/* WebSocket (RFC 6455): the opening handshake and the framing, driven from
 * bytes with no I/O of its own, so that the same code sits on the server's
 * libuv connections, on the benchmark's load client and on a fuzz target.
 *
 * Frames are read and written by wslay's frame layer (Debian's libwslay);
 * what RFC 6455 asks above single frames is here: masking rules, message
 * reassembly with a size limit, control frames between fragments, the
 * closing handshake and its codes, UTF-8 of text messages, and an output
 * queue with a bound (a peer that stops reading is dropped, never
 * buffered for).
 *
 * Memory: a wslay frame context holds a 4 KiB input buffer. A connection
 * borrows one from its pool only while a frame of its input is partly
 * read and gives it back between frames, so an idle connection holds
 * none (10,000 idle subscribers would otherwise pin 40 MB). */
#ifndef GQL_HTTP_WS_H
#define GQL_HTTP_WS_H

#include "http_buf.h"

/* ------------------------------------------------------------ handshake */

/* The subprotocol of GraphQL over WebSocket (graphql-ws). */
#define GQL_WS_PROTOCOL_GRAPHQL "graphql-transport-ws"

/* What an upgrade request said (header values as received; repeated
 * headers joined with ", "). */
typedef struct gql_ws_upgrade {
  gql_str method; /* "GET" */
  int http_major, http_minor;
  gql_str upgrade;    /* Upgrade */
  gql_str connection; /* Connection */
  gql_str key;        /* Sec-WebSocket-Key */
  gql_str version;    /* Sec-WebSocket-Version */
  gql_str protocols;  /* Sec-WebSocket-Protocol (may be empty) */
} gql_ws_upgrade;

typedef struct gql_ws_handshake {
  /* 101 when accepted; else the HTTP status of the refusal: 405 (not
   * GET), 400 (not HTTP/1.1, no upgrade, bad key), 426 (a version other
   * than 13: answer with "Sec-WebSocket-Version: 13"). */
  int status;
  const char *message; /* why it was refused */
  char accept[29];     /* Sec-WebSocket-Accept (when 101) */
  /* The subprotocol chosen from the client's list, one of `supported`,
   * or NULL when the client offered none of them: the connection is then
   * accepted without one, and graphql-ws closes it with 4406. */
  const char *protocol;
} gql_ws_handshake;

/* Decides an upgrade request. `supported` is a NULL-terminated list of the
 * subprotocols the server speaks, in its order of preference. Returns true
 * when h->status is 101. */
bool gql_ws_handshake_check(const gql_ws_upgrade *rq,
                            const char *const *supported, gql_ws_handshake *h);
/* The 101 response head (or the refusal, with a JSON error body). */
void gql_ws_handshake_write(http_buf *out, const gql_ws_handshake *h);

/* base64(SHA-1(key + the RFC's GUID)): 28 characters and a NUL. */
void gql_ws_accept_key(gql_str key, char out[29]);
/* A fresh Sec-WebSocket-Key for a client: base64 of 16 random bytes. */
void gql_ws_client_key(char out[25]);
/* A client's upgrade request head for ws://host/path. */
void gql_ws_client_request(http_buf *out, const char *host, const char *path,
                           const char *key, const char *protocol);
/* Checks a server's answer to that request: `head` holds its bytes up to
 * and including the blank line. True when it is 101 with the accept key of
 * `key` and, when `protocol` is not NULL, that subprotocol; else false
 * with *why set. */
bool gql_ws_client_check(const char *head, size_t len, const char *key,
                         const char *protocol, const char **why);

/* ------------------------------------------------------------ frames */

/* Close codes of RFC 6455 that gql sends. */
#define GQL_WS_CLOSE_NORMAL 1000
#define GQL_WS_CLOSE_GOING_AWAY 1001
#define GQL_WS_CLOSE_PROTOCOL 1002
#define GQL_WS_CLOSE_NO_STATUS 1005 /* received without a code */
#define GQL_WS_CLOSE_ABNORMAL 1006  /* never sent: the TCP connection ended */
#define GQL_WS_CLOSE_BAD_DATA 1007  /* text that is not UTF-8 */
#define GQL_WS_CLOSE_POLICY 1008
#define GQL_WS_CLOSE_TOO_BIG 1009
#define GQL_WS_CLOSE_INTERNAL 1011

typedef enum gql_ws_role { GQL_WS_SERVER, GQL_WS_CLIENT } gql_ws_role;

typedef enum gql_ws_state {
  GQL_WS_OPEN,
  /* We sent a close frame and wait for the peer's (input other than
   * control frames is dropped). */
  GQL_WS_CLOSING,
  /* Done: the transport closes the TCP connection once the output is
   * written (a server closes first, as RFC 6455 asks). */
  GQL_WS_CLOSED,
  /* The peer stopped reading (the output bound was reached) or the
   * output failed: close the TCP connection now, write nothing more. */
  GQL_WS_TERMINATED
} gql_ws_state;

/* Shared by the connections of one thread: the frame contexts they
 * borrow, the limits, the scratch for masking. Not thread-safe. */
typedef struct gql_ws_pool gql_ws_pool;

typedef struct gql_ws_limits {
  /* A message's bytes, its fragments joined (0: 1 MiB). Past it the
   * connection is closed with 1009. */
  uint32_t max_message;
  /* Output bytes not yet written by the transport (0: 1 MiB). Past it
   * the connection is terminated. */
  uint32_t max_queued;
} gql_ws_limits;

gql_ws_pool *gql_ws_pool_new(const gql_ws_limits *limits);
void gql_ws_pool_free(gql_ws_pool *pool);
/* Frame contexts created and currently lent out (for tests). */
void gql_ws_pool_counts(const gql_ws_pool *pool, unsigned *created,
                        unsigned *lent);

/* What a connection reports to its owner, called from gql_ws_feed. The
 * owner may send and close from these, not free the connection. */
typedef struct gql_ws_handler {
  /* A whole text (UTF-8 checked) or binary message. */
  void (*message)(void *ud, bool binary, const char *data, size_t len);
  /* A pong frame (optional). */
  void (*pong)(void *ud);
  /* The peer's close frame: its code (1005 when it had none) and reason
   * (optional). A close frame has been queued in answer. */
  void (*close)(void *ud, uint16_t code, gql_str reason);
} gql_ws_handler;

typedef struct gql_ws {
  gql_ws_pool *pool;
  const gql_ws_handler *h;
  void *ud;
  http_buf *out; /* frames for the transport to write (the owner's) */
  /* Bytes the transport took from `out` and has not written yet; the
   * transport keeps it current. Counted against max_queued. */
  size_t inflight;
  struct wslay_frame_context *fr; /* borrowed while a frame is partly read */
  uint64_t given;                 /* bytes handed to fr since borrowed */
  uint64_t used;                  /* bytes of whole frames fr has read */
  uint64_t frame_left;            /* payload bytes of the current frame */
  uint64_t frame_len;
  uint8_t frame_op;   /* opcode of the current frame */
  uint8_t frame_mask; /* it was masked */
  uint8_t frame_fin;
  uint8_t in_frame; /* a frame's header was read, its payload not all */
  uint8_t msg_op;   /* opcode of the message being joined (0: none) */
  uint8_t ctrl_len;
  uint8_t role; /* gql_ws_role */
  uint8_t state;
  uint8_t quiet; /* a keep-alive ping went out and nothing came since */
  uint16_t close_sent, close_received; /* codes (0: none yet) */
  /* the message being joined, then a control frame's payload (its last
   * ctrl_len bytes) while one is read */
  http_buf msg;
  const char *error; /* why the connection failed */
} gql_ws;

/* `out` receives the frames to write. */
void gql_ws_init(gql_ws *ws, gql_ws_pool *pool, gql_ws_role role,
                 const gql_ws_handler *h, void *ud, http_buf *out);
/* Frees what the connection holds (its message buffer, a borrowed frame
 * context). */
void gql_ws_free(gql_ws *ws);

/* Parses received bytes; every complete message goes to h->message.
 * Returns the state: input after a close (or a failure) is ignored. */
gql_ws_state gql_ws_feed(gql_ws *ws, const char *data, size_t len);

/* Queues a message as one frame. 0; GQL_EINVAL when not open; GQL_ELIMIT
 * when the output bound was reached (the connection is then terminated);
 * GQL_ENOMEM. */
int gql_ws_send(gql_ws *ws, bool binary, const char *data, size_t len);
/* Queues a text message made of `n` pieces as one frame (the pieces are
 * copied once, into the output). Same results as gql_ws_send. */
int gql_ws_send_text_parts(gql_ws *ws, const gql_str *parts, unsigned n);
/* A ping with up to 125 bytes of payload. */
int gql_ws_ping(gql_ws *ws, const char *data, size_t len);
/* Starts the closing handshake with `code` and a reason (cut to 123
 * bytes at a character boundary). A second call does nothing. */
int gql_ws_close(gql_ws *ws, uint16_t code, const char *reason);
/* Gives up at once: no close frame (a peer that stopped reading). */
void gql_ws_terminate(gql_ws *ws, const char *why);
/* Keep-alive, called by the transport every interval: when nothing came
 * from the peer since the previous call's ping, terminates the connection
 * and returns false (a dead link or a frozen peer; graphql-ws's client
 * calls that 4499 Terminated); else sends a ping and returns true. */
bool gql_ws_keepalive(gql_ws *ws);

/* Bytes waiting for the transport (out->o.len + inflight). */
static inline size_t gql_ws_queued(const gql_ws *ws) {
  return ws->out->o.len + ws->inflight;
}

/* True when `code` may appear in a close frame (RFC 6455 7.4). */
bool gql_ws_close_code_valid(uint16_t code);
/* True when s is valid UTF-8 (strict: no overlongs, no surrogates). */
bool gql_ws_utf8_valid(const char *s, size_t n);

#endif
