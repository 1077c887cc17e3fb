/* Persisted operations: Automatic Persisted Queries (APQ) as Apollo defines
 * them, persisted documents from a manifest (safelisting), and the store
 * that shares APQ registrations between replicas through Redis.
 *
 * Three pieces, so that the rules are testable without I/O:
 *  - the manifest (manifest.c): Apollo's persisted-query-manifest.json or a
 *    plain {"id": "document"} map, read into an immutable table;
 *  - the decision (persisted.c): given a request's query, documentId and
 *    extensions, what to run, what to look up, or which error to answer,
 *    with Apollo Router's codes, messages and HTTP statuses;
 *  - the store (store.c): a bounded local LRU in front of Redis. A lookup
 *    answers from the LRU at once, or asks Redis with a short deadline; with
 *    Redis down or slow it answers "not found" (APQ clients then resend the
 *    full query) and never waits.
 *
 * Errors follow Apollo Router (apq and persisted_queries layers); where
 * GraphQL Hive / Yoga differ, the comment says so. */
#ifndef GQL_PUBSUB_PERSISTED_H
#define GQL_PUBSUB_PERSISTED_H

#include "core/core.h"
#include "redis.h"
#include "json/json.h"

/* ---- SHA-256 (OpenSSL libcrypto) */

/* The lowercase hex SHA-256 of s[0..n) into out (64 digits and a NUL). */
void gql_pq_sha256_hex(const char *s, size_t n, char out[65]);

/* ---- the manifest */

typedef struct gql_pq_manifest gql_pq_manifest;

typedef struct gql_pq_manifest_options {
  size_t max_bytes;          /* of JSON text (0: 64 MiB) */
  uint32_t max_operations;   /* (0: 1,000,000) */
  size_t max_document_bytes; /* one body (0: 1 MiB) */
} gql_pq_manifest_options;

/* Reads a manifest:
 *   {"format": "apollo-persisted-query-manifest", "version": 1,
 *    "operations": [{"id": ..., "name": ..., "type": ..., "body": ...}]}
 * (id and body required strings; name, type and clientName optional; type
 * one of query, mutation, subscription), or a plain map {"id": "body", ...}
 * (every value a string). An id listed twice with different bodies is an
 * error. 0, or GQL_EJSON / GQL_EINVAL / GQL_ELIMIT / GQL_ENOMEM with a
 * message in err ("operations[3].body: expected a string"). */
int gql_pq_manifest_parse(const char *json, size_t len,
                          const gql_pq_manifest_options *o,
                          gql_pq_manifest **out, char *err, size_t err_len);
void gql_pq_manifest_free(gql_pq_manifest *m);
uint32_t gql_pq_manifest_count(const gql_pq_manifest *m);
/* Operation i (< count): its id and body. */
void gql_pq_manifest_op(const gql_pq_manifest *m, uint32_t i, gql_str *id,
                        gql_str *body);
/* The body persisted under `id`. */
bool gql_pq_manifest_get(const gql_pq_manifest *m, gql_str id, gql_str *body);
/* Safelisting: true when `body`, normalized as Apollo Router normalizes
 * (parsed; operations, then fragments, each sorted by name; printed: so
 * whitespace, commas, comments and definition order do not matter, field
 * order does), equals a normalized manifest body. A body that does not
 * parse matches only byte for byte. `scratch` holds the work. */
bool gql_pq_manifest_allows(const gql_pq_manifest *m, gql_str body,
                            gql_arena *scratch);
/* The normalized form used by gql_pq_manifest_allows, in `arena`. */
gql_str gql_pq_normalize(gql_str body, gql_arena *arena);

/* ---- the decision */

/* X(NAME, extensions.code, HTTP status, no-cache, message): the message
 * of NOT_IN_LIST takes the id (%s). */
#define GQL_PQ_ERRORS(X)                                                       \
  X(NOT_FOUND, "PERSISTED_QUERY_NOT_FOUND", 200, true,                         \
    "PersistedQueryNotFound")                                                  \
  X(NOT_SUPPORTED, "PERSISTED_QUERY_NOT_SUPPORTED", 200, false,                \
    "PersistedQueryNotSupported")                                              \
  X(HASH_MISMATCH, "PERSISTED_QUERY_HASH_MISMATCH", 400, false,                \
    "provided sha does not match query")                                       \
  X(BAD_VERSION, "BAD_REQUEST", 400, false,                                    \
    "Unsupported persisted query version")                                     \
  X(BAD_HASH, "BAD_REQUEST", 400, false,                                       \
    "extensions.persistedQuery.sha256Hash must be a SHA-256 hash: 64 "         \
    "hexadecimal digits")                                                      \
  X(BAD_EXTENSION, "BAD_REQUEST", 400, false,                                  \
    "extensions.persistedQuery must be an object with version and "            \
    "sha256Hash")                                                              \
  X(BAD_ID, "BAD_REQUEST", 400, false,                                         \
    "documentId must be a non-empty string of at most 1024 bytes")             \
  X(NOT_IN_LIST, "PERSISTED_QUERY_NOT_IN_LIST", 404, true,                     \
    "Persisted query '%s' not found in the persisted query list")              \
  X(ID_AND_BODY, "CANNOT_SEND_PQ_ID_AND_BODY", 400, true,                      \
    "Sending a persisted query ID and a body in the same request is "          \
    "disallowed")                                                              \
  X(NOT_IN_SAFELIST, "QUERY_NOT_IN_SAFELIST", 403, true,                       \
    "The operation body was not found in the persisted query safelist")        \
  X(ID_REQUIRED, "PERSISTED_QUERY_ID_REQUIRED", 400, false,                    \
    "This endpoint does not allow freeform GraphQL requests; operations "      \
    "must be sent by ID in the persisted queries GraphQL extension.")

typedef enum gql_pq_error {
  GQL_PQ_ENONE,
#define GQL_PQ_ERROR_ENUM_(n, c, s, nc, m) GQL_PQ_E##n,
  GQL_PQ_ERRORS(GQL_PQ_ERROR_ENUM_)
#undef GQL_PQ_ERROR_ENUM_
} gql_pq_error;

/* extensions.code, HTTP status, and whether the answer must not be cached
 * (Cache-Control: private, no-cache, must-revalidate), as Apollo Router. */
const char *gql_pq_error_code(gql_pq_error e);
int gql_pq_error_status(gql_pq_error e);
bool gql_pq_error_no_cache(gql_pq_error e);

typedef enum gql_pq_safelist {
  GQL_PQ_SAFELIST_OFF,       /* freeform operations run */
  GQL_PQ_SAFELIST_ON,        /* freeform bodies must be in the manifest */
  GQL_PQ_SAFELIST_REQUIRE_ID /* only ids: freeform refused */
} gql_pq_safelist;

typedef struct gql_pq_config {
  bool apq;                        /* Automatic Persisted Queries on */
  const gql_pq_manifest *manifest; /* persisted documents (NULL: none) */
  gql_pq_safelist safelist;        /* needs the manifest (NULL: empty) */
} gql_pq_config;

/* What the HTTP layer read from the request. */
typedef struct gql_pq_request {
  bool has_query;
  gql_str query;
  bool has_document_id; /* "documentId" (body, or GET parameter) */
  gql_str document_id;
  const gql_json_value *extensions; /* the extensions object, or NULL */
} gql_pq_request;

typedef enum gql_pq_action {
  GQL_PQ_RUN,      /* run `query` */
  GQL_PQ_LOOKUP,   /* look `key` up in the store, then gql_pq_found */
  GQL_PQ_NO_QUERY, /* nothing to run: the server's own "missing query" */
  GQL_PQ_ERROR     /* answer `error` with `message` */
} gql_pq_action;

typedef struct gql_pq_decision {
  gql_pq_action action;
  gql_pq_error error;
  const char *message; /* ERROR: in the arena (or static) */
  gql_str query;       /* RUN */
  char key[65];        /* LOOKUP, and RUN with register_apq: hex SHA-256 */
  /* RUN: store `query` under `key` once it has validated (Apollo writes
   * only after the operation resolved, so a bad document is not kept). */
  bool register_apq;
  bool from_manifest; /* RUN: the body came from the manifest */
  bool lookup_apq;    /* LOOKUP: a miss is NOT_FOUND (else NOT_IN_LIST) */
} gql_pq_decision;

/* Decides (no I/O; the safelist check parses in `arena`). 0, or
 * GQL_ENOMEM. */
int gql_pq_decide(const gql_pq_config *cfg, const gql_pq_request *req,
                  gql_arena *arena, gql_pq_decision *d);
/* A LOOKUP answered: RUN `text` (found) or the miss's error. */
void gql_pq_found(gql_pq_decision *d, bool found, gql_str text,
                  gql_arena *arena);
/* {"errors":[{"message":...,"extensions":{"code":...}}]} for an ERROR. */
void gql_pq_error_json(const gql_pq_decision *d, gql_buf *out);

/* ---- the store */

typedef struct gql_pq_store gql_pq_store;

typedef struct gql_pq_store_options {
  size_t local_bytes;         /* LRU budget (0: 8 MiB) */
  const char *prefix;         /* Redis key prefix (NULL: "apq:") */
  uint32_t ttl_s;             /* SET ... EX ttl_s (0: no expiry) */
  uint32_t lookup_timeout_ms; /* Redis GET deadline (0: 50) */
  size_t max_query_bytes;     /* larger queries are not kept (0: 1 MiB) */
} gql_pq_store_options;

typedef struct gql_pq_store_stats {
  uint64_t local_hits, redis_hits, misses;
  uint64_t redis_refused; /* lookups answered at once: Redis down / full */
  uint64_t redis_failed;  /* timeouts and errors */
  uint64_t corrupt;       /* Redis values whose hash did not match */
  uint64_t puts, put_failed, evictions;
  size_t bytes;
  uint32_t entries;
} gql_pq_store_stats;

/* redis may be NULL (local only). 0 or GQL_ENOMEM. */
int gql_pq_store_new(gql_redis *redis, const gql_pq_store_options *o,
                     gql_pq_store **out);
/* Pending lookups are answered "not found" (their callbacks still come,
 * from the Redis client). */
void gql_pq_store_free(gql_pq_store *s);

/* text valid during the call. */
typedef void (*gql_pq_lookup_cb)(void *ud, bool found, gql_str text);

enum { GQL_PQ_MISS = 0, GQL_PQ_HIT = 1, GQL_PQ_PENDING = 2 };
/* Looks `key` (64 hex digits) up: HIT with *text copied into `arena`, MISS
 * (answer now), or PENDING: cb comes later, exactly once, from the loop. */
int gql_pq_store_get(gql_pq_store *s, const char *key, gql_arena *arena,
                     gql_str *text, gql_pq_lookup_cb cb, void *ud);
/* Keeps `text` under `key` locally and in Redis (fire and forget). */
void gql_pq_store_put(gql_pq_store *s, const char *key, gql_str text);
void gql_pq_store_stats_get(const gql_pq_store *s, gql_pq_store_stats *out);

#endif
