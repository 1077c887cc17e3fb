/* WebSocket handshake and framing (see ws.h). wslay's frame layer reads
 * and writes single frames through callbacks; the callbacks here read from
 * the bytes being fed and append to the connection's output buffer, so no
 * socket is involved. */
#include "ws.h"

#include <assert.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/random.h>
#include <wslay/wslay.h>

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#define DEFAULT_MAX ((uint32_t)1 << 20)
/* Free frame contexts a pool keeps (4 KiB each); more are freed. */
#define POOL_KEEP 64
/* A joined message's buffer is freed after use past this size. */
#define MSG_KEEP 4096

/* ------------------------------------------------------------ handshake */

void gql_ws_accept_key(gql_str key, char out[29]) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned mdlen = 0;
  EVP_MD_CTX *c = EVP_MD_CTX_new();
  bool ok = c && EVP_DigestInit_ex(c, EVP_sha1(), NULL) &&
            EVP_DigestUpdate(c, key.ptr, key.len) &&
            EVP_DigestUpdate(c, WS_GUID, sizeof WS_GUID - 1) &&
            EVP_DigestFinal_ex(c, md, &mdlen) && mdlen == 20;
  EVP_MD_CTX_free(c);
  if (!ok) {
    out[0] = 0;
    return;
  }
  EVP_EncodeBlock((unsigned char *)out, md, 20); /* 28 + NUL */
}

void gql_ws_client_key(char out[25]) {
  unsigned char nonce[16];
  if (RAND_bytes(nonce, sizeof nonce) != 1 && /* never in practice */
      getrandom(nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
    memset(nonce, 0x5a, sizeof nonce);
  EVP_EncodeBlock((unsigned char *)out, nonce, sizeof nonce); /* 24 + NUL */
}

static bool is_b64(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '+' || c == '/';
}

/* A base64-encoded 16-byte nonce: 22 characters, the last carrying 2 bits
 * (A, Q, g or w), then "==". */
static bool key_valid(gql_str k) {
  if (k.len != 24 || k.ptr[22] != '=' || k.ptr[23] != '=')
    return false;
  for (size_t i = 0; i < 22; i++)
    if (!is_b64(k.ptr[i]))
      return false;
  return strchr("AQgw", k.ptr[21]) != NULL;
}

static bool is_space(char c) {
  return c == ' ' || c == '\t';
}

/* Calls fn for each comma-separated token of s, trimmed; stops when fn
 * returns true and returns true then. */
static bool each_token(gql_str s, bool (*fn)(gql_str tok, const void *arg),
                       const void *arg) {
  size_t i = 0;
  while (i <= s.len) {
    size_t j = i;
    while (j < s.len && s.ptr[j] != ',')
      j++;
    size_t a = i, b = j;
    while (a < b && is_space(s.ptr[a]))
      a++;
    while (b > a && is_space(s.ptr[b - 1]))
      b--;
    if (b > a && fn((gql_str){s.ptr + a, b - a}, arg))
      return true;
    i = j + 1;
  }
  return false;
}

static bool token_is(gql_str tok, const void *name) {
  size_t n = strlen(name);
  return tok.len == n && strncasecmp(tok.ptr, name, n) == 0;
}

static bool has_token(gql_str list, const char *name) {
  return each_token(list, token_is, name);
}

typedef struct pick {
  const char *const *supported;
  const char *chosen;
  size_t rank;
} pick;

/* Keeps the offered protocol the server prefers most (subprotocol names
 * compare exactly, RFC 6455 4.1). */
static bool pick_protocol(gql_str tok, const void *arg) {
  pick *p = (pick *)arg;
  for (size_t i = 0; p->supported[i] && i < p->rank; i++)
    if (http_str_is(tok, p->supported[i])) {
      p->chosen = p->supported[i];
      p->rank = i;
    }
  return false;
}

static bool refuse(gql_ws_handshake *h, int status, const char *message) {
  h->status = status;
  h->message = message;
  return false;
}

bool gql_ws_handshake_check(const gql_ws_upgrade *rq,
                            const char *const *supported, gql_ws_handshake *h) {
  memset(h, 0, sizeof *h);
  if (!http_str_is(rq->method, "GET"))
    return refuse(h, 405, "A WebSocket upgrade must be a GET request.");
  if (rq->http_major < 1 || (rq->http_major == 1 && rq->http_minor < 1))
    return refuse(h, 400, "A WebSocket upgrade needs HTTP/1.1.");
  if (!has_token(rq->upgrade, "websocket"))
    return refuse(h, 400, "Expected \"Upgrade: websocket\".");
  if (!has_token(rq->connection, "upgrade"))
    return refuse(h, 400, "Expected \"Connection: Upgrade\".");
  if (!http_str_is(rq->version, "13"))
    return refuse(h, 426, "Unsupported WebSocket version (13 is).");
  if (!key_valid(rq->key))
    return refuse(h, 400, "Invalid Sec-WebSocket-Key.");
  pick p = {.supported = supported, .rank = SIZE_MAX};
  if (supported)
    each_token(rq->protocols, pick_protocol, &p);
  h->protocol = p.chosen;
  gql_ws_accept_key(rq->key, h->accept);
  if (!h->accept[0])
    return refuse(h, 500, "Cannot compute the accept key.");
  h->status = 101;
  return true;
}

static const char *status_line(int status) {
  switch (status) {
  case 101:
    return "101 Switching Protocols";
  case 405:
    return "405 Method Not Allowed";
  case 426:
    return "426 Upgrade Required";
  case 500:
    return "500 Internal Server Error";
  default:
    return "400 Bad Request";
  }
}

void gql_ws_handshake_write(http_buf *out, const gql_ws_handshake *h) {
  http_buf_puts(out, "HTTP/1.1 ");
  http_buf_puts(out, status_line(h->status));
  if (h->status == 101) {
    http_buf_puts(out, "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Accept: ");
    http_buf_puts(out, h->accept);
    if (h->protocol) {
      http_buf_puts(out, "\r\nSec-WebSocket-Protocol: ");
      http_buf_puts(out, h->protocol);
    }
    http_buf_puts(out, "\r\n\r\n");
    return;
  }
  http_buf body = {0};
  http_buf_puts(&body, "{\"errors\":[{\"message\":");
  const char *m = h->message ? h->message : "Bad request.";
  http_buf_json_string(&body, http_str(m, strlen(m)));
  http_buf_puts(&body, "}]}");
  http_buf_printf(out,
                  "\r\nContent-Type: application/json; charset=utf-8\r\n"
                  "Content-Length: %zu\r\n%s%sConnection: close\r\n\r\n",
                  body.o.len,
                  h->status == 426 ? "Sec-WebSocket-Version: 13\r\n" : "",
                  h->status == 405 ? "Allow: GET\r\n" : "");
  http_buf_append(out, body.o.data, body.o.len);
  http_buf_free(&body);
}

void gql_ws_client_request(http_buf *out, const char *host, const char *path,
                           const char *key, const char *protocol) {
  http_buf_printf(out,
                  "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                  "Sec-WebSocket-Version: 13\r\n",
                  path, host, key);
  if (protocol)
    http_buf_printf(out, "Sec-WebSocket-Protocol: %s\r\n", protocol);
  http_buf_puts(out, "\r\n");
}

/* The value of header `name` in a response head, trimmed. */
static bool head_value(const char *head, size_t len, const char *name,
                       gql_str *v) {
  size_t nl = strlen(name);
  const char *p = memchr(head, '\n', len);
  const char *end = head + len;
  while (p && p + 1 < end) {
    const char *line = p + 1;
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    if (!eol)
      eol = end;
    if ((size_t)(eol - line) > nl && line[nl] == ':' &&
        strncasecmp(line, name, nl) == 0) {
      const char *a = line + nl + 1, *b = eol;
      while (a < b && is_space(*a))
        a++;
      while (b > a && (b[-1] == '\r' || is_space(b[-1])))
        b--;
      *v = (gql_str){a, (size_t)(b - a)};
      return true;
    }
    p = eol < end ? eol : NULL;
  }
  return false;
}

bool gql_ws_client_check(const char *head, size_t len, const char *key,
                         const char *protocol, const char **why) {
  gql_str v;
  char want[29];
  if (len < 13 || memcmp(head, "HTTP/1.1 101 ", 13) != 0) {
    *why = "the server did not switch protocols";
    return false;
  }
  gql_ws_accept_key(http_str(key, strlen(key)), want);
  if (!head_value(head, len, "Sec-WebSocket-Accept", &v) ||
      !http_str_is(v, want)) {
    *why = "wrong Sec-WebSocket-Accept";
    return false;
  }
  if (protocol && (!head_value(head, len, "Sec-WebSocket-Protocol", &v) ||
                   !http_str_is(v, protocol))) {
    *why = "the server did not choose the subprotocol";
    return false;
  }
  return true;
}

/* ------------------------------------------------------------ utilities */

bool gql_ws_close_code_valid(uint16_t code) {
  if (code >= 3000 && code <= 4999)
    return true;
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1011);
}

/* The length of the one UTF-8 sequence at s[0..n) that starts with a
 * byte >= 0x80, or 0 when it is invalid: strict, as RFC 6455 asks of text
 * (no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_one(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  unsigned char c = u[0];
  size_t len;
  uint32_t v, min;
  if ((c & 0xE0) == 0xC0)
    len = 2, v = c & 0x1F, min = 0x80;
  else if ((c & 0xF0) == 0xE0)
    len = 3, v = c & 0x0F, min = 0x800;
  else if ((c & 0xF8) == 0xF0)
    len = 4, v = c & 0x07, min = 0x10000;
  else
    return 0;
  if (n < len)
    return 0;
  for (size_t i = 1; i < len; i++) {
    if ((u[i] & 0xC0) != 0x80)
      return 0;
    v = (v << 6) | (u[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  return len;
}

bool gql_ws_utf8_valid(const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    /* Eight ASCII bytes at a time. */
    while (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ull)
        break;
      i += 8;
    }
    if (i >= n)
      break;
    if ((unsigned char)s[i] < 0x80) {
      i++;
      continue;
    }
    size_t k = utf8_one(s + i, n - i);
    if (!k)
      return false;
    i += k;
  }
  return true;
}

/* ------------------------------------------------------------ the pool */

struct gql_ws_pool {
  gql_ws_limits lim;
  struct wslay_frame_context *free[POOL_KEEP];
  unsigned nfree, created, lent;
  /* Write every connection's frames: one for unmasked (server) frames, one
   * for masked (client) ones, since a wslay context that masked once keeps
   * masking. */
  struct wslay_frame_context *sender[2];
  /* The input being fed, and to whom (feeds do not nest). */
  const char *in;
  size_t in_len;
  gql_ws *cur;
  http_buf *sink; /* where the sender appends */
};

static ssize_t recv_cb(uint8_t *buf, size_t len, int flags, void *ud) {
  (void)flags;
  gql_ws_pool *p = ud;
  size_t n = len < p->in_len ? len : p->in_len;
  if (!n)
    return 0; /* wslay: WANT_READ */
  memcpy(buf, p->in, n);
  p->in += n;
  p->in_len -= n;
  p->cur->given += n;
  return (ssize_t)n;
}

static ssize_t send_cb(const uint8_t *data, size_t len, int flags, void *ud) {
  (void)flags;
  gql_ws_pool *p = ud;
  http_buf_append(p->sink, data, len);
  return p->sink->failed ? -1 : (ssize_t)len;
}

/* Masking keys of a client's frames must not be predictable (RFC 6455
 * 10.3): OpenSSL's generator. */
static int genmask_cb(uint8_t *buf, size_t len, void *ud) {
  (void)ud;
  return RAND_bytes(buf, (int)len) == 1 ? 0 : -1;
}

static const struct wslay_frame_callbacks callbacks = {send_cb, recv_cb,
                                                       genmask_cb};

gql_ws_pool *gql_ws_pool_new(const gql_ws_limits *limits) {
  gql_ws_pool *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  if (limits)
    p->lim = *limits;
  if (!p->lim.max_message)
    p->lim.max_message = DEFAULT_MAX;
  if (!p->lim.max_queued)
    p->lim.max_queued = DEFAULT_MAX;
  if (wslay_frame_context_init(&p->sender[0], &callbacks, p) != 0 ||
      wslay_frame_context_init(&p->sender[1], &callbacks, p) != 0) {
    gql_ws_pool_free(p);
    return NULL;
  }
  return p;
}

void gql_ws_pool_free(gql_ws_pool *p) {
  if (!p)
    return;
  for (unsigned i = 0; i < p->nfree; i++)
    wslay_frame_context_free(p->free[i]);
  for (int i = 0; i < 2; i++)
    if (p->sender[i])
      wslay_frame_context_free(p->sender[i]);
  free(p);
}

void gql_ws_pool_counts(const gql_ws_pool *p, unsigned *created,
                        unsigned *lent) {
  *created = p->created;
  *lent = p->lent;
}

static struct wslay_frame_context *borrow(gql_ws_pool *p) {
  struct wslay_frame_context *f = NULL;
  if (p->nfree)
    f = p->free[--p->nfree];
  else if (wslay_frame_context_init(&f, &callbacks, p) == 0)
    p->created++;
  else
    return NULL;
  p->lent++;
  return f;
}

/* A context goes back to the pool only between frames with nothing
 * buffered: it then holds no state of its connection. */
static void give_back(gql_ws *ws) {
  gql_ws_pool *p = ws->pool;
  if (!ws->fr)
    return;
  bool clean = !ws->in_frame && ws->given == ws->used;
  if (clean && p->nfree < POOL_KEEP) {
    p->free[p->nfree++] = ws->fr;
  } else {
    wslay_frame_context_free(ws->fr);
    p->created--;
  }
  p->lent--;
  ws->fr = NULL;
  ws->given = ws->used = 0;
  ws->in_frame = 0;
}

/* ------------------------------------------------------------ output */

static size_t header_len(uint64_t n, bool masked) {
  return (n < 126 ? 2 : n < 65536 ? 4 : 10) + (masked ? 4 : 0);
}

static int write_frame(gql_ws *ws, uint8_t op, const char *data, size_t len) {
  gql_ws_pool *p = ws->pool;
  bool masked = ws->role == GQL_WS_CLIENT;
  size_t frame = header_len(len, masked) + len;
  if (gql_ws_queued(ws) + frame > p->lim.max_queued) {
    gql_ws_terminate(ws, "the peer does not read (output queue full)");
    return GQL_ELIMIT;
  }
  if (!http_buf_reserve(ws->out, frame))
    return GQL_ENOMEM;
  struct wslay_frame_iocb io = {.fin = 1,
                                .opcode = op,
                                .payload_length = len,
                                .mask = masked,
                                .data = (const uint8_t *)data,
                                .data_length = len};
  p->sink = ws->out;
  ssize_t r = wslay_frame_send(p->sender[masked], &io);
  p->sink = NULL;
  /* The sink takes every byte, so a frame goes out in one call. */
  if (r != (ssize_t)len) {
    gql_ws_terminate(ws, "cannot write a frame");
    return GQL_ENOMEM;
  }
  return 0;
}

int gql_ws_send(gql_ws *ws, bool binary, const char *data, size_t len) {
  if (ws->state != GQL_WS_OPEN)
    return GQL_EINVAL;
  return write_frame(ws, binary ? WSLAY_BINARY_FRAME : WSLAY_TEXT_FRAME, data,
                     len);
}

/* A server's text frame from pieces, written straight into `out`: the
 * fan-out's `next` (the subscriber's id prefix, then bytes shared by every
 * subscriber) with no copy into a message first. Server frames are not
 * masked, so the header is two, four or ten bytes. */
int gql_ws_send_text_parts(gql_ws *ws, const gql_str *parts, unsigned n) {
  if (ws->state != GQL_WS_OPEN)
    return GQL_EINVAL;
  if (ws->role != GQL_WS_SERVER) { /* masked: through wslay */
    http_buf tmp = {0};
    for (unsigned i = 0; i < n; i++)
      http_buf_append(&tmp, parts[i].ptr, parts[i].len);
    int rc =
        tmp.failed ? GQL_ENOMEM : gql_ws_send(ws, false, tmp.o.data, tmp.o.len);
    http_buf_free(&tmp);
    return rc;
  }
  size_t len = 0;
  for (unsigned i = 0; i < n; i++)
    len += parts[i].len;
  size_t head = header_len(len, false);
  if (gql_ws_queued(ws) + head + len > ws->pool->lim.max_queued) {
    gql_ws_terminate(ws, "the peer does not read (output queue full)");
    return GQL_ELIMIT;
  }
  if (!http_buf_reserve(ws->out, head + len))
    return GQL_ENOMEM;
  uint8_t *o = (uint8_t *)ws->out->o.data + ws->out->o.len;
  o[0] = 0x80 | WSLAY_TEXT_FRAME; /* FIN, text */
  if (len < 126) {
    o[1] = (uint8_t)len;
  } else if (len < 65536) {
    o[1] = 126;
    o[2] = (uint8_t)(len >> 8);
    o[3] = (uint8_t)len;
  } else {
    o[1] = 127;
    for (int i = 0; i < 8; i++)
      o[2 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
  }
  o += head;
  for (unsigned i = 0; i < n; i++) {
    memcpy(o, parts[i].ptr, parts[i].len);
    o += parts[i].len;
  }
  ws->out->o.len += head + len;
  return 0;
}

int gql_ws_ping(gql_ws *ws, const char *data, size_t len) {
  if (ws->state != GQL_WS_OPEN || len > 125)
    return GQL_EINVAL;
  return write_frame(ws, WSLAY_PING, data, len);
}

/* A reason cut to `max` bytes without splitting a character. */
static size_t cut_utf8(const char *s, size_t n, size_t max) {
  if (n <= max)
    return n;
  size_t k = max;
  while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
    k--;
  return k;
}

static int send_close(gql_ws *ws, uint16_t code, const char *reason,
                      size_t rlen) {
  char payload[125];
  size_t n = 0;
  if (code) {
    payload[0] = (char)(code >> 8);
    payload[1] = (char)(code & 0xFF);
    rlen = cut_utf8(reason, rlen, 123);
    memcpy(payload + 2, reason, rlen);
    n = 2 + rlen;
  }
  ws->close_sent = code ? code : GQL_WS_CLOSE_NO_STATUS;
  return write_frame(ws, WSLAY_CONNECTION_CLOSE, payload, n);
}

int gql_ws_close(gql_ws *ws, uint16_t code, const char *reason) {
  if (ws->close_sent || ws->state >= GQL_WS_CLOSED)
    return 0;
  if (!gql_ws_close_code_valid(code))
    return GQL_EINVAL;
  int rc =
      send_close(ws, code, reason ? reason : "", reason ? strlen(reason) : 0);
  if (ws->state == GQL_WS_TERMINATED)
    return rc;
  ws->state = ws->close_received ? GQL_WS_CLOSED : GQL_WS_CLOSING;
  return rc;
}

void gql_ws_terminate(gql_ws *ws, const char *why) {
  if (ws->state == GQL_WS_TERMINATED)
    return;
  ws->state = GQL_WS_TERMINATED;
  if (!ws->error)
    ws->error = why;
}

bool gql_ws_keepalive(gql_ws *ws) {
  if (ws->state != GQL_WS_OPEN)
    return ws->state < GQL_WS_CLOSED;
  if (ws->quiet) {
    gql_ws_terminate(ws, "no answer to a keep-alive ping");
    return false;
  }
  ws->quiet = 1;
  return gql_ws_ping(ws, NULL, 0) == 0;
}

/* "Fail the WebSocket connection" (RFC 6455 7.1.7): a close frame with the
 * code when none was sent yet, then done without waiting for the peer. */
static void fail(gql_ws *ws, uint16_t code, const char *why) {
  if (ws->state >= GQL_WS_CLOSED)
    return;
  ws->error = why;
  if (!ws->close_sent)
    send_close(ws, code, why, strlen(why));
  if (ws->state != GQL_WS_TERMINATED)
    ws->state = GQL_WS_CLOSED;
}

/* ------------------------------------------------------------ input */

void gql_ws_init(gql_ws *ws, gql_ws_pool *pool, gql_ws_role role,
                 const gql_ws_handler *h, void *ud, http_buf *out) {
  memset(ws, 0, sizeof *ws);
  ws->pool = pool;
  ws->role = (uint8_t)role;
  ws->h = h;
  ws->ud = ud;
  ws->out = out;
  ws->state = GQL_WS_OPEN;
  ws->msg = (http_buf){0};
}

void gql_ws_free(gql_ws *ws) {
  if (ws->fr) {
    ws->in_frame = 1; /* whatever it holds, it is not reused */
    give_back(ws);
  }
  http_buf_free(&ws->msg);
}

static bool is_data(uint8_t op) {
  return op <= WSLAY_BINARY_FRAME;
}

/* The header of a frame, known at its first payload chunk. */
static bool frame_start(gql_ws *ws, const struct wslay_frame_iocb *io) {
  if (io->rsv)
    return fail(ws, GQL_WS_CLOSE_PROTOCOL, "Reserved bits set."), false;
  if (io->mask != (ws->role == GQL_WS_SERVER))
    return fail(ws, GQL_WS_CLOSE_PROTOCOL,
                ws->role == GQL_WS_SERVER ? "Unmasked client frame."
                                          : "Masked server frame."),
           false;
  uint8_t op = io->opcode;
  if (op == WSLAY_CONTINUATION_FRAME && !ws->msg_op)
    return fail(ws, GQL_WS_CLOSE_PROTOCOL, "Continuation of no message."),
           false;
  if ((op == WSLAY_TEXT_FRAME || op == WSLAY_BINARY_FRAME) && ws->msg_op)
    return fail(ws, GQL_WS_CLOSE_PROTOCOL,
                "New message inside a fragmented one."),
           false;
  if (op > WSLAY_BINARY_FRAME && op != WSLAY_CONNECTION_CLOSE &&
      op != WSLAY_PING && op != WSLAY_PONG)
    return fail(ws, GQL_WS_CLOSE_PROTOCOL, "Unknown opcode."), false;
  if (is_data(op) &&
      ws->msg.o.len + io->payload_length > ws->pool->lim.max_message)
    return fail(ws, GQL_WS_CLOSE_TOO_BIG, "Message too big."), false;
  ws->in_frame = 1;
  ws->frame_op = op;
  ws->frame_fin = io->fin;
  ws->frame_mask = io->mask;
  ws->frame_len = io->payload_length;
  ws->frame_left = io->payload_length;
  if (op == WSLAY_TEXT_FRAME || op == WSLAY_BINARY_FRAME)
    ws->msg_op = op;
  ws->ctrl_len = 0;
  return true;
}

static void deliver(gql_ws *ws, const char *data, size_t len) {
  bool binary = ws->msg_op == WSLAY_BINARY_FRAME;
  ws->msg_op = 0;
  if (ws->state != GQL_WS_OPEN) /* closing: data is dropped */
    return;
  if (!binary && !gql_ws_utf8_valid(data, len)) {
    fail(ws, GQL_WS_CLOSE_BAD_DATA, "Text message is not UTF-8.");
    return;
  }
  if (ws->h && ws->h->message)
    ws->h->message(ws->ud, binary, data, len);
}

/* A control frame's payload: the last ctrl_len bytes of msg (after the
 * part of a fragmented message joined so far). */
static const char *ctrl_bytes(const gql_ws *ws) {
  return ws->ctrl_len ? ws->msg.o.data + ws->msg.o.len - ws->ctrl_len : "";
}

static void on_close_frame(gql_ws *ws) {
  const char *ctrl = ctrl_bytes(ws);
  uint16_t code = GQL_WS_CLOSE_NO_STATUS;
  gql_str reason = {"", 0};
  if (ws->ctrl_len == 1)
    return fail(ws, GQL_WS_CLOSE_PROTOCOL, "Close frame of one byte.");
  if (ws->ctrl_len >= 2) {
    code = (uint16_t)(((unsigned char)ctrl[0] << 8) | (unsigned char)ctrl[1]);
    reason = (gql_str){ctrl + 2, (size_t)ws->ctrl_len - 2};
    if (!gql_ws_close_code_valid(code))
      return fail(ws, GQL_WS_CLOSE_PROTOCOL, "Invalid close code.");
    if (!gql_ws_utf8_valid(reason.ptr, reason.len))
      return fail(ws, GQL_WS_CLOSE_BAD_DATA, "Close reason is not UTF-8.");
  }
  ws->close_received = code;
  if (!ws->close_sent && ws->state == GQL_WS_OPEN) {
    /* Echo the code (RFC 6455 5.5.1); none when none came. */
    send_close(ws, code == GQL_WS_CLOSE_NO_STATUS ? 0 : code, "", 0);
  }
  if (ws->state != GQL_WS_TERMINATED)
    ws->state = GQL_WS_CLOSED;
  if (ws->h && ws->h->close)
    ws->h->close(ws->ud, code, reason);
}

/* The control frame's payload leaves msg; an empty msg keeps no memory
 * (an idle connection holds no buffer). */
static void ctrl_done(gql_ws *ws) {
  ws->msg.o.len -= ws->ctrl_len;
  ws->ctrl_len = 0;
  if (!ws->msg.o.len)
    http_buf_free(&ws->msg);
}

static void frame_end(gql_ws *ws) {
  ws->in_frame = 0;
  ws->used += header_len(ws->frame_len, ws->frame_mask) + ws->frame_len;
  switch (ws->frame_op) {
  case WSLAY_PING:
    if (ws->state == GQL_WS_OPEN)
      write_frame(ws, WSLAY_PONG, ctrl_bytes(ws), ws->ctrl_len);
    ctrl_done(ws);
    return;
  case WSLAY_PONG:
    ctrl_done(ws);
    if (ws->h && ws->h->pong && ws->state == GQL_WS_OPEN)
      ws->h->pong(ws->ud);
    return;
  case WSLAY_CONNECTION_CLOSE:
    on_close_frame(ws);
    ctrl_done(ws);
    return;
  default:
    if (!ws->frame_fin)
      return;
    /* A fragmented message was joined in msg. */
    deliver(ws, ws->msg.o.data, ws->msg.o.len);
    ws->msg.o.len = 0;
    if (ws->msg.o.cap > MSG_KEEP)
      http_buf_free(&ws->msg);
  }
}

static void frame_chunk(gql_ws *ws, const struct wslay_frame_iocb *io) {
  const char *d = (const char *)io->data;
  size_t n = io->data_length;
  ws->frame_left -= n;
  if (!is_data(ws->frame_op)) {
    /* wslay: control <= 125 bytes, kept after msg's (see ctrl_bytes) */
    http_buf_append(&ws->msg, d, n);
    if (ws->msg.failed)
      return gql_ws_terminate(ws, "out of memory");
    ws->ctrl_len = (uint8_t)(ws->ctrl_len + n);
  } else if (ws->frame_fin && !ws->msg.o.len && ws->frame_left == 0 &&
             n == ws->frame_len) {
    /* A whole message in one frame and one chunk (the common case):
     * handed over from wslay's buffer, no copy. */
    ws->in_frame = 0;
    ws->used += header_len(ws->frame_len, ws->frame_mask) + ws->frame_len;
    deliver(ws, d, n);
    return;
  } else if (ws->state == GQL_WS_OPEN) {
    http_buf_append(&ws->msg, d, n);
    if (ws->msg.failed)
      return gql_ws_terminate(ws, "out of memory");
  }
  if (ws->frame_left == 0)
    frame_end(ws);
}

gql_ws_state gql_ws_feed(gql_ws *ws, const char *data, size_t len) {
  gql_ws_pool *p = ws->pool;
  if (ws->state >= GQL_WS_CLOSED || !len)
    return (gql_ws_state)ws->state;
  ws->quiet = 0;
  if (!ws->fr && !(ws->fr = borrow(p))) {
    gql_ws_terminate(ws, "out of memory");
    return GQL_WS_TERMINATED;
  }
  assert(!p->cur); /* feeds do not nest */
  p->in = data;
  p->in_len = len;
  p->cur = ws;
  while (ws->state < GQL_WS_CLOSED) {
    struct wslay_frame_iocb io;
    ssize_t r = wslay_frame_recv(ws->fr, &io);
    if (r == WSLAY_ERR_WANT_READ)
      break;
    if (r < 0) {
      fail(ws, GQL_WS_CLOSE_PROTOCOL, "Malformed frame.");
      break;
    }
    if (!ws->in_frame && !frame_start(ws, &io))
      break;
    frame_chunk(ws, &io);
  }
  p->in = NULL;
  p->in_len = 0;
  p->cur = NULL;
  if (ws->state >= GQL_WS_CLOSED || (!ws->in_frame && ws->given == ws->used))
    give_back(ws);
  return (gql_ws_state)ws->state;
}
