/* W3C Trace Context (https://www.w3.org/TR/trace-context/): the
 * traceparent and tracestate headers read and written as pure functions
 * (context.c), and a trace continued from them (gql_trace_set_parent,
 * tracer.c). The HTTP server reads them from a request; the gateway sends
 * them to its subgraphs with its own span as the parent. */
#ifndef GQL_TRACE_CONTEXT_H
#define GQL_TRACE_CONTEXT_H

#include "gql.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
  GQL_TRACEPARENT_LEN = 55, /* "00-" 32 hex "-" 16 hex "-" 2 hex */
  GQL_TRACESTATE_MAX = 512, /* what is propagated at most */
  GQL_TRACESTATE_MEMBERS = 32
};

typedef struct gql_trace_context {
  uint64_t trace_hi, trace_lo; /* the trace id, never all zero */
  uint64_t parent_id;          /* the caller's span id, never zero */
  uint8_t flags;               /* trace-flags; bit 0: sampled */
  /* tracestate, checked and in its normal form (no blanks around
   * members, no empty member): pass it on as it is */
  char tracestate[GQL_TRACESTATE_MAX + 1];
  size_t tracestate_len;
} gql_trace_context;

/* Reads a traceparent header value (blanks around it ignored). Version 00
 * must be exactly 55 characters, lowercase hex, with a non-zero trace id
 * and parent id; a later version (not ff) is read by the same fields when
 * it has at least 55 characters and a '-' after the flags if longer (the
 * spec's forward compatibility). 0, or GQL_EINVAL: then the caller starts a
 * new trace and ignores tracestate. Sets everything but tracestate. */
int gql_traceparent_parse(const char *s, size_t n, gql_trace_context *out);

/* The traceparent header for a request made within trace c with span_id
 * as the parent (version 00): 55 characters and a NUL into out. */
void gql_traceparent_format(const gql_trace_context *c, uint64_t span_id,
                            char out[GQL_TRACEPARENT_LEN + 1]);

/* Reads a tracestate header value (the field's lines joined by ','):
 * list-members "key=value" separated by ',' and optional blanks, empty
 * members skipped; keys per the spec's grammar (simple or tenant@system),
 * unique; values of 1-256 printable characters, no ',' or '=', no
 * trailing space; at most 32 members. Writes the normal form into c
 * (members longer than 128 characters dropped first, then the last ones,
 * while it exceeds 512 characters). 0, or GQL_EINVAL (c->tracestate
 * emptied): the whole header is then dropped, never a part of it. */
int gql_tracestate_parse(const char *s, size_t n, gql_trace_context *c);

/* Continues the trace of a traceparent: the trace takes c's trace id and
 * tracestate, and its spans without a parent of their own (parse,
 * validate, execute) get c's parent id as theirs (flagged remote).
 * Call after gql_trace_begin, before gql_trace_end. NULL c: no-op. */
void gql_trace_set_parent(gql_trace *tr, const gql_trace_context *c);

#endif
