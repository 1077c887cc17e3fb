/*
 * Apollo's `deferSpec=20220824` incremental format, converted from
 * graphql-js 17's (the one gql's executor and gateway write): a pure
 * payload-to-payload filter (libc only), so that gql serve and the gateway
 * both answer `Accept: multipart/mixed;deferSpec=20220824` and a fuzzer
 * and the corpus test drive it alone.
 *
 * graphql-js 17 announces each deferred fragment or stream once
 * (`pending`: id, path, label) and then refers to it by id (`incremental`
 * entries with `id` and `subPath`, `completed`). The legacy format (as
 * graphql-js 17's legacyExecuteIncrementally writes it, which Apollo
 * Client's Defer20220824Handler and Apollo Router's clients read) has no
 * ids: every `incremental` entry carries its full `path` and `label`, a
 * stream's items the path of their first item's index, and a fragment or
 * stream that failed is an entry `{"data": null}` / `{"items": null}` with
 * the errors. So the converter keeps a table id -> path, label, and for a
 * stream the count of items delivered (from the list's length where it was
 * announced), bounded by GQL_HTTP_LEGACY_MAX_TABLE bytes.
 *
 *   {"data":...,"pending":[{"id":"0","path":["hero"],"label":"a"}],"hasNext":true}
 *     -> {"data":...,"hasNext":true}
 *   {"hasNext":false,"incremental":[{"id":"0","data":{...},"subPath":["x"]}],
 *    "completed":[{"id":"0"}]}
 *     -> {"hasNext":false,"incremental":[{"data":{...},"path":["hero","x"],
 *         "label":"a"}]}
 *
 * A payload it cannot convert (not JSON of that shape, an id never
 * announced, the table full, out of memory) becomes a payload with one
 * error that says why, and every later one a bare {"hasNext":...}, so the
 * response still ends as the execution does.
 */
#ifndef GQL_HTTP_INCREMENTAL_LEGACY_H
#define GQL_HTTP_INCREMENTAL_LEGACY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bytes the id table holds (ids, paths, labels, the buckets)
 * before the conversion gives up with an error. */
#define GQL_HTTP_LEGACY_MAX_TABLE ((size_t)16 << 20)

typedef enum gql_http_legacy_status {
  GQL_HTTP_LEGACY_OK,
  GQL_HTTP_LEGACY_ENOMEM,
  GQL_HTTP_LEGACY_TABLE_FULL,  /* more than max_table bytes pending */
  GQL_HTTP_LEGACY_BAD_PAYLOAD, /* not a payload of graphql-js 17's shape */
  GQL_HTTP_LEGACY_UNKNOWN_ID,  /* an id no `pending` announced */
} gql_http_legacy_status;

struct gql_http_legacy_entry;

/* A conversion's state: all zero is a new one (so it may live, zeroed, in
 * another struct); gql_http_legacy_free releases what it holds. */
typedef struct gql_http_legacy {
  struct gql_http_legacy_entry **buckets; /* id -> entry, chained */
  size_t nbuckets, count;
  size_t table_bytes; /* held by the table */
  size_t max_table;   /* 0: GQL_HTTP_LEGACY_MAX_TABLE */
  char *out;          /* the converted payload */
  size_t out_len, out_cap;
  struct gql_http_legacy_work *work; /* one payload's, kept for the next */
  unsigned payloads;                 /* converted so far */
  gql_http_legacy_status failed;
  bool out_failed;
} gql_http_legacy;

/* Converts one payload of graphql-js 17's format (`len` bytes of JSON, the
 * response's next; `has_next` what its hasNext says, for the error
 * payloads) to deferSpec=20220824's: *out, *out_len (valid until the next
 * call or the free). The status of this payload (OK, or why it became an
 * error payload; later ones after a failure are OK and bare). Never fails
 * to give a payload. */
gql_http_legacy_status gql_http_legacy_convert(gql_http_legacy *l,
                                               const char *json, size_t len,
                                               bool has_next, const char **out,
                                               size_t *out_len);

/* The message of a status (the error payload's). */
const char *gql_http_legacy_message(gql_http_legacy_status st);

void gql_http_legacy_free(gql_http_legacy *l);

#endif
