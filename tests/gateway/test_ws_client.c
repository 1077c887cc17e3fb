/* The gateway's graphql-ws client to subgraphs (src/gateway/ws_client.c),
 * driven from buffers: its upgrade request, its messages as a server-side
 * frame reader sees them, and what it makes of a subgraph's answers. */
#include "gateway/ws_client.h"

#include <criterion/criterion.h>
#include <stdlib.h>

typedef struct fixture {
  gql_ws_pool *pool;
  gql_gw_wsc c;
  /* the subgraph's side: a server frame reader and writer */
  gql_ws server;
  http_buf to_client;
  char got[8][256]; /* messages the subgraph received */
  unsigned ngot;
  /* what the client reported */
  char events[8][256];
  unsigned nevents, ends;
  char why[200], errors[200];
  bool clean_end;
} fixture;

static void s_message(void *ud, bool binary, const char *d, size_t n) {
  (void)binary;
  fixture *f = ud;
  if (f->ngot < 8)
    snprintf(f->got[f->ngot++], 256, "%.*s", (int)n, d);
}

static const gql_ws_handler server_handler = {s_message, NULL, NULL};

static void c_event(void *ud, const char *json, size_t len) {
  fixture *f = ud;
  if (f->nevents < 8)
    snprintf(f->events[f->nevents++], 256, "%.*s", (int)len, json);
}

static void c_end(void *ud, const char *why, const char *errors, size_t len) {
  fixture *f = ud;
  f->ends++;
  f->clean_end = !why;
  snprintf(f->why, sizeof f->why, "%s", why ? why : "");
  snprintf(f->errors, sizeof f->errors, "%.*s", (int)len, errors ? errors : "");
}

static const gql_gw_wsc_handler client_handler = {c_event, c_end};

static const char body[] = "{\"query\":\"subscription{added{upc}}\"}";

static void start(fixture *f, const char *headers) {
  memset(f, 0, sizeof *f);
  f->pool = gql_ws_pool_new(NULL);
  cr_assert_eq(gql_gw_wsc_init(&f->c, f->pool, &client_handler, f,
                               "127.0.0.1:4001", "/graphql", headers, body,
                               sizeof body - 1),
               0);
  gql_ws_init(&f->server, f->pool, GQL_WS_SERVER, &server_handler, f,
              &f->to_client);
}

static void finish(fixture *f) {
  gql_gw_wsc_free(&f->c);
  gql_ws_free(&f->server);
  http_buf_free(&f->to_client);
  gql_ws_pool_free(f->pool);
}

/* The client's output so far as text (the upgrade request), then gone. */
static char *take_out(fixture *f) {
  char *t = strndup(f->c.out.o.data ? f->c.out.o.data : "", f->c.out.o.len);
  f->c.out.o.len = 0;
  return t;
}

/* The client's frames go to the subgraph's reader. */
static void to_server(fixture *f) {
  gql_ws_feed(&f->server, f->c.out.o.data, f->c.out.o.len);
  f->c.out.o.len = 0;
}

static void say(fixture *f, const char *msg) {
  gql_ws_send(&f->server, false, msg, strlen(msg));
  gql_gw_wsc_feed(&f->c, f->to_client.o.data, f->to_client.o.len);
  f->to_client.o.len = 0;
  to_server(f);
}

static void accept_upgrade(fixture *f) {
  char *req = take_out(f);
  free(req);
  char accept[29], head[512];
  gql_ws_accept_key(gql_cstr(f->c.key), accept);
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n"
                   "Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n",
                   accept);
  /* in two reads, split inside the blank line */
  gql_gw_wsc_feed(&f->c, head, (size_t)n - 2);
  gql_gw_wsc_feed(&f->c, head + n - 2, 2);
  to_server(f);
}

Test(ws_client, the_upgrade_request_carries_the_subprotocol_and_headers) {
  fixture f;
  start(&f, "Authorization: Bearer t\r\n");
  char *req = take_out(&f);
  cr_expect(strncmp(req, "GET /graphql HTTP/1.1\r\nHost: 127.0.0.1:4001\r\n",
                    45) == 0,
            "%s", req);
  cr_expect_not_null(
      strstr(req, "\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n"));
  cr_expect_not_null(strstr(req, "\r\nAuthorization: Bearer t\r\n\r\n"));
  free(req);
  finish(&f);
}

Test(ws_client, subscribes_after_the_ack_and_relays_each_next) {
  fixture f;
  start(&f, NULL);
  accept_upgrade(&f);
  cr_assert_eq(f.ngot, 1);
  cr_expect_str_eq(f.got[0], "{\"type\":\"connection_init\"}");
  cr_expect_eq(f.c.state, GQL_GW_WSC_INIT);
  say(&f, "{\"type\":\"connection_ack\"}");
  cr_assert_eq(f.ngot, 2);
  cr_expect_str_eq(f.got[1], "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":"
                             "{\"query\":\"subscription{added{upc}}\"}}");
  say(&f, "{\"id\":\"1\",\"type\":\"next\",\"payload\":{\"data\":{\"added\":"
          "{\"upc\":\"1\"}}}}");
  say(&f, "{\"type\":\"ping\"}");
  cr_assert_eq(f.ngot, 3);
  cr_expect_str_eq(f.got[2], "{\"type\":\"pong\"}");
  say(&f, "{\"id\":\"1\",\"type\":\"next\",\"payload\":{\"data\":{\"added\":"
          "null},\"errors\":[{\"message\":\"x\"}]}}");
  cr_assert_eq(f.nevents, 2);
  cr_expect_str_eq(f.events[0], "{\"data\":{\"added\":{\"upc\":\"1\"}}}");
  cr_expect_str_eq(f.events[1],
                   "{\"data\":{\"added\":null},\"errors\":[{\"message\":"
                   "\"x\"}]}");
  cr_expect_eq(f.ends, 0);
  say(&f, "{\"id\":\"1\",\"type\":\"complete\"}");
  cr_expect_eq(f.ends, 1);
  cr_expect(f.clean_end);
  cr_expect_eq(f.c.state, GQL_GW_WSC_ENDED);
  cr_expect_eq(f.server.close_received, GQL_WS_CLOSE_NORMAL);
  finish(&f);
}

Test(ws_client, the_subgraphs_error_message_ends_it_with_those_errors) {
  fixture f;
  start(&f, NULL);
  accept_upgrade(&f);
  say(&f, "{\"type\":\"connection_ack\"}");
  say(&f, "{\"id\":\"1\",\"type\":\"error\",\"payload\":[{\"message\":\"Too "
          "many\"}]}");
  cr_expect_eq(f.ends, 1);
  cr_expect_str_eq(f.errors, "[{\"message\":\"Too many\"}]");
  cr_expect_not_null(strstr(f.why, "refused"));
  say(&f, "{\"id\":\"1\",\"type\":\"next\",\"payload\":{}}");
  cr_expect_eq(f.nevents, 0); /* nothing after the end */
  cr_expect_eq(f.ends, 1);
  finish(&f);
}

Test(ws_client, a_message_out_of_the_protocol_ends_it_and_closes_4400) {
  const char *bad[] = {
      "{\"id\":\"1\",\"type\":\"next\",\"payload\":{}}", /* before the ack */
      "not json", "{\"type\":\"hello\"}", "[1]"};
  for (unsigned i = 0; i < 4; i++) {
    fixture f;
    start(&f, NULL);
    accept_upgrade(&f);
    say(&f, bad[i]);
    cr_expect_eq(f.ends, 1, "%s", bad[i]);
    cr_expect(!f.clean_end);
    cr_expect_eq(f.nevents, 0);
    cr_expect_eq(f.server.close_received, 4400, "%s: %u", bad[i],
                 f.server.close_received);
    finish(&f);
  }
  fixture f; /* another operation's id once subscribed */
  start(&f, NULL);
  accept_upgrade(&f);
  say(&f, "{\"type\":\"connection_ack\"}");
  say(&f, "{\"id\":\"2\",\"type\":\"next\",\"payload\":{}}");
  cr_expect_eq(f.ends, 1);
  cr_expect_eq(f.nevents, 0);
  finish(&f);
}

Test(ws_client, a_refused_upgrade_ends_it) {
  fixture f;
  start(&f, NULL);
  free(take_out(&f));
  static const char no[] =
      "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
  cr_expect_eq(gql_gw_wsc_feed(&f.c, no, sizeof no - 1), GQL_GW_WSC_ENDED);
  cr_expect_eq(f.ends, 1);
  cr_expect_not_null(strstr(f.why, "upgrade"), "%s", f.why);
  finish(&f);
  start(&f, NULL); /* a head that never ends */
  char junk[1024];
  memset(junk, 'x', sizeof junk);
  for (int i = 0; i < 9 && f.ends == 0; i++)
    gql_gw_wsc_feed(&f.c, junk, sizeof junk);
  cr_expect_eq(f.ends, 1);
  cr_expect_not_null(strstr(f.why, "too long"), "%s", f.why);
  finish(&f);
}

Test(ws_client, the_subgraph_closing_ends_it_with_its_code) {
  fixture f;
  start(&f, NULL);
  accept_upgrade(&f);
  say(&f, "{\"type\":\"connection_ack\"}");
  gql_ws_close(&f.server, 1001, "Server shutting down");
  gql_gw_wsc_feed(&f.c, f.to_client.o.data, f.to_client.o.len);
  cr_expect_eq(f.ends, 1);
  cr_expect_not_null(strstr(f.why, "1001: Server shutting down"), "%s", f.why);
  finish(&f);
}

Test(ws_client, completing_sends_complete_and_a_close_frame_without_an_end) {
  fixture f;
  start(&f, NULL);
  accept_upgrade(&f);
  say(&f, "{\"type\":\"connection_ack\"}");
  gql_gw_wsc_complete(&f.c);
  to_server(&f);
  cr_assert_eq(f.ngot, 3);
  cr_expect_str_eq(f.got[2], "{\"id\":\"1\",\"type\":\"complete\"}");
  cr_expect_eq(f.server.close_received, GQL_WS_CLOSE_NORMAL);
  cr_expect_eq(f.ends, 0);
  gql_gw_wsc_fail(&f.c, "late"); /* ended already: no callback */
  cr_expect_eq(f.ends, 0);
  finish(&f);
}

Test(ws_client, a_silent_subgraph_fails_the_keepalive) {
  fixture f;
  start(&f, NULL);
  accept_upgrade(&f);
  say(&f, "{\"type\":\"connection_ack\"}");
  cr_expect(gql_gw_wsc_keepalive(&f.c));  /* a ping */
  cr_expect(!gql_gw_wsc_keepalive(&f.c)); /* nothing came since */
  cr_expect_eq(f.ends, 1);
  cr_expect_not_null(strstr(f.why, "pings"));
  finish(&f);
}
