/* src/http/incremental.c: the Accept negotiation and the framing of
 * responses of several payloads (multipart/mixed, text/event-stream). */
#include "http/incremental.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static gql_http_stream_format nego(const char *accept) {
  return gql_http_stream_negotiate(accept, strlen(accept));
}

#define NONE GQL_HTTP_STREAM_NONE
#define MULTIPART GQL_HTTP_STREAM_MULTIPART
#define LEGACY GQL_HTTP_STREAM_MULTIPART_LEGACY
#define SSE GQL_HTTP_STREAM_SSE

Test(incremental_http, what_the_npm_clients_send_gets_their_framing) {
  /* Apollo Client 4, GraphQL17Alpha9Handler and Defer20220824Handler */
  cr_assert_eq(nego("multipart/mixed;incrementalSpec=v0.2,application/"
                    "graphql-response+json,application/json;q=0.9"),
               MULTIPART);
  cr_assert_eq(nego("multipart/mixed;deferSpec=20220824,application/"
                    "graphql-response+json,application/json;q=0.9"),
               LEGACY);
  /* meros / graphql-yoga style, graphql-sse */
  cr_assert_eq(nego("multipart/mixed"), MULTIPART);
  cr_assert_eq(nego("text/event-stream"), SSE);
}

Test(incremental_http, json_only_clients_get_none) {
  cr_assert_eq(nego("application/json"), NONE);
  cr_assert_eq(
      nego("application/graphql-response+json, application/json;q=0.9"), NONE);
  cr_assert_eq(nego("text/html, application/*"), NONE);
  cr_assert_eq(nego("multipart/form-data"), NONE);
}

Test(incremental_http, absent_or_any_accept_gets_multipart) {
  cr_assert_eq(gql_http_stream_negotiate(NULL, 0), MULTIPART);
  cr_assert_eq(nego(""), MULTIPART);
  cr_assert_eq(nego("*/*"), MULTIPART);
  cr_assert_eq(nego("multipart/*"), MULTIPART);
  cr_assert_eq(nego("text/*"), SSE);
}

Test(incremental_http, weights_decide_then_specific_ranges_then_order) {
  cr_assert_eq(nego("text/event-stream;q=0.5, multipart/mixed"), MULTIPART);
  cr_assert_eq(nego("multipart/mixed;q=0, text/event-stream"), SSE);
  cr_assert_eq(nego("multipart/mixed;q=0.000"), NONE);
  cr_assert_eq(nego("multipart/mixed;q=0.001"), MULTIPART);
  cr_assert_eq(nego("*/*, multipart/mixed;deferSpec=20220824"), LEGACY);
  cr_assert_eq(nego("text/event-stream, multipart/mixed"), SSE);
  cr_assert_eq(nego("multipart/mixed, text/event-stream"), MULTIPART);
  /* mercurius's accepted forms */
  cr_assert_eq(nego("application/json;q=0.9, multipart/mixed; q=0.5; "
                    "deferSpec=20220824"),
               LEGACY);
  cr_assert_eq(nego("multipart/mixed;deferSpec=\"20220824\""), LEGACY);
}

Test(incremental_http, parameters_are_read_with_care) {
  cr_assert_eq(nego("MULTIPART/Mixed; DEFERSPEC=20220824"), LEGACY);
  cr_assert_eq(nego("multipart/mixed;boundary=\"a,b;c\";deferSpec=20220824"),
               LEGACY, "a comma or semicolon inside quotes splits nothing");
  cr_assert_eq(nego("multipart/mixed;deferSpec=20230101"), NONE,
               "another version of the spec is not this one");
  cr_assert_eq(nego("multipart/mixed;incrementalSpec=v0.3, text/event-stream"),
               SSE);
  cr_assert_eq(nego("multipart/mixed;q=abc"), NONE, "an invalid weight");
  cr_assert_eq(nego("multipart/mixed;q=2"), NONE);
  cr_assert_eq(nego("multipart/mixed;subscriptionSpec=1.0"), MULTIPART);
  cr_assert_eq(nego(",,;,multipart,/,\"\",text/event-stream\""), NONE,
               "an unterminated quote swallows the rest");
}

/* Every prefix of a hostile header, and every byte value: no crash, a
 * value of the enum. */
Test(incremental_http, any_bytes_are_safe) {
  char buf[256];
  for (int i = 0; i < 256; i++)
    buf[i] = (char)i;
  for (size_t n = 0; n <= sizeof buf; n++)
    cr_assert_leq((int)gql_http_stream_negotiate(buf, n), (int)SSE);
}

/* The body of a response of `n` payloads in format `f`. */
static const char *body(gql_http_stream_format f, const char *const *payloads,
                        int n) {
  static char out[1024];
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    gql_http_frame fr = gql_http_stream_frame(f, i == 0, i == n - 1);
    at += (size_t)snprintf(out + at, sizeof out - at, "%.*s%s%.*s",
                           (int)fr.head_len, fr.head, payloads[i],
                           (int)fr.tail_len, fr.tail);
  }
  return out;
}

static const char *const three[] = {
    "{\"data\":{},\"pending\":[{\"id\":\"0\",\"path\":[]}],\"hasNext\":true}",
    "{\"hasNext\":true}", "{\"hasNext\":false,\"completed\":[{\"id\":\"0\"}]}"};

Test(incremental_http, multipart_is_the_rfc_body_with_each_delimiter_at_once) {
  cr_assert_str_eq(
      body(MULTIPART, three, 3),
      "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
      "{\"data\":{},\"pending\":[{\"id\":\"0\",\"path\":[]}],\"hasNext\":true}"
      "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
      "{\"hasNext\":true}"
      "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
      "{\"hasNext\":false,\"completed\":[{\"id\":\"0\"}]}"
      "\r\n-----\r\n");
  /* a part's delimiter goes out with it: what a reader holds after each
   * payload already ends with the delimiter that completes that part */
  gql_http_frame first = gql_http_stream_frame(MULTIPART, true, false);
  cr_assert_eq(first.tail_len, 5);
  cr_assert(memcmp(first.tail, "\r\n---", 5) == 0);
  cr_assert_str_eq(body(LEGACY, three, 1),
                   "\r\n---\r\nContent-Type: application/json; "
                   "charset=utf-8\r\n\r\n{\"data\":{},\"pending\":[{\"id\":"
                   "\"0\",\"path\":[]}],\"hasNext\":true}\r\n-----\r\n");
}

Test(incremental_http, sse_sends_next_events_then_complete) {
  cr_assert_str_eq(body(SSE, three + 1, 2),
                   "event: next\ndata: {\"hasNext\":true}\n\n"
                   "event: next\ndata: {\"hasNext\":false,\"completed\":[{"
                   "\"id\":\"0\"}]}\n\nevent: complete\ndata:\n\n");
  gql_http_frame none = gql_http_stream_frame(NONE, true, true);
  cr_assert_eq(none.head_len + none.tail_len, 0);
}

Test(incremental_http, content_types_name_the_boundary_and_the_spec) {
  cr_assert_str_eq(gql_http_stream_content_type(MULTIPART),
                   "multipart/mixed; boundary=\"-\"; incrementalSpec=v0.2");
  cr_assert_str_eq(gql_http_stream_content_type(LEGACY),
                   "multipart/mixed; boundary=\"-\"; deferSpec=20220824");
  cr_assert_str_eq(gql_http_stream_content_type(SSE),
                   "text/event-stream; charset=utf-8");
  cr_assert_null(gql_http_stream_content_type(NONE));
  /* what the refusal's Accept names is accepted */
  cr_assert_neq(nego(gql_http_stream_accept), NONE);
  cr_assert(strstr(gql_http_stream_refusal_message, "@defer or @stream"));
}

Test(incremental_http, chunk_sizes_in_hex) {
  char b[20];
  cr_assert_eq(gql_http_chunk_head(b, 1), 3);
  cr_assert(memcmp(b, "1\r\n", 3) == 0);
  cr_assert_eq(gql_http_chunk_head(b, 255), 4);
  cr_assert(memcmp(b, "ff\r\n", 4) == 0);
  cr_assert_eq(gql_http_chunk_head(b, 4096), 6);
  cr_assert(memcmp(b, "1000\r\n", 6) == 0);
  cr_assert_eq(gql_http_chunk_head(b, SIZE_MAX), 18);
  cr_assert(memcmp(b, "ffffffffffffffff\r\n", 18) == 0);
}
