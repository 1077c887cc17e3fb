/* The tracer's internals: spans of one request (tracer.c, hooks.c,
 * finish.c, spans.c), the operation signature (signature.c), the span
 * records (records.c; OTLP encoding: otlp_batch.h) and the exporter queue
 * (exporter.c). */
#ifndef GQL_TRACE_H
#define GQL_TRACE_H

#include "../core/core.h"
#include "clock.h"

#include "../execution/exec.h"
#include "../execution/hooks.h"
#include <pthread.h>
#include <stdatomic.h>

enum {
  SPAN_PARSE,
  SPAN_VALIDATE,
  SPAN_EXECUTE,
  SPAN_RESOLVE,
  /* an embedder's (gql_trace_span_start), by OTLP kind */
  SPAN_INTERNAL,
  SPAN_SERVER,
  SPAN_CLIENT
};
/* The OTLP SpanKind of a span: SERVER for the execute span and an
 * embedder's server span, CLIENT for its client spans, else INTERNAL. */
static inline int gql_otlp_kind(uint8_t kind) {
  return kind == SPAN_EXECUTE || kind == SPAN_SERVER ? 2
         : kind == SPAN_CLIENT                       ? 3
                                                     : 1;
}

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

/* ---- a tracer: exporter.c (queue, thread, caches), tracer.c (the pool of
 * traces, gql_tracer_new and _free) */

enum { SIG_CACHE = 64 };

typedef struct sig_entry {
  /* published last (release), read without the lock (acquire) */
  _Atomic(const gql_prepared *) p;
  char *text; /* the operation's text and name, to tell a reused address */
  size_t text_len;
  const char *op;
  char *sig;
  size_t sig_len;
} sig_entry;

/* Pinned bytes (gql_tracer_pin): per prepared operation, alive as long as
 * the tracer, at most PIN_BYTES in all. */
enum { PIN_CACHE = 64, PIN_BYTES = 1 << 20 };

typedef struct pin_entry {
  const gql_prepared *p; /* under sig_mu */
  char *text;
  size_t text_len;
  const char *op;
  char *bytes;
  size_t n;
} pin_entry;

enum { TRACE_POOL = 64 };

struct gql_tracer {
  gql_exec_tracer exec; /* first: the executor's way in (hooks.h) */
  gql_tracer_config c;
  /* one pooled trace taken and given back with an atomic exchange; the
   * mutex-guarded pool behind it */
  _Atomic(gql_trace *) slot;
  pthread_mutex_t pool_mu;
  gql_trace *pool[TRACE_POOL];
  uint32_t npool;
  pthread_mutex_t sig_mu;
  sig_entry sigs[SIG_CACHE];
  pin_entry pins[PIN_CACHE]; /* under sig_mu */
  size_t pinned_bytes;
  char service[256];
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  struct chunk *head, *tail;
  struct chunk *spare; /* the chunk pool */
  size_t spare_bytes, spare_max;
  uint32_t queued_spans;
  uint32_t sending_spans;        /* in the batch being sent */
  uint64_t pushed_seq, done_seq; /* chunks pushed / exported or dropped */
  uint32_t flushing;             /* callers waiting in gql_tracer_flush */
  bool gave_up; /* a flush timed out and no batch was exported since */
  bool stop, busy, thread_started;
  pthread_t thread;
  gql_tracer_stats stats;
  gql_buf wire; /* the request body being encoded (exporter thread) */
  gql_trace_clock clock;
  uint64_t seed;
};

/* The exporter's part of gql_tracer_new (the configuration with its
 * defaults, the clock, locks and thread) and of gql_tracer_free (a last
 * bounded flush, the thread stopped, what is queued dropped, caches and
 * locks freed). */
int gql_tracer_start(gql_tracer *t, const gql_tracer_config *config);
void gql_tracer_stop(gql_tracer *t);

/* ---- signature.c */
const gql_ast_operation *gql_trace_select_operation(const gql_document *doc,
                                                    const char *name);
/* "<type> <name>", "<type>" or "". */
gql_str gql_trace_fallback_resource(gql_arena *arena,
                                    const gql_ast_operation *op);

/* ---- records.c (the format: otlp_records.h) */
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

/* ---- one traced request (tracer.c, hooks.c, finish.c, spans.c) */

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GQL_TRACE_HAVE_TSC 1
#endif

/* A path of the per-trace table (open addressing, in the arena). */
typedef struct path_slot {
  const char *ptr;
  uint32_t len;
  uint32_t idx; /* into spans */
} path_slot;

/* What the tracer needs of a planned field, from one walk of the plan. */
typedef struct plan_info {
  const plan_field *pf; /* NULL: a field the walk missed */
  uint32_t parent;      /* the parent planned field's ordinal, or NO_PARENT */
  uint16_t lists;       /* list levels between the parent field and this one */
  uint16_t depth;       /* named path segments (a root field: 1) */
  bool composite;
  bool key_is_name; /* no alias: the records need not repeat the key */
  bool shared;      /* under an abstract type: its collapsed path may be
                     * another planned field's too (see plan_span) */
} plan_info;

/* What a planned field's record by reference repeats per request: its
 * pinned image (NULL: none, the record is made another way), the head
 * (gql_otlp_ref_head) and the parent planned field's ordinal. */
typedef struct rec_ref {
  const char *ref;
  uint32_t head;
  uint32_t parent;
} rec_ref;

/* What the last operation this trace served left (the trace is pooled,
 * and one thread serving requests one after the other gets it back):
 * its plan facts and its cached signature, valid for the same operation
 * (the same prepared operation's address, plan, schema and text). */
typedef struct op_memo {
  const gql_prepared *p;
  const void *root, *schema, *op;
  char *text; /* a copy, compared */
  size_t text_len;
  uint32_t n;
  plan_info *plan; /* n entries, or NULL */
  /* per planned field, its record's blob (gql_otlp_plan_blob):
   * blobs[blob_off[k]..blob_off[k + 1]) (empty: none), 16 bytes of slack */
  char *blobs;
  uint32_t *blob_off;
  /* the blobs' image pinned in the tracer (gql_tracer_pin; each blob's
   * first 4 bytes replaced by the length of the rest), for records by
   * reference (gql_otlp_record_ref), or NULL */
  const char *pinned;
  gql_str sig; /* the tracer's cached signature (alive as long as the
                * tracer), or empty */
  /* entry mode's answers (gql_trace_entry_answer, n entries) for depth
   * answers_depth, when answers_ok */
  uint8_t *answers;
  int32_t answers_depth;
  bool answers_ok;
  /* the execute span's record past its times (gql_otlp_record_tail):
   * name, pinned resource and the operation's tags, the same for every
   * request of the operation with this no_signature, when exec_len */
  char *exec_img;
  size_t exec_len, exec_cap;
  uint32_t exec_head; /* its first 4 bytes: kind and flags */
  bool exec_nosig;
  /* per planned field, its record by reference's fixed parts (n entries,
   * when refs_ok: every blob pinned) */
  struct rec_ref *refs;
  bool refs_ok;
} op_memo;

enum { SPANS_INLINE = 4 };

struct gql_trace {
  /* first: gql_execute_params.trace is read as one (execution/hooks.h) */
  gql_exec_hooks hooks;
  gql_tracer *tracer;
  gql_trace_options o;
  gql_trace_subscriber sub;
  bool aborted;
  bool aborted_at_start;
  bool queued;
  const gql_prepared *p;
  const char *vars_json;
  size_t vars_len;
  trace_span *parse, *validate, *exec;
  trace_span **spans; /* every span, in creation order */
  uint32_t nspans, cap;
  trace_span *slab; /* spans[slab_base..cap) live here */
  uint32_t slab_base;
  trace_span **owners; /* by plan field ordinal (collapsing) */
  uint8_t *calls;      /* by plan field ordinal: hooks.calls (see below) */
  uint64_t *stamps;    /* by plan field ordinal: hooks.stamps */
  plan_info *plan;     /* by plan field ordinal (collapsing) */
  uint32_t nowners;
  path_slot *paths; /* path string → index in spans (resolve spans) */
  uint32_t npaths, paths_cap;
  bool tsc;          /* the tracer's clock is the time-stamp counter */
  bool memo_hit;     /* tr->p is memo.p's operation */
  bool lean;         /* plan, calls and stamps, no variable tags (lean_first) */
  bool mixed;        /* a resolve_start took the general path (see
                        gql_trace_finish_lean) */
  const char *blobs; /* memo.blobs and blob_off when they are this */
  const uint32_t *blob_off; /* operation's, or NULL */
  const char *pinned;       /* memo.pinned then, or NULL */
  const rec_ref *refs;      /* memo.refs then, or NULL */
  /* Entry mode (see gql_trace_entry_answer): the resolve spans are not made
   * during the execution; the executor stamps each planned field's first call
   * into starts[ordinal] (hooks.starts), its completions into stamps, and
   * the spans become records at the finish (gql_trace_finish_entry), or structs
   * when the general path is needed (gql_trace_entry_leave). */
  bool entry;
  uint64_t *starts; /* by plan field ordinal: hooks.starts */
  gql_str *errs;    /* by plan field ordinal: the first error, or NULL */
  uint32_t *order;  /* nowners * 2: the order of first calls, positions */
  /* a trace continued from a traceparent (gql_trace_set_parent): its ids,
   * the remote parent (0: none) and tracestate (in the arena) */
  uint64_t remote_hi, remote_lo, remote_parent;
  gql_str remote_state;
  /* the trace id and span id base once gql_trace_id or a traceparent drew
   * them (ids_fixed) */
  uint64_t id_hi, id_lo, id_base;
  bool ids_fixed;
  /* ---- kept across requests (gql_trace_begin clears what comes before) */
  gql_arena *arena;
  gql_buf scratch; /* the records, reused */
  op_memo memo;    /* see op_memo */
  /* the first spans and their pointers (execute, parse, validate): no
   * arena call for them (gql_trace_span_alloc) */
  trace_span *spans0[SPANS_INLINE];
  trace_span span0[SPANS_INLINE];
};

/* The tracer's clock, inline when it is the time-stamp counter. */
static inline uint64_t now_of(const gql_trace *tr) {
#ifdef GQL_TRACE_HAVE_TSC
  if (GQL_LIKELY(tr->tsc))
    return __rdtsc();
#endif
  return gql_trace_clock_now(tr->tracer ? &tr->tracer->clock : NULL);
}

/* With collapsing, one entry per planned field: its span, GATED, or NULL
 * before its first call. */
#define GATED ((trace_span *)(uintptr_t)1)

#define NO_PARENT UINT32_MAX

/* spans.c */
trace_span *gql_trace_span_alloc(gql_trace *tr, uint8_t kind, gql_str name);
trace_span *gql_trace_span_new(gql_trace *tr, uint8_t kind, gql_str name);
void gql_trace_attr_add(gql_trace *tr, trace_span *s, gql_str key, gql_str v);
gql_str gql_trace_arena_str(gql_trace *tr, const char *p, size_t n);
void gql_trace_error_event(gql_trace *tr, trace_span *s, const char *message,
                           const gql_location *locs, uint32_t nlocs,
                           const char *path_json);
void gql_trace_execute_tags(gql_trace *tr, trace_span *s);
void gql_trace_resolve_tags(gql_trace *tr, trace_span *s);
void gql_trace_variable_tags(gql_trace *tr, trace_span *s,
                             const gql_resolve_info *info);

/* finish.c */
uint32_t gql_trace_entry_order(gql_trace *tr);
const otlp_resolve *gql_trace_resolve_of(const gql_trace *tr,
                                         const trace_span *s, otlp_resolve *r);
gql_buf *gql_trace_queue_open(gql_trace *tr, uint64_t tick, uint32_t nspans);
void gql_trace_queue_spans(gql_trace *tr, uint64_t tick);
void gql_trace_execute_end(gql_trace *tr, trace_span *ex, bool tags,
                           uint64_t end);
void gql_trace_finish_lean(gql_trace *tr, uint64_t now);
void gql_trace_finish_entry(gql_trace *tr, uint64_t now);

/* hooks.c */
void gql_trace_on_prepare_phase(void *ctx, int phase, bool finished, int rc,
                                const gql_error *errors, uint32_t nerrors);
int gql_trace_on_execute_start(void *ctx);
void gql_trace_on_execute_error(void *ctx, const char *message,
                                const gql_location *locs, uint32_t nlocs,
                                const char *path_json);
gql_str gql_trace_span_path(gql_trace *tr, trace_span *s);
uint8_t gql_trace_calls_needed(gql_trace *tr, const gql_resolve_info *info,
                               uint32_t k, const trace_span *owner);
uint8_t gql_trace_entry_answer(const gql_trace *tr, uint32_t k);
void gql_trace_entry_leave(gql_trace *tr);
int gql_trace_on_resolve_start(void *ctx, const gql_resolve_info *info);
void gql_trace_on_resolve_finish(void *ctx, const gql_resolve_info *info);
void gql_trace_on_execute_finish(void *ctx, bool has_errors);

#endif
