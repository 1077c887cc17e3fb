/* What the subscription transports' test servers (ws_peer_server,
 * sse_peer_server) share: one read buffer, and a listening socket on a
 * free loopback port, announced as "PORT n" on stdout. */
#ifndef GQL_TEST_PEER_SERVER_H
#define GQL_TEST_PEER_SERVER_H

#include <stdio.h>
#include <uv.h>

static char peer_read_buf[65536];

/* Every read goes to the one buffer: the loop is single-threaded and a
 * read is handled before the next. */
static void peer_alloc(uv_handle_t *h, size_t s, uv_buf_t *b) {
  (void)h;
  (void)s;
  *b = uv_buf_init(peer_read_buf, sizeof peer_read_buf);
}

/* Listens on 127.0.0.1 (any port), prints it, runs the loop. */
static int peer_serve(uv_loop_t *loop, uv_connection_cb on_connection) {
  uv_tcp_t server;
  uv_tcp_init(loop, &server);
  struct sockaddr_in a;
  uv_ip4_addr("127.0.0.1", 0, &a);
  if (uv_tcp_bind(&server, (const struct sockaddr *)&a, 0) != 0 ||
      uv_listen((uv_stream_t *)&server, 128, on_connection) != 0)
    return 1;
  int len = sizeof a;
  uv_tcp_getsockname(&server, (struct sockaddr *)&a, &len);
  printf("PORT %d\n", ntohs(a.sin_port));
  fflush(stdout);
  return uv_run(loop, UV_RUN_DEFAULT);
}

#endif
