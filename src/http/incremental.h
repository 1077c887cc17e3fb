/*
 * Incremental delivery over HTTP (@defer / @stream): which framing a
 * client's Accept header allows, and the bytes around each payload. Pure
 * functions on bytes (libc only), so that the server, the tests and a
 * fuzzer share them; the server writes head + payload + tail as they are
 * ready, in chunks of its own transfer encoding.
 *
 * multipart/mixed, boundary "-" (the GraphQL-over-HTTP incremental RFC; as
 * graphql-yoga and Apollo Server write it and meros and Apollo Client read
 * it): each payload is a part with `Content-Type: application/json;
 * charset=utf-8`, and the delimiter after a part is written with it, not
 * before the next one, because a reader hands a part over only when it
 * sees the delimiter that ends it:
 *
 *   \r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{...}
 *   \r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{...}
 *   \r\n-----\r\n
 *
 * text/event-stream (graphql-sse's distinct-connections mode, as
 * graphql-yoga sends incremental payloads): `event: next` with the payload
 * as its one data line, then `event: complete` with empty data:
 *
 *   event: next\ndata: {...}\n\n ... event: complete\ndata:\n\n
 */
#ifndef GQL_HTTP_INCREMENTAL_H
#define GQL_HTTP_INCREMENTAL_H

#include <stdbool.h>
#include <stddef.h>

typedef enum gql_http_stream_format {
  /* the client accepts neither: refuse (406, gql_http_stream_refusal) */
  GQL_HTTP_STREAM_NONE,
  /* multipart/mixed with graphql-js 17's payloads (pending / incremental /
   * completed): `multipart/mixed;incrementalSpec=v0.2` (Apollo Client 4's
   * GraphQL17Alpha9Handler), plain `multipart/mixed`, `multipart/` any or
   * any type */
  GQL_HTTP_STREAM_MULTIPART,
  /* multipart/mixed with the payloads of Apollo's deferSpec=20220824
   * (incremental entries with their own path and label; graphql-js 17's
   * legacyExecuteIncrementally): `multipart/mixed;deferSpec=20220824` */
  GQL_HTTP_STREAM_MULTIPART_LEGACY,
  /* text/event-stream with graphql-js 17's payloads: `text/event-stream`
   * or `text/` any */
  GQL_HTTP_STREAM_SSE,
} gql_http_stream_format;

/* The framing a response of several payloads takes for a request with this
 * Accept header (`len` bytes; an absent header is any type): of the
 * media ranges it names with a weight above 0, the one with the highest
 * weight (the first of equal ones) among those above; a multipart range
 * whose deferSpec or incrementalSpec names another version does not count.
 * Any bytes are safe to pass. */
gql_http_stream_format gql_http_stream_negotiate(const char *accept,
                                                 size_t len);

/* The Content-Type of such a response (NULL for GQL_HTTP_STREAM_NONE). */
const char *gql_http_stream_content_type(gql_http_stream_format f);

/* The bytes before and after one payload's JSON (compact: one line, as
 * gql's writer makes it). `first`: the response's first payload; `last`:
 * its last (hasNext false), whose tail ends the body. Static strings. */
typedef struct gql_http_frame {
  const char *head;
  size_t head_len;
  const char *tail;
  size_t tail_len;
} gql_http_frame;

gql_http_frame gql_http_stream_frame(gql_http_stream_format f, bool first,
                                     bool last);

/* The refusal of an operation that would deliver incrementally to a
 * client that accepts neither framing: status 406 Not Acceptable (as
 * graphql-http answers an unacceptable Accept), this GraphQL error
 * message in the JSON response, and this Accept header in the response
 * naming what would do. */
#define GQL_HTTP_STREAM_REFUSAL_STATUS 406
extern const char gql_http_stream_refusal_message[];
extern const char gql_http_stream_accept[];

/* HTTP/1.1 chunked transfer coding: the chunk-size line for a chunk of `n`
 * bytes (n > 0) into `out` (at least 20 bytes), its length returned; the
 * chunk's data is followed by "\r\n", and the body ends with
 * GQL_HTTP_LAST_CHUNK. */
size_t gql_http_chunk_head(char *out, size_t n);
#define GQL_HTTP_LAST_CHUNK "0\r\n\r\n"

#endif
