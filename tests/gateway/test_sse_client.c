/* The gateway's graphql-sse client to subgraphs (src/gateway/sse_client.c),
 * driven from buffers: its request, and what it makes of a subgraph's
 * answers fed in every split. */
#include "gateway/sse_client.h"

#include <criterion/criterion.h>
#include <stdlib.h>

typedef struct fixture {
  gql_gw_ssec c;
  char events[8][256];
  unsigned nevents, ends;
  char why[240];
  bool clean_end;
} fixture;

static void c_event(void *ud, const char *json, size_t len) {
  fixture *f = ud;
  cr_assert_eq(f->ends, 0, "an event after the end");
  if (f->nevents < 8)
    snprintf(f->events[f->nevents++], 256, "%.*s", (int)len, json);
}

static void c_end(void *ud, const char *why, const char *errors, size_t len) {
  (void)len;
  fixture *f = ud;
  cr_assert_null(errors);
  f->ends++;
  f->clean_end = !why;
  snprintf(f->why, sizeof f->why, "%s", why ? why : "");
}

static const gql_gw_ssec_handler handler = {c_event, c_end};

static const char body[] = "{\"query\":\"subscription{added{upc}}\"}";

static void start(fixture *f, const char *headers, size_t max_event) {
  memset(f, 0, sizeof *f);
  cr_assert_eq(gql_gw_ssec_init(&f->c, &handler, f, "127.0.0.1:4001",
                                "/graphql", headers, body, sizeof body - 1,
                                max_event),
               0);
}

/* Feeds `text` in pieces of `piece` bytes. */
static void feed(fixture *f, const char *text, size_t piece) {
  size_t n = strlen(text);
  for (size_t i = 0; i < n; i += piece)
    gql_gw_ssec_feed(&f->c, text + i, n - i < piece ? n - i : piece);
}

#define HEAD                                                                   \
  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"      \
  "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"

/* One chunk of the chunked coding around `s` (a literal). */
#define CHUNK(hex, s) hex "\r\n" s "\r\n"

Test(sse_client, request_is_a_post_accepting_the_event_stream) {
  fixture f;
  start(&f, "authorization: Bearer x\r\n", 0);
  char req[1024];
  snprintf(req, sizeof req, "%.*s", (int)f.c.out.o.len, f.c.out.o.data);
  cr_assert(strncmp(req, "POST /graphql HTTP/1.1\r\n", 24) == 0, "%s", req);
  cr_assert(strstr(req, "\r\nHost: 127.0.0.1:4001\r\n"), "%s", req);
  cr_assert(strstr(req, "\r\nAccept: text/event-stream\r\n"), "%s", req);
  cr_assert(strstr(req, "\r\nContent-Type: application/json\r\n"), "%s", req);
  char cl[64];
  snprintf(cl, sizeof cl, "\r\nContent-Length: %zu\r\n", sizeof body - 1);
  cr_assert(strstr(req, cl), "%s", req);
  cr_assert(strstr(req, "\r\nauthorization: Bearer x\r\n\r\n"), "%s", req);
  const char *b = strstr(req, "\r\n\r\n");
  cr_assert_str_eq(b + 4, body);
  cr_assert_eq(f.c.state, GQL_GW_SSEC_REQUESTING);
  gql_gw_ssec_free(&f.c);
}

/* The graphql-sse stream as gql serve writes it: a keep-alive comment,
 * events in chunks, then complete. Every split gives the same events. */
Test(sse_client, next_events_then_complete_in_any_split) {
  static const char stream[] = HEAD CHUNK("3", ":\n\n") CHUNK(
      "32", "event: next\ndata: {\"data\":{\"added\":{\"upc\":\"1\"}}}\n\n")
      CHUNK("33",
            "event: next\r\ndata: {\"data\":{\"added\":{\"upc\":\"2\"}}}\r"
            "\n") CHUNK("19", "\r\nevent: complete\ndata:\n\n") "0\r\n\r\n";
  for (size_t piece = 1; piece <= sizeof stream; piece++) {
    fixture f;
    start(&f, NULL, 0);
    feed(&f, stream, piece);
    cr_assert_eq(f.nevents, 2, "piece %zu: %u events", piece, f.nevents);
    cr_assert_str_eq(f.events[0], "{\"data\":{\"added\":{\"upc\":\"1\"}}}");
    cr_assert_str_eq(f.events[1], "{\"data\":{\"added\":{\"upc\":\"2\"}}}");
    cr_assert_eq(f.ends, 1, "piece %zu", piece);
    cr_assert(f.clean_end, "piece %zu: %s", piece, f.why);
    cr_assert_eq(f.c.state, GQL_GW_SSEC_ENDED);
    gql_gw_ssec_free(&f.c);
  }
}

Test(sse_client, data_lines_are_joined_and_fields_ignored) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f,
       "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
       "Content-Length: 89\r\n\r\n"
       "id: 7\nretry: 10\nevent: next\ndata: {\"data\":\ndata: {\"a\":1}}\n"
       "x-unknown: y\n\nevent: complete\n\n",
       5);
  cr_assert_eq(f.nevents, 1);
  cr_assert_str_eq(f.events[0], "{\"data\":\n{\"a\":1}}");
  cr_assert(f.clean_end, "%s", f.why);
  gql_gw_ssec_free(&f.c);
}

/* The body's end (the last chunk) without a complete event completes it. */
Test(sse_client, the_bodys_end_completes) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f,
       HEAD CHUNK("10", "event: next\ndata") CHUNK("6", ": {}\n\n") "0\r\n\r\n",
       3);
  cr_assert_eq(f.nevents, 1);
  cr_assert_str_eq(f.events[0], "{}");
  cr_assert_eq(f.ends, 1);
  cr_assert(f.clean_end, "%s", f.why);
  gql_gw_ssec_free(&f.c);
}

/* The connection lost mid-stream is an error, not a completion. */
Test(sse_client, eof_before_the_streams_end_is_an_error) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f, HEAD CHUNK("10", "event: next\ndata") CHUNK("6", ": {}\n\n"), 7);
  cr_assert_eq(f.nevents, 1);
  cr_assert_eq(f.ends, 0);
  cr_assert_eq(f.c.state, GQL_GW_SSEC_RUNNING);
  gql_gw_ssec_eof(&f.c);
  cr_assert_eq(f.ends, 1);
  cr_assert(!f.clean_end);
  cr_assert(strstr(f.why, "closed the connection"), "%s", f.why);
  gql_gw_ssec_eof(&f.c); /* once */
  cr_assert_eq(f.ends, 1);
  gql_gw_ssec_free(&f.c);
}

Test(sse_client, an_error_status_ends_with_its_first_graphql_error) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f,
       "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
       "Content-Length: 52\r\n\r\n"
       "{\"errors\":[{\"message\":\"Cannot query field \\\"x\\\".\"}]}",
       4);
  cr_assert_eq(f.ends, 1);
  cr_assert_eq(f.nevents, 0);
  cr_assert_str_eq(f.why,
                   "the subgraph answered HTTP 400: Cannot query field \"x\".");
  gql_gw_ssec_free(&f.c);
}

Test(sse_client, a_server_error_without_a_body) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", 64);
  cr_assert_str_eq(f.why, "the subgraph answered HTTP 503");
  gql_gw_ssec_free(&f.c);
}

Test(sse_client, a_200_that_is_not_an_event_stream_is_refused) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f,
       "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
       "Content-Length: 11\r\n\r\n{\"data\":{}}",
       64);
  cr_assert_eq(f.ends, 1);
  cr_assert_eq(f.nevents, 0);
  cr_assert(strstr(f.why, "Content-Type application/json, not "
                          "text/event-stream"),
            "%s", f.why);
  gql_gw_ssec_free(&f.c);
}

Test(sse_client, text_event_streamer_is_not_the_event_stream) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f,
       "HTTP/1.1 200 OK\r\nContent-Type: text/event-streamer\r\n"
       "Content-Length: 0\r\n\r\n",
       64);
  cr_assert(strstr(f.why, "not text/event-stream"), "%s", f.why);
  gql_gw_ssec_free(&f.c);
}

Test(sse_client, a_next_that_is_not_a_json_object_ends_it) {
  static const char *const bad[] = {"event: next\ndata: [1]\n\n",
                                    "event: next\ndata: {\"a\":\n\n",
                                    "event: next\n\n",
                                    "event: next\ndata:\n\n",
                                    "data: {}\n\n",
                                    "event: ping\ndata: {}\n\n"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    fixture f;
    start(&f, NULL, 0);
    char in[512];
    snprintf(in, sizeof in,
             "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n%s",
             bad[i]);
    feed(&f, in, 2);
    cr_assert_eq(f.nevents, 0, "%s", bad[i]);
    cr_assert_eq(f.ends, 1, "%s", bad[i]);
    cr_assert(!f.clean_end, "%s", bad[i]);
    cr_assert(strstr(f.why, i < 4 ? "not a JSON object" : "not graphql-sse"),
              "%s: %s", bad[i], f.why);
    gql_gw_ssec_free(&f.c);
  }
}

/* An event (or a line) over max_event ends it, whatever the split, without
 * holding more than the limit. */
Test(sse_client, an_oversize_event_ends_it) {
  for (size_t piece = 1; piece < 40; piece += 13) {
    fixture f;
    start(&f, NULL, 64);
    feed(&f, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", 64);
    char line[200];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = 0;
    memcpy(line, "data: ", 6);
    feed(&f, "event: next\n", piece);
    feed(&f, line, piece);
    cr_assert_eq(f.ends, 1);
    cr_assert(strstr(f.why, "over the size limit"), "%s", f.why);
    cr_assert_leq(f.c.line.len, 64);
    gql_gw_ssec_free(&f.c);

    start(&f, NULL, 64); /* many short data lines */
    feed(&f, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", 64);
    for (int i = 0; i < 40 && !f.ends; i++)
      feed(&f, "data: 0123456789\n", piece);
    cr_assert_eq(f.ends, 1);
    cr_assert(strstr(f.why, "over the size limit"), "%s", f.why);
    gql_gw_ssec_free(&f.c);
  }
}

Test(sse_client, invalid_http_ends_it) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f, "HTTP/1.1 abc\r\n\r\n", 64);
  cr_assert_eq(f.ends, 1);
  cr_assert(strstr(f.why, "not valid HTTP"), "%s", f.why);
  gql_gw_ssec_free(&f.c);
}

/* The owner's complete (the client went) ends it silently; what comes
 * after is ignored. */
Test(sse_client, complete_by_the_owner_is_silent) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f, HEAD, 64);
  gql_gw_ssec_complete(&f.c);
  cr_assert_eq(f.c.state, GQL_GW_SSEC_ENDED);
  feed(&f, CHUNK("10", "event: next\ndata") CHUNK("6", ": {}\n\n"), 64);
  gql_gw_ssec_fail(&f.c, "late");
  gql_gw_ssec_eof(&f.c);
  cr_assert_eq(f.nevents, 0);
  cr_assert_eq(f.ends, 0);
  gql_gw_ssec_free(&f.c);
}

Test(sse_client, fail_ends_once_with_the_reason) {
  fixture f;
  start(&f, NULL, 0);
  gql_gw_ssec_fail(&f.c, "cannot connect (connection refused)");
  gql_gw_ssec_fail(&f.c, "again");
  cr_assert_eq(f.ends, 1);
  cr_assert_str_eq(f.why, "cannot connect (connection refused)");
  gql_gw_ssec_free(&f.c);
}

/* An interim 100 answer is skipped: the real one follows. */
Test(sse_client, an_interim_answer_is_skipped) {
  fixture f;
  start(&f, NULL, 0);
  feed(&f,
       "HTTP/1.1 100 Continue\r\n\r\n" HEAD CHUNK(
           "16", "event: next\ndata: {}\n\n") "0\r\n\r\n",
       3);
  cr_assert_eq(f.nevents, 1, "%s", f.why);
  cr_assert(f.clean_end, "%s", f.why);
  gql_gw_ssec_free(&f.c);
}
