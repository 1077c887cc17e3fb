/* An asynchronous Redis client on a libuv loop: hiredis and its libuv
 * adapter (Debian's libhiredis-dev), outside libgql.
 *
 * What a server needs from a shared store it must never wait on:
 *  - every command has a deadline (the client's default or its own): past
 *    it the caller is answered GQL_REDIS_TIMEOUT, whatever Redis does;
 *  - a command submitted while the connection is not ready, or beyond
 *    max_inflight, is refused at once (the submit call returns the status,
 *    no callback), so a lookup on a request path costs nothing while Redis
 *    is down;
 *  - the connection is (re)made in the background with exponential backoff
 *    and jitter; a connection whose oldest command has waited stall_ms
 *    (a stopped or wedged server) is dropped and made again;
 *  - gql_redis_close() answers what is in flight with GQL_REDIS_CLOSED and
 *    frees everything once libuv has closed the handles.
 *
 * One client belongs to one loop (one thread). A connection is a `conn`
 * inside the client: the command connection, and the subscriber connection
 * (pub/sub), made on the first gql_redis_subscribe, with the same state
 * machine and another reply handler (see redis.c).
 *
 * Pub/sub delivery is at most once: a message published while the
 * subscriber connection is down (Redis restarting, a network cut) is lost;
 * once it is back, the connection subscribes to its channels again and
 * messages published from then on arrive. A subscriber connection that
 * gets no answer to its heartbeat (a SUBSCRIBE of a private channel,
 * the one command hiredis 0.14 answers safely in subscribed mode) within
 * heartbeat_ms is dropped and made again. */
#ifndef GQL_PUBSUB_REDIS_H
#define GQL_PUBSUB_REDIS_H

#include "core/core.h"

#include <uv.h>

/* What a submitted command came to. */
#define GQL_REDIS_STATUSES(X)                                                  \
  X(OK, "a reply (possibly a Redis error reply)")                              \
  X(TIMEOUT, "no reply within the command's timeout")                          \
  X(DOWN, "not connected, or the connection dropped")                          \
  X(BUSY, "too many commands in flight")                                       \
  X(CLOSED, "the client is closing")                                           \
  X(NOMEM, "out of memory")                                                    \
  X(INVAL, "invalid command")

typedef enum gql_redis_status {
#define GQL_REDIS_STATUS_ENUM_(n, m) GQL_REDIS_##n,
  GQL_REDIS_STATUSES(GQL_REDIS_STATUS_ENUM_)
#undef GQL_REDIS_STATUS_ENUM_
} gql_redis_status;

/* "OK", "TIMEOUT", ... */
const char *gql_redis_status_name(gql_redis_status st);

/* ---- URLs */

/* redis://[[user]:password@]host[:port][/db] (host may be [v6]; port 6379,
 * db 0 by default), or unix:/path/to/redis.sock[?db=N] (also
 * redis+unix:// and unix:// + absolute path). Percent-escapes are decoded
 * in user and password. TLS (rediss://) is not supported. */
typedef struct gql_redis_url {
  char host[256]; /* empty for a unix socket */
  char path[108]; /* unix socket path */
  int port;
  int db;
  char user[128];
  char password[256];
  bool has_password;
} gql_redis_url;

/* 0, or GQL_EINVAL with a message in err (NUL-terminated). */
int gql_redis_url_parse(const char *url, gql_redis_url *out, char *err,
                        size_t err_len);

/* ---- the client */

typedef struct gql_redis gql_redis;

typedef enum gql_redis_state {
  GQL_REDIS_STATE_DOWN,       /* waiting to reconnect (backoff) */
  GQL_REDIS_STATE_CONNECTING, /* resolving, connecting, AUTH / SELECT */
  GQL_REDIS_STATE_READY,
  GQL_REDIS_STATE_CLOSING
} gql_redis_state;

typedef struct gql_redis_options {
  const char *url;             /* required, see gql_redis_url_parse */
  uint32_t connect_timeout_ms; /* connect + handshake (0: 1,000) */
  uint32_t command_timeout_ms; /* default per command (0: 100) */
  uint32_t backoff_min_ms;     /* first reconnect delay (0: 50) */
  uint32_t backoff_max_ms;     /* cap of the doubling delay (0: 5,000) */
  uint32_t max_inflight;       /* commands awaiting a reply (0: 1,024) */
  /* Drop the connection when its oldest command has waited this long
   * (0: 2,000): a server that accepts but never answers. */
  uint32_t stall_ms;
  uint64_t seed; /* jitter (0: from gql_hash_seed) */
  /* The subscriber connection's heartbeat period; an unanswered one drops
   * it (0: 5,000). */
  uint32_t heartbeat_ms;
  uint32_t max_channels; /* channels subscribed to (0: 4,096) */
  /* Told of every state change, with a detail ("connection refused",
   * "handshake timed out", ...). Optional; called on the loop. */
  void (*on_state)(void *ud, gql_redis_state state, const char *detail);
  void *ud;
  /* The command connection is made at gql_redis_start_commands, not by
   * gql_redis_new: a client that only subscribes (subscription events
   * without APQ) holds one connection, its subscriber. Until then a
   * command is refused DOWN. */
  bool lazy_commands;
} gql_redis_options;

typedef struct gql_redis_stats {
  uint64_t connects;      /* handshakes completed */
  uint64_t disconnects;   /* ready connections lost or dropped */
  uint64_t failures;      /* connection attempts that failed */
  uint64_t commands;      /* accepted */
  uint64_t replies;       /* answered with OK */
  uint64_t timeouts;      /* answered with TIMEOUT */
  uint64_t refused_down;  /* refused at submit: not ready */
  uint64_t refused_busy;  /* refused at submit: max_inflight */
  uint32_t inflight;      /* awaiting Redis (timed out ones included) */
  uint32_t attempt;       /* consecutive failed attempts */
  uint32_t next_delay_ms; /* the last backoff delay chosen */
  /* The subscriber connection. */
  uint64_t sub_connects;    /* handshakes completed (each resubscribes) */
  uint64_t sub_disconnects; /* lost, or dropped for a missed heartbeat */
  uint64_t messages;        /* published messages received */
  uint32_t channels;        /* subscribed to (wanted) */
  uint64_t unsubscribes;    /* gql_redis_unsubscribe calls taken */
  uint32_t sub_attempt;     /* its consecutive failed attempts */
} gql_redis_stats;

/* Creates the client and starts connecting. 0, GQL_EINVAL (bad URL or
 * options: `err` says why) or GQL_ENOMEM. */
int gql_redis_new(uv_loop_t *loop, const gql_redis_options *o, gql_redis **out,
                  char *err, size_t err_len);

/* A reply, read through the accessors below: valid during the callback. */
typedef struct gql_redis_reply gql_redis_reply;

typedef enum gql_redis_reply_kind {
  GQL_REDIS_REPLY_NIL,
  GQL_REDIS_REPLY_STRING, /* bulk string */
  GQL_REDIS_REPLY_STATUS, /* +OK */
  GQL_REDIS_REPLY_INTEGER,
  GQL_REDIS_REPLY_ARRAY,
  GQL_REDIS_REPLY_ERROR /* -ERR ... */
} gql_redis_reply_kind;

gql_redis_reply_kind gql_redis_reply_type(const gql_redis_reply *r);
/* STRING, STATUS, ERROR: the bytes (empty otherwise). */
gql_str gql_redis_reply_str(const gql_redis_reply *r);
long long gql_redis_reply_int(const gql_redis_reply *r);
size_t gql_redis_reply_count(const gql_redis_reply *r);
const gql_redis_reply *gql_redis_reply_item(const gql_redis_reply *r, size_t i);

/* Called exactly once for an accepted command: OK with the reply, or
 * TIMEOUT / DOWN / CLOSED with reply NULL. */
typedef void (*gql_redis_cb)(void *ud, gql_redis_status st,
                             const gql_redis_reply *reply);

/* Sends a command given as binary-safe arguments (argv[i] of lens[i]
 * bytes; nothing is formatted). timeout_ms 0 is the client's default.
 * Returns GQL_REDIS_OK when accepted (cb follows, never from inside this
 * call), else DOWN, BUSY, CLOSED, NOMEM or INVAL and cb is not called. */
gql_redis_status gql_redis_command(gql_redis *r, int argc, const char **argv,
                                   const size_t *lens, uint32_t timeout_ms,
                                   gql_redis_cb cb, void *ud);

/* ---- pub/sub */

/* A message published on a channel this client subscribed to; both are
 * valid during the call. */
typedef void (*gql_redis_message_cb)(void *ud, gql_str channel,
                                     gql_str message);

/* Sets the receiver of published messages (before subscribing). */
void gql_redis_on_message(gql_redis *r, gql_redis_message_cb cb, void *ud);
/* Adds `channel` to the subscriber connection's channels: subscribed now
 * when the connection is ready, on every (re)connect otherwise. The first
 * call makes the connection. 0, or GQL_EINVAL (empty, over 1 KiB, already
 * subscribed, closing), GQL_ELIMIT (max_channels, counting the channels
 * still being unsubscribed), GQL_ENOMEM. */
int gql_redis_subscribe(gql_redis *r, gql_str channel);
/* Takes `channel` back: UNSUBSCRIBEd now when the connection is ready,
 * not resubscribed on a reconnect. Subscribing it again while the
 * UNSUBSCRIBE is in flight sends the new SUBSCRIBE once Redis has
 * answered the UNSUBSCRIBE (hiredis 0.14 drops a channel's callback at
 * that answer: a SUBSCRIBE sent before it would be lost), so the channel
 * ends subscribed. 0, or GQL_EINVAL (not subscribed, closing). */
int gql_redis_unsubscribe(gql_redis *r, gql_str channel);
/* The subscriber connection's state (DOWN before the first subscribe). */
gql_redis_state gql_redis_subscriber_state(const gql_redis *r);

gql_redis_state gql_redis_get_state(const gql_redis *r);
void gql_redis_stats_get(const gql_redis *r, gql_redis_stats *out);

/* Starts the command connection of a lazy_commands client (nothing when
 * it is started or the client is closing). */
void gql_redis_start_commands(gql_redis *r);

/* Answers everything in flight with CLOSED, disconnects and frees the
 * client once its handles are closed; then on_closed (optional). */
void gql_redis_close(gql_redis *r, void (*on_closed)(void *ud), void *ud);

#endif
