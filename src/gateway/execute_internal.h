/*
 * Shared by execute.c (request bodies, representations, merging, errors)
 * and project.c (the response projected from the merged tree).
 */
#ifndef GQL_GATEWAY_EXECUTE_INTERNAL_H
#define GQL_GATEWAY_EXECUTE_INTERNAL_H

#include "gateway.h"
#include "json/json.h"

#define NO_REP UINT32_MAX

typedef struct target {
  gql_json_value *obj;
  gql_json_value *path; /* response path, a JSON array; made on demand */
  uint32_t rep;
} target;

typedef struct fetch_state {
  bool paths; /* the targets' paths have been made (for errors) */
  target *targets;
  uint32_t ntargets, cap;
  gql_str *reps; /* distinct representations, JSON text */
  uint32_t nreps, reps_cap;
} fetch_state;

typedef struct gw_defer_state gw_defer_state; /* below */

struct gql_gw_request {
  const gql_gw_plan *plan;
  gql_arena *arena;
  const gql_value *variables;
  gql_json_value *data; /* the root object */
  fetch_state *fs;      /* per fetch id */
  gql_json_value *errors;
  uint32_t nerrors, errors_cap;
  uint32_t requests, reps_sent, reps_seen;
  gql_gw_who who;     /* gql_gw_request_set_access */
  gw_defer_state *ds; /* incremental delivery (defer.c); NULL: off */
};

/* -------------------------------------------------------- JSON helpers */

/* gql_str_eq, but keys of equal length mostly differ in their first byte:
 * no memcmp call for those. */
static inline bool key_eq(gql_str a, gql_str b) {
  return a.len == b.len && (a.len == 0 || (a.ptr[0] == b.ptr[0] &&
                                           memcmp(a.ptr, b.ptr, a.len) == 0));
}

static inline gql_json_value *obj_get(const gql_json_value *obj, gql_str key) {
  if (!obj || obj->kind != GQL_JSON_OBJECT)
    return NULL;
  for (size_t i = obj->object.count; i-- > 0;)
    if (key_eq(obj->object.members[i].key, key))
      return &obj->object.members[i].value;
  return NULL;
}

typedef struct seg {
  const struct seg *parent;
  gql_str key; /* or an index when key.ptr is NULL */
  size_t index;
} seg;

/* The response path of s (+ tail), as a JSON array in the arena. */
gql_json_value *gw_path_json(gql_arena *a, const seg *s,
                             const gql_json_value *tail, size_t ntail);

/* Appends n bytes: gql_buf_append inlined for the short, frequent pieces
 * of the response (its buffer is sized up front, so rarely grows). */
static inline void gw_put(gql_buf *out, const char *p, size_t n) {
  if (GQL_UNLIKELY(out->cap - out->len < n) && !gql_buf_reserve(out, n))
    return;
  memcpy(out->data + out->len, p, n);
  out->len += n;
}

/* Writes `"key":` for selection s. */
static inline void write_key(gql_buf *out, const gql_gw_sel *s) {
  if (s->key_json.len) {
    gw_put(out, s->key_json.ptr, s->key_json.len);
    return;
  }
  gql_json_write_string(out, s->key);
  gql_buf_putc(out, ':');
}

/* Whether an object of type t gets client field c (its conditions). */
static inline bool gw_sel_applies(const gql_gw_type *t, const gql_gw_sel *c) {
  return (!c->cond || gql_supergraph_satisfies(t, c->cond)) &&
         (!c->cond2 || gql_supergraph_satisfies(t, c->cond2));
}

/* Adds an error {"message":..,"path":..} to the response. */
void gql_gw_add_error(gql_gw_request *r, gql_str message,
                      const gql_json_value *path);
/* "Unauthorized field or type", code UNAUTHORIZED_FIELD_OR_TYPE. */
void gql_gw_add_unauthorized(gql_gw_request *r, const gql_json_value *path);
/* @defer's state of a request (defer.c; recorded by the projection). One
 * deferred fragment on one object: a pending id. The object is found
 * again by its path once the later waves are merged (merging moves the
 * values of an object whose members grow). */
typedef struct gw_defer_inst {
  const gql_gw_defer *d;
  gql_json_value *path;
  const gql_gw_type *type;
  size_t at;   /* output offset where it was announced */
  bool dead;   /* its parent was nulled: never announced */
  bool failed; /* a non-null field's null reached it */
  bool done;   /* delivered (or being delivered: now) */
  bool now;
  gql_buf entries;
  uint32_t nentries;
  gql_json_value *errors; /* its errors, as they are assigned */
  uint32_t nerrors, errors_cap;
} gw_defer_inst;

struct gw_defer_state {
  gw_defer_inst *items;
  uint32_t n, cap;
  uint32_t session; /* the first instance the current output announced */
  uint32_t errors;  /* r->errors up to here are in payloads */
};

/* project.c: the deferred fragments of client node
 * `sel` that payload `cur` announces on an object of type t at `path`,
 * recorded while its output is at offset `at`; nonzero when out of
 * memory. gw_defer_drop forgets those recorded at or after offset `at`
 * of the payload being written (their parent was nulled). */
int gw_defer_announce(gql_gw_request *r, const gql_gw_sel *sel,
                      const gql_gw_defer *cur, const gql_gw_type *t,
                      const seg *path, size_t at);
void gw_defer_drop(gql_gw_request *r, size_t at);
/* project.c, for defer.c: the object type of v (its __typename) at a
 * place of type `named`; the fields of `sel` that payload `cur`
 * delivers on object v, as an object into out: 0, or 1 when a non-null
 * field's null made the object null (the error recorded). */
const gql_gw_type *gw_concrete_type(const gql_gw_request *r,
                                    const gql_json_value *v,
                                    const gql_gw_type *named);
int gw_project_deferred(gql_gw_request *r, gql_buf *out,
                        const gql_json_value *v, const gql_gw_type *named,
                        const gql_gw_sel *sel, const seg *path,
                        const gql_gw_defer *cur);
void gw_deep_merge(gql_arena *a, gql_json_value *dst, const gql_json_value *src,
                   bool *oom);

#endif
