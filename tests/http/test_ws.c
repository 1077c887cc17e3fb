/* WebSocket handshake and framing, driven from buffers. Frames sent to the
 * code under test are built here by hand (masking included) and frames it
 * writes are decoded here, so the test does not trust wslay's writer to
 * check wslay's reader. */
#include "http/ws.h"
#include "json/json.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------ handshake */

static gql_ws_upgrade upgrade_rq(const char *key, const char *protocols) {
  return (gql_ws_upgrade){.method = GQL_STR("GET"),
                          .http_major = 1,
                          .http_minor = 1,
                          .upgrade = GQL_STR("websocket"),
                          .connection = GQL_STR("keep-alive, Upgrade"),
                          .key = gql_cstr(key),
                          .version = GQL_STR("13"),
                          .protocols = gql_cstr(protocols)};
}

static const char *const graphql_only[] = {GQL_WS_PROTOCOL_GRAPHQL, NULL};

Test(ws_handshake, accept_key_is_the_rfc_example) {
  char acc[29];
  gql_ws_accept_key(GQL_STR("dGhlIHNhbXBsZSBub25jZQ=="), acc);
  cr_assert_str_eq(acc, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

Test(ws_handshake, negotiates_graphql_transport_ws) {
  gql_ws_upgrade rq = upgrade_rq("dGhlIHNhbXBsZSBub25jZQ==",
                                 "graphql-ws, graphql-transport-ws");
  gql_ws_handshake h;
  cr_assert(gql_ws_handshake_check(&rq, graphql_only, &h));
  cr_assert_eq(h.status, 101);
  cr_assert_str_eq(h.protocol, "graphql-transport-ws");
  http_buf out;
  out = (http_buf){0};
  gql_ws_handshake_write(&out, &h);
  const char *s = http_buf_cstr(&out);
  cr_assert(strstr(s, "HTTP/1.1 101 Switching Protocols\r\n") == s, "%s", s);
  cr_assert(strstr(s, "\r\nUpgrade: websocket\r\n"));
  cr_assert(strstr(s, "\r\nConnection: Upgrade\r\n"));
  cr_assert(strstr(s, "\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
                      "\r\n"));
  cr_assert(strstr(s, "\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n"));
  cr_assert(out.o.len >= 4 && memcmp(s + out.o.len - 4, "\r\n\r\n", 4) == 0);
  http_buf_free(&out);
}

Test(ws_handshake, the_server_preference_wins_and_names_compare_exactly) {
  static const char *const two[] = {"b", "a", NULL};
  gql_ws_upgrade rq = upgrade_rq("dGhlIHNhbXBsZSBub25jZQ==", "a,b");
  gql_ws_handshake h;
  cr_assert(gql_ws_handshake_check(&rq, two, &h));
  cr_assert_str_eq(h.protocol, "b");
  rq.protocols = GQL_STR("GraphQL-Transport-WS, x");
  cr_assert(gql_ws_handshake_check(&rq, graphql_only, &h));
  cr_assert_null(h.protocol, "subprotocol names are case-sensitive");
}

Test(ws_handshake, no_common_subprotocol_is_accepted_without_one) {
  gql_ws_upgrade rq = upgrade_rq("dGhlIHNhbXBsZSBub25jZQ==", "");
  gql_ws_handshake h;
  cr_assert(gql_ws_handshake_check(&rq, graphql_only, &h));
  cr_assert_null(h.protocol);
  http_buf out;
  out = (http_buf){0};
  gql_ws_handshake_write(&out, &h);
  cr_assert_null(strstr(http_buf_cstr(&out), "Sec-WebSocket-Protocol"));
  http_buf_free(&out);
}

Test(ws_handshake, refuses_bad_upgrades_with_the_right_status) {
  struct {
    const char *what;
    int status;
  } cases[] = {{"method", 405},     {"http10", 400},   {"upgrade", 400},
               {"connection", 400}, {"version", 426},  {"key-short", 400},
               {"key-pad", 400},    {"key-bits", 400}, {"key-chars", 400}};
  for (size_t i = 0; i < GQL_ARRAY_LEN(cases); i++) {
    gql_ws_upgrade rq = upgrade_rq("dGhlIHNhbXBsZSBub25jZQ==", "");
    const char *w = cases[i].what;
    if (!strcmp(w, "method"))
      rq.method = GQL_STR("POST");
    else if (!strcmp(w, "http10"))
      rq.http_minor = 0;
    else if (!strcmp(w, "upgrade"))
      rq.upgrade = GQL_STR("h2c");
    else if (!strcmp(w, "connection"))
      rq.connection = GQL_STR("keep-alive");
    else if (!strcmp(w, "version"))
      rq.version = GQL_STR("8");
    else if (!strcmp(w, "key-short"))
      rq.key = GQL_STR("dGhlIHNhbXBsZQ==");
    else if (!strcmp(w, "key-pad"))
      rq.key = GQL_STR("dGhlIHNhbXBsZSBub25jZQ=x");
    else if (!strcmp(w, "key-bits"))
      rq.key = GQL_STR("dGhlIHNhbXBsZSBub25jZR==");
    else
      rq.key = GQL_STR("dGhlIHNhbXBsZSBub25j*Q==");
    gql_ws_handshake h;
    cr_assert(!gql_ws_handshake_check(&rq, graphql_only, &h), "%s", w);
    cr_assert_eq(h.status, cases[i].status, "%s: %d", w, h.status);
    cr_assert(h.message && h.message[0]);
    http_buf out;
    out = (http_buf){0};
    gql_ws_handshake_write(&out, &h);
    const char *s = http_buf_cstr(&out);
    cr_assert(strstr(s, "\r\nConnection: close\r\n"), "%s", s);
    cr_assert(strstr(s, "{\"errors\":[{\"message\":"), "%s", s);
    if (cases[i].status == 426)
      cr_assert(strstr(s, "\r\nSec-WebSocket-Version: 13\r\n"));
    http_buf_free(&out);
  }
}

Test(ws_handshake, header_tokens_are_case_insensitive_lists) {
  gql_ws_upgrade rq = upgrade_rq("dGhlIHNhbXBsZSBub25jZQ==", NULL);
  rq.upgrade = GQL_STR("WebSocket");
  rq.connection = GQL_STR("Keep-Alive ,\tUPGRADE");
  gql_ws_handshake h;
  cr_assert(gql_ws_handshake_check(&rq, graphql_only, &h));
}

Test(ws_handshake, a_client_request_and_its_answer_check_out) {
  char key[25];
  gql_ws_client_key(key);
  cr_assert_eq(strlen(key), 24);
  http_buf req;
  req = (http_buf){0};
  gql_ws_client_request(&req, "127.0.0.1:4000", "/graphql", key,
                        GQL_WS_PROTOCOL_GRAPHQL);
  const char *s = http_buf_cstr(&req);
  cr_assert(strstr(s, "GET /graphql HTTP/1.1\r\n") == s);
  cr_assert(strstr(s, "\r\nSec-WebSocket-Version: 13\r\n"));
  gql_ws_upgrade rq = upgrade_rq(key, GQL_WS_PROTOCOL_GRAPHQL);
  gql_ws_handshake h;
  cr_assert(gql_ws_handshake_check(&rq, graphql_only, &h));
  http_buf resp;
  resp = (http_buf){0};
  gql_ws_handshake_write(&resp, &h);
  const char *why = NULL;
  cr_assert(gql_ws_client_check(resp.o.data, resp.o.len, key,
                                GQL_WS_PROTOCOL_GRAPHQL, &why),
            "%s", why);
  char other[25];
  gql_ws_client_key(other);
  cr_assert_str_neq(other, key, "keys are random");
  cr_assert(!gql_ws_client_check(resp.o.data, resp.o.len, other, NULL, &why));
  cr_assert(!gql_ws_client_check(resp.o.data, resp.o.len, key, "x", &why));
  cr_assert(!gql_ws_client_check("HTTP/1.1 400 Bad", 16, key, NULL, &why));
  http_buf_free(&req);
  http_buf_free(&resp);
}

/* ------------------------------------------------------------ frames */

/* Appends a frame as a client would send it (masked unless told not). */
static void frame(http_buf *b, bool fin, uint8_t op, const void *payload,
                  uint64_t len, bool mask) {
  unsigned char h[14];
  size_t n = 0;
  h[n++] = (unsigned char)((fin ? 0x80 : 0) | op);
  unsigned char m = mask ? 0x80 : 0;
  if (len < 126) {
    h[n++] = (unsigned char)(m | len);
  } else if (len < 65536) {
    h[n++] = m | 126;
    h[n++] = (unsigned char)(len >> 8);
    h[n++] = (unsigned char)len;
  } else {
    h[n++] = m | 127;
    for (int i = 7; i >= 0; i--)
      h[n++] = (unsigned char)(len >> (i * 8));
  }
  unsigned char key[4] = {0x37, 0xfa, 0x21, 0x3d};
  if (mask) {
    memcpy(h + n, key, 4);
    n += 4;
  }
  http_buf_append(b, h, n);
  const unsigned char *p = payload;
  for (uint64_t i = 0; i < len; i++) {
    unsigned char c = p[i];
    if (mask)
      c ^= key[i % 4];
    http_buf_putc(b, (char)c);
  }
}

typedef struct decoded {
  uint8_t op;
  bool fin, masked;
  char *payload;
  size_t len;
} decoded;

/* Decodes the frames in b (as a client reads them); returns the count. */
static size_t decode(const http_buf *b, decoded *out, size_t max) {
  size_t i = 0, k = 0;
  const unsigned char *d = (const unsigned char *)b->o.data;
  while (i < b->o.len && k < max) {
    cr_assert(b->o.len - i >= 2);
    decoded *f = &out[k++];
    f->fin = d[i] & 0x80;
    f->op = d[i] & 0x0f;
    cr_assert_eq(d[i] & 0x70, 0, "reserved bits");
    f->masked = d[i + 1] & 0x80;
    uint64_t len = d[i + 1] & 0x7f;
    i += 2;
    if (len == 126) {
      len = (uint64_t)d[i] << 8 | d[i + 1];
      i += 2;
    } else if (len == 127) {
      len = 0;
      for (int j = 0; j < 8; j++)
        len = len << 8 | d[i + j];
      i += 8;
    }
    unsigned char key[4] = {0};
    if (f->masked) {
      memcpy(key, d + i, 4);
      i += 4;
    }
    cr_assert_leq(i + len, b->o.len, "truncated frame");
    f->payload = malloc(len + 1);
    for (uint64_t j = 0; j < len; j++)
      f->payload[j] = (char)(d[i + j] ^ key[j % 4]);
    f->payload[len] = 0;
    f->len = len;
    i += len;
  }
  return k;
}

static void free_decoded(decoded *f, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(f[i].payload);
}

typedef struct peer {
  gql_ws ws;
  http_buf out;
  http_buf got; /* messages received, each followed by '|' */
  int messages, pongs, closes;
  uint16_t close_code;
  char close_reason[128];
  bool binary;
  bool reply; /* answer each message with "re:" + it */
} peer;

static void on_message(void *ud, bool binary, const char *data, size_t len) {
  peer *p = ud;
  p->messages++;
  p->binary = binary;
  http_buf_append(&p->got, data, len);
  http_buf_putc(&p->got, '|');
  if (p->reply) {
    char r[256];
    int n = snprintf(r, sizeof r, "re:%.*s", (int)len, data);
    gql_ws_send(&p->ws, false, r, (size_t)n);
  }
}

static void on_pong(void *ud) {
  ((peer *)ud)->pongs++;
}

static void on_close(void *ud, uint16_t code, gql_str reason) {
  peer *p = ud;
  p->closes++;
  p->close_code = code;
  snprintf(p->close_reason, sizeof p->close_reason, "%.*s", (int)reason.len,
           reason.ptr);
}

static const gql_ws_handler handler = {on_message, on_pong, on_close};

static void peer_init(peer *p, gql_ws_pool *pool, gql_ws_role role) {
  memset(p, 0, sizeof *p);
  p->out = (http_buf){0};
  p->got = (http_buf){0};
  gql_ws_init(&p->ws, pool, role, &handler, p, &p->out);
}

static void peer_free(peer *p) {
  gql_ws_free(&p->ws);
  http_buf_free(&p->out);
  http_buf_free(&p->got);
}

static const char *got(peer *p) {
  return p->got.o.len ? http_buf_cstr(&p->got) : "";
}

static gql_ws_pool *pool_with(uint32_t max_message, uint32_t max_queued) {
  gql_ws_limits lim = {.max_message = max_message, .max_queued = max_queued};
  gql_ws_pool *pool = gql_ws_pool_new(&lim);
  cr_assert_not_null(pool);
  return pool;
}

/* Feeds a client frame stream to a server peer, all at once or byte by
 * byte. */
static gql_ws_state feed_all(peer *s, const http_buf *in, bool bytewise) {
  gql_ws_state st = GQL_WS_OPEN;
  if (!bytewise)
    return gql_ws_feed(&s->ws, in->o.data, in->o.len);
  for (size_t i = 0; i < in->o.len; i++)
    st = gql_ws_feed(&s->ws, in->o.data + i, 1);
  return st;
}

/* The one close frame in the server's output: its code and reason. */
static uint16_t sent_close(peer *s, char *reason, size_t cap) {
  decoded f[16];
  size_t n = decode(&s->out, f, 16);
  uint16_t code = 0;
  for (size_t i = 0; i < n; i++) {
    cr_assert(!f[i].masked, "a server's frames are not masked");
    if (f[i].op == 8) {
      cr_assert_eq(code, 0, "two close frames");
      code = f[i].len >= 2 ? (uint16_t)((unsigned char)f[i].payload[0] << 8 |
                                        (unsigned char)f[i].payload[1])
                           : GQL_WS_CLOSE_NO_STATUS;
      if (reason)
        snprintf(reason, cap, "%s", f[i].len > 2 ? f[i].payload + 2 : "");
    }
  }
  free_decoded(f, n);
  return code;
}

Test(ws_frames, a_masked_text_message_reaches_the_handler_whole) {
  gql_ws_pool *pool = pool_with(0, 0);
  for (int bytewise = 0; bytewise < 2; bytewise++) {
    peer s;
    peer_init(&s, pool, GQL_WS_SERVER);
    http_buf in;
    in = (http_buf){0};
    frame(&in, true, 1, "{\"type\":\"connection_init\"}", 26, true);
    frame(&in, true, 2, "\x00\xff", 2, true);
    cr_assert_eq(feed_all(&s, &in, bytewise), GQL_WS_OPEN);
    cr_assert_eq(s.messages, 2);
    static const char want[] = "{\"type\":\"connection_init\"}|\x00\xff|";
    cr_assert_eq(s.got.o.len, sizeof want - 1);
    cr_assert(memcmp(s.got.o.data, want, sizeof want - 1) == 0);
    cr_assert(s.binary);
    cr_assert_eq(s.out.o.len, 0);
    http_buf_free(&in);
    peer_free(&s);
  }
  gql_ws_pool_free(pool);
}

Test(ws_frames, fragments_join_and_control_frames_may_come_between) {
  gql_ws_pool *pool = pool_with(0, 0);
  for (int bytewise = 0; bytewise < 2; bytewise++) {
    peer s;
    peer_init(&s, pool, GQL_WS_SERVER);
    http_buf in;
    in = (http_buf){0};
    frame(&in, false, 1, "hel", 3, true);
    frame(&in, true, 9, "are you there", 13, true); /* ping */
    frame(&in, false, 0, "lo, ", 4, true);
    frame(&in, true, 10, "", 0, true); /* unsolicited pong */
    frame(&in, true, 0, "w\xc3\xb6rld", 6, true);
    cr_assert_eq(feed_all(&s, &in, bytewise), GQL_WS_OPEN);
    cr_assert_eq(s.messages, 1);
    cr_assert_str_eq(got(&s), "hello, w\xc3\xb6rld|");
    cr_assert_eq(s.pongs, 1);
    decoded f[4];
    size_t n = decode(&s.out, f, 4);
    cr_assert_eq(n, 1);
    cr_assert_eq(f[0].op, 10, "a ping is answered with a pong");
    cr_assert_str_eq(f[0].payload, "are you there");
    free_decoded(f, n);
    http_buf_free(&in);
    peer_free(&s);
  }
  gql_ws_pool_free(pool);
}

Test(ws_frames, long_lengths_use_16_and_64_bit_headers) {
  gql_ws_pool *pool = pool_with(200000, 1 << 20);
  peer s;
  peer_init(&s, pool, GQL_WS_SERVER);
  char *big = malloc(100000);
  for (int i = 0; i < 100000; i++)
    big[i] = (char)('a' + i % 26);
  http_buf in;
  in = (http_buf){0};
  frame(&in, true, 1, big, 300, true);
  frame(&in, true, 1, big, 100000, true);
  cr_assert_eq(gql_ws_feed(&s.ws, in.o.data, in.o.len), GQL_WS_OPEN);
  cr_assert_eq(s.messages, 2);
  cr_assert_eq(s.got.o.len, 300 + 1 + 100000 + 1);
  cr_assert(memcmp(s.got.o.data + 301, big, 100000) == 0);
  /* and the server writes them back with the same header forms */
  gql_ws_send(&s.ws, false, big, 300);
  gql_ws_send(&s.ws, false, big, 100000);
  decoded f[2];
  cr_assert_eq(decode(&s.out, f, 2), 2);
  cr_assert_eq(f[0].len, 300);
  cr_assert_eq(f[1].len, 100000);
  cr_assert(memcmp(f[1].payload, big, 100000) == 0);
  cr_assert_eq((unsigned char)s.out.o.data[1], 126);
  free_decoded(f, 2);
  free(big);
  http_buf_free(&in);
  peer_free(&s);
  gql_ws_pool_free(pool);
}

typedef struct bad_case {
  const char *name;
  uint16_t code;
} bad_case;

/* Each case builds its input; the server must fail the connection with the
 * case's code, deliver nothing, and ignore input after it. */
static void build_bad(const char *name, http_buf *in) {
  if (!strcmp(name, "unmasked"))
    frame(in, true, 1, "hi", 2, false);
  else if (!strcmp(name, "reserved")) {
    frame(in, true, 1, "hi", 2, true);
    in->o.data[0] |= 0x40;
  } else if (!strcmp(name, "opcode"))
    frame(in, true, 3, "hi", 2, true);
  else if (!strcmp(name, "continuation"))
    frame(in, true, 0, "hi", 2, true);
  else if (!strcmp(name, "interleaved")) {
    frame(in, false, 1, "a", 1, true);
    frame(in, true, 1, "b", 1, true);
  } else if (!strcmp(name, "fragmented_ping"))
    frame(in, false, 9, "p", 1, true);
  else if (!strcmp(name, "long_ping")) {
    char p[126] = {0};
    frame(in, true, 9, p, 126, true);
  } else if (!strcmp(name, "not_utf8"))
    frame(in, true, 1, "\xc3\x28", 2, true);
  else if (!strcmp(name, "surrogate"))
    frame(in, true, 1, "\xed\xa0\x80", 3, true);
  else if (!strcmp(name, "too_big"))
    frame(in, true, 1, "0123456789abcdefX", 17, true);
  else if (!strcmp(name, "too_big_joined")) {
    frame(in, false, 1, "01234567", 8, true);
    frame(in, true, 0, "89abcdefX", 9, true);
  } else if (!strcmp(name, "huge_length")) {
    unsigned char h[] = {0x81, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff,
                         0xff, 0xff, 0xff, 1,    2,    3,    4};
    http_buf_append(in, h, sizeof h);
  } else if (!strcmp(name, "non_minimal_length")) {
    unsigned char h[] = {0x81, 0xfe, 0x00, 0x05, 1,   2,  3,
                         4,    'a',  'b',  'c',  'd', 'e'};
    http_buf_append(in, h, sizeof h);
  } else if (!strcmp(name, "close_one_byte"))
    frame(in, true, 8, "\x03", 1, true);
  else if (!strcmp(name, "close_bad_code"))
    frame(in, true, 8, "\x03\xed", 2, true); /* 1005 */
  else if (!strcmp(name, "close_bad_reason"))
    frame(in, true, 8, "\x03\xe8\xff", 3, true);
  /* after the bad frame, a good one that must not be delivered */
  frame(in, true, 1, "after", 5, true);
}

Test(ws_frames, protocol_violations_close_with_their_codes) {
  static const bad_case cases[] = {{"unmasked", 1002},
                                   {"reserved", 1002},
                                   {"opcode", 1002},
                                   {"continuation", 1002},
                                   {"interleaved", 1002},
                                   {"fragmented_ping", 1002},
                                   {"long_ping", 1002},
                                   {"not_utf8", 1007},
                                   {"surrogate", 1007},
                                   {"too_big", 1009},
                                   {"too_big_joined", 1009},
                                   {"huge_length", 1009},
                                   {"non_minimal_length", 1002},
                                   {"close_one_byte", 1002},
                                   {"close_bad_code", 1002},
                                   {"close_bad_reason", 1007}};
  gql_ws_pool *pool = pool_with(16, 0);
  for (size_t i = 0; i < GQL_ARRAY_LEN(cases); i++) {
    for (int bytewise = 0; bytewise < 2; bytewise++) {
      peer s;
      peer_init(&s, pool, GQL_WS_SERVER);
      http_buf in;
      in = (http_buf){0};
      build_bad(cases[i].name, &in);
      gql_ws_state st = feed_all(&s, &in, bytewise);
      cr_assert_eq(st, GQL_WS_CLOSED, "%s: state %d", cases[i].name, st);
      cr_assert_eq(s.messages, 0, "%s delivered %s", cases[i].name, got(&s));
      char reason[128];
      cr_assert_eq(sent_close(&s, reason, sizeof reason), cases[i].code, "%s",
                   cases[i].name);
      cr_assert_neq(reason[0], 0, "%s: the close says why", cases[i].name);
      cr_assert_not_null(s.ws.error);
      http_buf_free(&in);
      peer_free(&s);
    }
  }
  unsigned created, lent;
  gql_ws_pool_counts(pool, &created, &lent);
  cr_assert_eq(lent, 0, "a failed connection gives its context back");
  gql_ws_pool_free(pool);
}

Test(ws_frames, a_binary_message_is_not_checked_for_utf8) {
  gql_ws_pool *pool = pool_with(0, 0);
  peer s;
  peer_init(&s, pool, GQL_WS_SERVER);
  http_buf in;
  in = (http_buf){0};
  frame(&in, true, 2, "\xc3\x28", 2, true);
  cr_assert_eq(gql_ws_feed(&s.ws, in.o.data, in.o.len), GQL_WS_OPEN);
  cr_assert_eq(s.messages, 1);
  http_buf_free(&in);
  peer_free(&s);
  gql_ws_pool_free(pool);
}

Test(ws_frames, the_peers_close_is_echoed_and_reported) {
  gql_ws_pool *pool = pool_with(0, 0);
  peer s;
  peer_init(&s, pool, GQL_WS_SERVER);
  http_buf in;
  in = (http_buf){0};
  frame(&in, true, 8,
        "\x03\xe8"
        "bye",
        5, true);
  frame(&in, true, 1, "late", 4, true);
  cr_assert_eq(gql_ws_feed(&s.ws, in.o.data, in.o.len), GQL_WS_CLOSED);
  cr_assert_eq(s.closes, 1);
  cr_assert_eq(s.close_code, 1000);
  cr_assert_str_eq(s.close_reason, "bye");
  cr_assert_eq(s.messages, 0);
  cr_assert_eq(sent_close(&s, NULL, 0), 1000);
  cr_assert_eq(gql_ws_send(&s.ws, false, "x", 1), GQL_EINVAL);
  /* an empty close is answered with an empty one */
  peer t;
  peer_init(&t, pool, GQL_WS_SERVER);
  in.o.len = 0;
  frame(&in, true, 8, "", 0, true);
  cr_assert_eq(gql_ws_feed(&t.ws, in.o.data, in.o.len), GQL_WS_CLOSED);
  cr_assert_eq(t.close_code, GQL_WS_CLOSE_NO_STATUS);
  decoded f[2];
  cr_assert_eq(decode(&t.out, f, 2), 1);
  cr_assert_eq(f[0].op, 8);
  cr_assert_eq(f[0].len, 0);
  free_decoded(f, 1);
  http_buf_free(&in);
  peer_free(&s);
  peer_free(&t);
  gql_ws_pool_free(pool);
}

Test(ws_frames, our_close_waits_for_the_peers_and_drops_data_meanwhile) {
  gql_ws_pool *pool = pool_with(0, 0);
  peer s;
  peer_init(&s, pool, GQL_WS_SERVER);
  cr_assert_eq(gql_ws_close(&s.ws, 4400, "Invalid message received"), 0);
  cr_assert_eq(s.ws.state, GQL_WS_CLOSING);
  cr_assert_eq(gql_ws_close(&s.ws, 1000, "again"), 0, "a second close: no-op");
  char reason[128];
  cr_assert_eq(sent_close(&s, reason, sizeof reason), 4400);
  cr_assert_str_eq(reason, "Invalid message received");
  http_buf in;
  in = (http_buf){0};
  frame(&in, true, 1, "still talking", 13, true);
  frame(&in, true, 9, "ping", 4, true);
  size_t before = s.out.o.len;
  cr_assert_eq(gql_ws_feed(&s.ws, in.o.data, in.o.len), GQL_WS_CLOSING);
  cr_assert_eq(s.messages, 0);
  cr_assert_eq(s.out.o.len, before, "nothing is sent after a close frame");
  in.o.len = 0;
  frame(&in, true, 8, "\x11\x30", 2, true);
  cr_assert_eq(gql_ws_feed(&s.ws, in.o.data, in.o.len), GQL_WS_CLOSED);
  cr_assert_eq(s.close_code, 4400);
  cr_assert_eq(s.out.o.len, before, "the peer's close is not echoed again");
  cr_assert_eq(gql_ws_close(&s.ws, 1000, NULL), 0);
  http_buf_free(&in);
  peer_free(&s);
  gql_ws_pool_free(pool);
}

Test(ws_frames, close_codes_and_reasons_are_checked_and_cut) {
  cr_assert(gql_ws_close_code_valid(1000));
  cr_assert(gql_ws_close_code_valid(4409));
  cr_assert(!gql_ws_close_code_valid(1005));
  cr_assert(!gql_ws_close_code_valid(1006));
  cr_assert(!gql_ws_close_code_valid(999));
  cr_assert(!gql_ws_close_code_valid(5000));
  gql_ws_pool *pool = pool_with(0, 0);
  peer s;
  peer_init(&s, pool, GQL_WS_SERVER);
  cr_assert_eq(gql_ws_close(&s.ws, 1005, "x"), GQL_EINVAL);
  char reason[200];
  memset(reason, 0, sizeof reason);
  for (int i = 0; i < 61; i++)
    memcpy(reason + 2 * i, "\xc3\xa9", 2); /* 122 bytes of é */
  strcat(reason, "\xe2\x82\xac");          /* 125: the € cannot fit */
  cr_assert_eq(gql_ws_close(&s.ws, 4500, reason), 0);
  decoded f[1];
  cr_assert_eq(decode(&s.out, f, 1), 1);
  cr_assert_eq(f[0].len, 2 + 122, "cut before the last character");
  cr_assert(gql_ws_utf8_valid(f[0].payload + 2, f[0].len - 2));
  free_decoded(f, 1);
  peer_free(&s);
  gql_ws_pool_free(pool);
}

Test(ws_frames, a_peer_that_stops_reading_is_terminated_not_buffered) {
  gql_ws_pool *pool = pool_with(0, 4096);
  peer s;
  peer_init(&s, pool, GQL_WS_SERVER);
  char msg[100];
  memset(msg, 'x', sizeof msg);
  int sent = 0, rc = 0;
  while ((rc = gql_ws_send(&s.ws, false, msg, sizeof msg)) == 0)
    sent++;
  cr_assert_eq(rc, GQL_ELIMIT);
  cr_assert_eq(sent, 4096 / 102, "sent %d", sent);
  cr_assert_eq(s.ws.state, GQL_WS_TERMINATED);
  cr_assert_leq(s.out.o.len, 4096);
  cr_assert_eq(gql_ws_send(&s.ws, false, msg, 1), GQL_EINVAL);
  /* bytes the transport holds count too */
  peer t;
  peer_init(&t, pool, GQL_WS_SERVER);
  t.ws.inflight = 4000;
  cr_assert_eq(gql_ws_send(&t.ws, false, msg, sizeof msg), GQL_ELIMIT);
  /* so does a flood of pings whose pongs are never read */
  peer u;
  peer_init(&u, pool, GQL_WS_SERVER);
  http_buf in;
  in = (http_buf){0};
  for (int i = 0; i < 100; i++)
    frame(&in, true, 9, msg, 100, true);
  cr_assert_eq(gql_ws_feed(&u.ws, in.o.data, in.o.len), GQL_WS_TERMINATED);
  cr_assert_leq(u.out.o.len, 4096);
  http_buf_free(&in);
  peer_free(&s);
  peer_free(&t);
  peer_free(&u);
  gql_ws_pool_free(pool);
}

Test(ws_frames, idle_connections_hold_no_frame_context) {
  gql_ws_pool *pool = pool_with(0, 0);
  enum { N = 1000 };
  peer *ps = calloc(N, sizeof *ps);
  http_buf in;
  in = (http_buf){0};
  frame(&in, true, 1, "{\"type\":\"ping\"}", 15, true);
  for (int i = 0; i < N; i++) {
    peer_init(&ps[i], pool, GQL_WS_SERVER);
    cr_assert_eq(gql_ws_feed(&ps[i].ws, in.o.data, in.o.len), GQL_WS_OPEN);
    cr_assert_eq(ps[i].messages, 1);
    cr_assert_null(ps[i].ws.fr);
  }
  unsigned created, lent;
  gql_ws_pool_counts(pool, &created, &lent);
  cr_assert_eq(lent, 0);
  cr_assert_eq(created, 1, "one context served them all");
  /* a connection in the middle of a frame keeps one until it completes */
  gql_ws_feed(&ps[0].ws, in.o.data, 5);
  gql_ws_feed(&ps[1].ws, in.o.data, 1);
  gql_ws_pool_counts(pool, &created, &lent);
  cr_assert_eq(lent, 2);
  gql_ws_feed(&ps[0].ws, in.o.data + 5, in.o.len - 5);
  gql_ws_feed(&ps[1].ws, in.o.data + 1, in.o.len - 1);
  gql_ws_pool_counts(pool, &created, &lent);
  cr_assert_eq(lent, 0);
  cr_assert_eq(ps[0].messages, 2);
  cr_assert_eq(ps[1].messages, 2);
  /* two frames in one read, the second partial */
  http_buf two;
  two = (http_buf){0};
  http_buf_append(&two, in.o.data, in.o.len);
  http_buf_append(&two, in.o.data, 3);
  gql_ws_feed(&ps[2].ws, two.o.data, two.o.len);
  cr_assert_not_null(ps[2].ws.fr);
  gql_ws_feed(&ps[2].ws, in.o.data + 3, in.o.len - 3);
  cr_assert_null(ps[2].ws.fr);
  cr_assert_eq(ps[2].messages, 3);
  for (int i = 0; i < N; i++)
    peer_free(&ps[i]);
  http_buf_free(&in);
  http_buf_free(&two);
  free(ps);
  gql_ws_pool_free(pool);
}

Test(ws_frames, a_client_and_a_server_talk_both_ways) {
  gql_ws_pool *pool = pool_with(0, 0);
  peer c, s;
  peer_init(&c, pool, GQL_WS_CLIENT);
  peer_init(&s, pool, GQL_WS_SERVER);
  s.reply = true;
  cr_assert_eq(gql_ws_send(&c.ws, false, "hello", 5), 0);
  cr_assert_eq(gql_ws_ping(&c.ws, "p", 1), 0);
  decoded f[4];
  size_t n = decode(&c.out, f, 4);
  cr_assert_eq(n, 2);
  cr_assert(f[0].masked && f[1].masked, "a client masks its frames");
  free_decoded(f, n);
  gql_ws_feed(&s.ws, c.out.o.data, c.out.o.len);
  c.out.o.len = 0;
  cr_assert_str_eq(got(&s), "hello|");
  cr_assert_eq(gql_ws_feed(&c.ws, s.out.o.data, s.out.o.len), GQL_WS_OPEN, "%s",
               c.ws.error);
  s.out.o.len = 0;
  cr_assert_str_eq(got(&c), "re:hello|");
  cr_assert_eq(c.pongs, 1);
  /* a client refuses masked frames from a server */
  peer d;
  peer_init(&d, pool, GQL_WS_CLIENT);
  http_buf in;
  in = (http_buf){0};
  frame(&in, true, 1, "x", 1, true);
  cr_assert_eq(gql_ws_feed(&d.ws, in.o.data, in.o.len), GQL_WS_CLOSED);
  http_buf_free(&in);
  peer_free(&c);
  peer_free(&s);
  peer_free(&d);
  gql_ws_pool_free(pool);
}

Test(ws_frames, keep_alive_pings_and_terminates_a_silent_peer) {
  gql_ws_pool *pool = pool_with(0, 0);
  peer s;
  peer_init(&s, pool, GQL_WS_SERVER);
  cr_assert(gql_ws_keepalive(&s.ws));
  decoded f[2];
  cr_assert_eq(decode(&s.out, f, 2), 1);
  cr_assert_eq(f[0].op, 9, "a ping");
  free_decoded(f, 1);
  /* the peer answers (any input counts): alive */
  http_buf in;
  in = (http_buf){0};
  frame(&in, true, 10, "", 0, true);
  gql_ws_feed(&s.ws, in.o.data, in.o.len);
  cr_assert_eq(s.pongs, 1);
  cr_assert(gql_ws_keepalive(&s.ws));
  /* then nothing until the next round: terminated, no frame written */
  size_t before = s.out.o.len;
  cr_assert(!gql_ws_keepalive(&s.ws));
  cr_assert_eq(s.ws.state, GQL_WS_TERMINATED);
  cr_assert_eq(s.out.o.len, before);
  http_buf_free(&in);
  peer_free(&s);
  gql_ws_pool_free(pool);
}
