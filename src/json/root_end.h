/*
 * Root-end scanner: tells, read by read, when the JSON root value of a
 * subgraph response body has closed, so that the gateway can hand the
 * document to the parser without waiting for the end of the HTTP body
 * (the chunked terminator often arrives in a later segment).
 *
 * The root must be an object or an array. The scanner answers ENDED only
 * when the root closed and the rest of that same read is whitespace;
 * non-whitespace after the root in the same read gives TRAILING (the body
 * is not one JSON value: read it to the end and let the parser say why).
 * It does not validate JSON; it only tracks strings, escapes and nesting
 * (64-bit masks per 64-byte block, as simdjson's stage 1), so the
 * parser remains the judge of the document.
 *
 * State is a few words carried across blocks and reads; the answer is the
 * same for every split of the body into reads. After ENDED, TRAILING or
 * BAD_START the answer is sticky and later reads are not examined.
 */
#ifndef GQL_JSON_ROOT_END_H
#define GQL_JSON_ROOT_END_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gql_root_end_status {
  GQL_ROOT_END_MORE,     /* the root has not closed yet: feed the next read */
  GQL_ROOT_END_ENDED,    /* closed; `length` is the document's byte length */
  GQL_ROOT_END_TRAILING, /* closed, but non-whitespace followed in the read */
  GQL_ROOT_END_BAD_START /* the first non-whitespace byte is not { or [ */
} gql_root_end_status;

/* Which block implementation a scanner uses. */
typedef enum gql_root_end_impl {
  GQL_ROOT_END_AUTO,     /* the best the CPU supports (gql_root_end_init) */
  GQL_ROOT_END_PORTABLE, /* masks built by a byte loop: any CPU */
  GQL_ROOT_END_SSE2,     /* x86 only */
  GQL_ROOT_END_AVX2,     /* x86 only, when the CPU has AVX2 */
  GQL_ROOT_END_REFERENCE /* a plain byte-at-a-time state machine (tests) */
} gql_root_end_impl;

typedef struct gql_root_end {
  uint64_t consumed; /* bytes of earlier reads */
  uint64_t depth;    /* open { and [ outside strings */
  uint64_t length;   /* ENDED: bytes up to and including the root's closer */
  bool started;      /* the first non-whitespace byte was seen */
  bool in_string;    /* the last byte seen is inside a string */
  bool escape_carry; /* the next byte is escaped (odd backslash run) */
  uint8_t status;    /* gql_root_end_status, sticky once not MORE */
  uint8_t impl;      /* gql_root_end_impl, never AUTO after init */
} gql_root_end;

/* Starts a scan with the fastest implementation the CPU supports. */
void gql_root_end_init(gql_root_end *s);
/* Starts a scan with a given implementation. Returns false (and leaves *s
 * unusable) when this CPU or build lacks it. */
bool gql_root_end_init_impl(gql_root_end *s, gql_root_end_impl impl);
/* True when this CPU and build can run `impl`. */
bool gql_root_end_supported(gql_root_end_impl impl);

/* Feeds the next read of the body. */
gql_root_end_status gql_root_end_feed(gql_root_end *s, const void *buf,
                                      size_t len);

#endif
