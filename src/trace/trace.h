/* The tracer's internals: spans of one request (tracer.c), the operation
 * signature (signature.c), OTLP JSON encoding (otlp.c) and the exporter
 * queue and transports (exporter.c). */
#ifndef GQL_TRACE_H
#define GQL_TRACE_H

#include "../core/core.h"
#include "../execution/exec.h"

enum { SPAN_PARSE, SPAN_VALIDATE, SPAN_EXECUTE, SPAN_RESOLVE };

/* A string attribute (key and value in the trace arena). */
typedef struct trace_attr {
  gql_str key;
  gql_str value;
  struct trace_attr *next;
} trace_attr;

/* An event: dd.graphql.query.error or exception. */
typedef struct trace_event {
  uint64_t time_ns;
  const char *name;
  gql_str type, message;
  gql_str *locations; /* "line:column" */
  uint32_t nlocations;
  gql_str *path;
  uint32_t npath;
  struct trace_event *next;
} trace_event;

typedef struct trace_span {
  uint64_t id, parent; /* made by the exporter (gql_trace_span_id) */
  uint64_t start, end; /* clock ticks until encoded */
  uint8_t kind;
  bool ended;
  bool resource_pinned; /* the resource lives as long as the tracer */
  bool key_is_name;     /* a plan span whose key is its field's name */
  uint32_t idx;         /* in the trace's creation order */
  uint32_t lists;       /* a plan span: list levels above it */
  gql_str key;          /* a plan span: its key (path: see otlp_resolve) */
  gql_str name;
  gql_str resource;
  gql_str path; /* resolve */
  const gql_field *field;
  const gql_ast_selection *node;
  uint32_t ordinal; /* resolve: the plan field's */
  const char *error_type;
  gql_str error;
  trace_attr *attrs, *attrs_last;
  trace_event *events, *events_last;
  struct trace_span *kids, *next_kid; /* resolve spans parented here */
  struct trace_span *up;              /* the parent span (resolve spans) */
} trace_span;

/* ---- signature.c */
const gql_ast_operation *gql_trace_select_operation(const gql_document *doc,
                                                    const char *name);
/* "<type> <name>", "<type>" or "". */
gql_str gql_trace_fallback_resource(gql_arena *arena,
                                    const gql_ast_operation *op);

/* ---- otlp.c */
typedef struct otlp_ids {
  uint64_t trace_hi, trace_lo;
  uint64_t remote_parent; /* a trace continued from a traceparent: its
                           * parent span id (else 0) and tracestate */
  gql_str tracestate;
} otlp_ids;

/* Span ids: distinct within a trace (an odd multiplier is a bijection,
 * and so is the xor with the trace's random base) and non-zero but for a
 * 2^-64 chance, which takes the next index's id; no random draw per span.
 * Made by the exporter from the base and the span's index. */
static inline uint64_t gql_trace_span_id(uint64_t base, uint32_t idx) {
  uint64_t id = base ^ ((uint64_t)(idx + 1) * 0x9e3779b97f4a7c15u);
  return id ? id : base ^ ((uint64_t)(idx + 2) * 0x9e3779b97f4a7c15u);
}

/* What a resolve span's record says of its field: name, named type and
 * the type's wrappers (gql_type_ref.mods), from which the exporter makes
 * the resource; and its path, whole, or (relative) the key and the list
 * levels above it, after the parent's path. */
typedef struct otlp_resolve {
  gql_str name, type, mods;
  bool relative;
  gql_str key;
  uint32_t lists;
  gql_str path;
} otlp_resolve;

/* The records of one trace: this header, then gql_otlp_record per span in
 * creation order (a parent before its children), times in clock ticks
 * (the exporter converts them), no formatting on the request thread (the
 * names every span repeats become codes). */
void gql_otlp_trace_header(gql_buf *b, const otlp_ids *ids, uint64_t id_base,
                           uint32_t nspans);
/* parent: the parent's index + 1, 0 for none; r: a resolve span's. */
void gql_otlp_record(gql_buf *b, const trace_span *s, uint32_t parent,
                     const otlp_resolve *r);
/* gql_otlp_record of a plan span (key and list levels, path not built)
 * without attributes, error or events: the common resolve span. */
void gql_otlp_record_plan(gql_buf *b, const trace_span *s, uint32_t parent,
                          gql_str name, gql_str type, gql_str mods);
/* What gql_otlp_record_plan writes of a planned field but the parent,
 * start and end (the same for every request of the operation), into w
 * (NULL: only measured); returns its size. */
size_t gql_otlp_plan_blob(char *w, bool key_is_name, uint32_t lists,
                          gql_str name, gql_str type, gql_str mods,
                          gql_str key);
/* gql_otlp_record_plan's record from that blob (n bytes, readable 16
 * bytes past its end). */
void gql_otlp_record_blob(gql_buf *b, const char *blob, size_t n,
                          uint32_t parent, uint64_t start, uint64_t end);
/* The same record by reference: `ref` is the blob's pinned image (its
 * first 4 bytes, the kind and flags, replaced by the length of the rest;
 * alive until the records are encoded), `head` those 4 bytes. 32 bytes
 * whatever the field. */
void gql_otlp_record_ref(gql_buf *b, uint32_t head, const char *ref,
                         uint32_t parent, uint64_t start, uint64_t end);
/* A record by reference is 32 bytes; gql_otlp_put_ref writes one at w
 * (room reserved) with head_ref = gql_otlp_ref_head(the blob's first 4
 * bytes), for a writer of many (gql_otlp_record_ref: one). */
enum { OTLP_REF_RECORD = 32 };
uint32_t gql_otlp_ref_head(uint32_t head);
static inline char *gql_otlp_put_ref(char *w, uint32_t head_ref,
                                     const char *ref, uint32_t parent,
                                     uint64_t start, uint64_t end) {
  uint64_t e = end > start ? end : start;
  uintptr_t ptr = (uintptr_t)ref;
  memcpy(w, &head_ref, 4);
  memcpy(w + 4, &parent, 4);
  memcpy(w + 8, &start, 8);
  memcpy(w + 16, &e, 8);
  memcpy(w + 24, &ptr, sizeof ptr);
  return w + 24 + sizeof ptr;
}
/* Sets the span count of the trace header at the start of b. */
void gql_otlp_trace_header_count(gql_buf *b, uint32_t nspans);
/* Every record starts with 24 bytes: kind and flags, parent, start, end. */
enum { OTLP_RECORD_HEAD = 24 };
/* A record whose first 4 bytes are `head` and whose bytes past the times
 * are tail[0..n) (taken from an earlier gql_otlp_record of the same span
 * with pinned or copied contents). */
void gql_otlp_record_tail(gql_buf *b, uint32_t head, uint32_t parent,
                          uint64_t start, uint64_t end, const char *tail,
                          size_t n);
/* (The exporter turns the records into OTLP: otlp_batch.h.) */

/* ---- exporter.c */
/* Queues the span records in b: b's buffer is handed over (no copy) and
 * b gets a pooled one in exchange (empty, b->len 0). Never blocks for long:
 * drops and counts when the queue is full or b failed. */
void gql_tracer_push(gql_tracer *t, gql_buf *b, uint32_t nspans);
/* Ticks to Unix nanoseconds, and the current tick. */
uint64_t gql_tracer_now(const gql_tracer *t);
uint64_t gql_tracer_to_ns(const gql_tracer *t, uint64_t tick);
/* Whether the ticks are the time-stamp counter's (__rdtsc()). */
bool gql_tracer_tsc(const gql_tracer *t);
/* The signature cache, per prepared operation (checked by its text):
 * true and *out (valid while the tracer lives) on a hit. */
bool gql_tracer_cached_signature(gql_tracer *t, const gql_prepared *p,
                                 gql_str *out);
void gql_tracer_cache_signature(gql_tracer *t, const gql_prepared *p,
                                gql_str sig);
/* A copy of n bytes for operation p, alive as long as the tracer (16
 * zero bytes past its end), shared by the requests of p: NULL when the
 * store is full (a fixed number of operations and bytes). */
const char *gql_tracer_pin(gql_tracer *t, const gql_prepared *p,
                           const char *bytes, size_t n);
/* The pool of finished traces (get: NULL when empty; put destroys what
 * does not fit). */
gql_trace *gql_tracer_pool_get(gql_tracer *t);
void gql_tracer_pool_put(gql_tracer *t, gql_trace *tr);
/* Frees a trace (tracer.c). */
void gql_trace_destroy(gql_trace *tr);
/* A random non-zero 64-bit id. */
uint64_t gql_tracer_random(gql_tracer *t, uint64_t *state);

#endif
