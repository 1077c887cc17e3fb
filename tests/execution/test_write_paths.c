/* Every write path of the executor answers byte for byte alike.
 *
 * The executor writes a response six ways: the general gql_out_* paths
 * (coercion, errors), the direct fast paths (a value of the expected type
 * written straight into the buffer), struct members (gql_schema_set_member,
 * set_list_member: no resolver call at all), the bulk list writers
 * (gql_out_object_array, _object_ptrs, _enum_indices, _enum_index), tree
 * mode with pending fields, and traced executions (the tracer's protocol).
 * This test runs every execution case of ../shared/conformance (graphql-js's
 * recorded executions and the introspection results) and the JSON documents
 * of the execution benchmark (../shared/bench) through each of them, from
 * the same schema text and JSON data:
 *
 *   general  no resolver: the default resolver hands each value to
 *            gql_out_json
 *   direct   a resolver per field writing the value with the writer of its
 *            type (gql_out_int, _string, _object, _list...), gql_out_json
 *            only for a value the type cannot take
 *   bulk     as direct, but lists of objects and enums through the bulk
 *            writers and enums by index
 *   pending  as direct, but every resolver pends and is completed later
 *            (tree mode), innermost first so that errors come in the same
 *            order
 *   members  the data converted to C structs: every field whose values all
 *            fit a member kind is a member or list member, the others
 *            resolvers reading the struct
 *
 * each also traced (a tracer with its default options, so that the
 * protocol's entry, stamp and hook-free answers are all in play), and
 * asserts that every response is the general path's, byte for byte. The
 * benchmark's C resolvers and member schemas (bench/exec/ops.c) are also
 * run traced against their untraced responses. A case whose data the
 * members path cannot express as C structs (a value no member kind holds is
 * still fine: that field gets a resolver; but an object under an abstract
 * type without a valid __typename has no struct type) is run on the other
 * paths and counted. */
#include "../../bench/exec/ops.c"
#include "../../examples/starwars/starwars.c"
#include "execution/exec.h"

#include <criterion/criterion.h>
#include <stdio.h>

/* ------------------------------------------------------------ the paths */

enum { P_GENERAL, P_DIRECT, P_BULK, P_PENDING, P_MEMBERS, P_COUNT };
static const char *const path_names[P_COUNT] = {"general", "direct", "bulk",
                                                "pending", "members"};

/* What a resolver of a path is given (gql_info_data). */
typedef struct path_ctx {
  int path;
  const gql_schema *s;
  struct pending_queue *q; /* P_PENDING */
  struct tally *t;
} path_ctx;

/* What the runs did, so that a path that quietly did nothing shows. */
typedef struct tally {
  unsigned cases, runs, members_skipped;
  unsigned members, list_members, bulk_lists, pended;
} tally;

/* ---- typed writers: a JSON value written with the writer of its type */

typedef struct list_ctx {
  const path_ctx *pc;
  const gql_json_value *items;
  gql_type_ref item;
} list_ctx;

static void write_typed(const path_ctx *pc, gql_arena *a, gql_out *out,
                        const gql_json_value *v, gql_type_ref t);

static void typed_item(const void *list, size_t i, gql_out *out) {
  const list_ctx *l = list;
  write_typed(l->pc, gql_exec_out_arena(out), out, &l->items[i], l->item);
}

/* The object type a JSON object names with __typename, or GQL_NO_TYPE. */
static uint32_t typename_of(const gql_schema *s, const gql_json_value *v) {
  const gql_json_value *tn = gql_json_get(v, GQL_STR("__typename"));
  if (!tn || tn->kind != GQL_JSON_STRING)
    return GQL_NO_TYPE;
  uint32_t t = gql_schema_type_index(s, tn->string);
  return t != GQL_NO_TYPE && s->types[t].kind == GQL_TYPE_OBJECT ? t
                                                                 : GQL_NO_TYPE;
}

/* The enum value index of name, or -1. */
static int enum_index(const gql_type *e, gql_str name) {
  for (uint32_t i = 0; i < e->nvalues && i < 256; i++)
    if (gql_str_eq(e->values[i].name, name))
      return (int)i;
  return -1;
}

static bool bulk_list(const path_ctx *pc, gql_arena *a, gql_out *out,
                      const gql_json_value *v, gql_type_ref item) {
  const gql_type *named = &pc->s->types[item.type];
  size_t n = v->array.count;
  if (!gql_type_ref_is_named(gql_type_ref_nullable(item)))
    return false; /* a list of lists */
  if (named->kind == GQL_TYPE_ENUM) {
    uint8_t *ix = gql_arena_alloc(a, n + 1);
    for (size_t i = 0; i < n; i++) {
      const gql_json_value *it = &v->array.items[i];
      int k = it->kind == GQL_JSON_STRING ? enum_index(named, it->string) : -1;
      if (k < 0)
        return false;
      ix[i] = (uint8_t)k;
    }
    gql_out_enum_indices(out, ix, n);
    pc->t->bulk_lists++;
    return true;
  }
  if (named->kind == GQL_TYPE_SCALAR || named->kind == GQL_TYPE_INPUT_OBJECT)
    return false;
  bool all_objects = true;
  for (size_t i = 0; i < n; i++) {
    uint8_t k = v->array.items[i].kind;
    if (k != GQL_JSON_OBJECT && k != GQL_JSON_NULL)
      return false;
    all_objects &= k == GQL_JSON_OBJECT;
  }
  if (all_objects && named->kind == GQL_TYPE_OBJECT) {
    /* the items lie sizeof(gql_json_value) apart */
    gql_out_object_array(out, v->array.items, n, sizeof *v->array.items,
                         item.type);
    pc->t->bulk_lists++;
    return true;
  }
  const void **ptrs = gql_arena_alloc(a, sizeof *ptrs * (n + 1));
  for (size_t i = 0; i < n; i++)
    ptrs[i] =
        v->array.items[i].kind == GQL_JSON_OBJECT ? &v->array.items[i] : NULL;
  gql_out_object_ptrs(out, ptrs, n, GQL_TYPE_AUTO);
  pc->t->bulk_lists++;
  return true;
}

static void write_typed(const path_ctx *pc, gql_arena *a, gql_out *out,
                        const gql_json_value *v, gql_type_ref t) {
  if (!v || v->kind == GQL_JSON_NULL) {
    gql_out_null(out);
    return;
  }
  gql_type_ref nt = gql_type_ref_nullable(t);
  if (gql_type_ref_is_list(nt)) {
    if (v->kind != GQL_JSON_ARRAY) {
      gql_out_json(out, v);
      return;
    }
    gql_type_ref item = gql_type_ref_unwrap(nt);
    if (pc->path == P_BULK && bulk_list(pc, a, out, v, item))
      return;
    list_ctx *l = gql_arena_alloc(a, sizeof *l);
    *l = (list_ctx){pc, v->array.items, item};
    gql_out_list(out, l, v->array.count, typed_item);
    return;
  }
  const gql_schema *s = pc->s;
  const gql_type *named = &s->types[t.type];
  switch (named->kind) {
  case GQL_TYPE_OBJECT:
  case GQL_TYPE_INTERFACE:
  case GQL_TYPE_UNION:
    if (v->kind != GQL_JSON_OBJECT) {
      gql_out_json(out, v);
      return;
    }
    /* bulk: the concrete type given, when __typename names one */
    gql_out_object(out, v,
                   pc->path == P_BULK && named->kind != GQL_TYPE_OBJECT &&
                           typename_of(s, v) != GQL_NO_TYPE
                       ? typename_of(s, v)
                       : GQL_TYPE_AUTO);
    return;
  case GQL_TYPE_ENUM:
    if (v->kind != GQL_JSON_STRING)
      break;
    if (pc->path == P_BULK && enum_index(named, v->string) >= 0)
      gql_out_enum_index(out, (uint32_t)enum_index(named, v->string));
    else
      gql_out_enum(out, v->string.ptr, v->string.len);
    return;
  default:
    break;
  }
  if (t.type == s->t_int && v->kind == GQL_JSON_NUMBER && v->is_int) {
    gql_out_int(out, v->number.i);
    return;
  }
  if (t.type == s->t_float && v->kind == GQL_JSON_NUMBER &&
      (!v->is_int ||
       (v->number.i < (1ll << 53) && v->number.i > -(1ll << 53)))) {
    gql_out_float(out, v->number.d);
    return;
  }
  if ((t.type == s->t_string || t.type == s->t_id) &&
      v->kind == GQL_JSON_STRING) {
    gql_out_string(out, v->string.ptr, v->string.len);
    return;
  }
  if (t.type == s->t_boolean && v->kind == GQL_JSON_BOOL) {
    gql_out_bool(out, v->boolean);
    return;
  }
  gql_out_json(out, v); /* a custom scalar, or what the type cannot take */
}

/* The property of a JSON parent, as the default resolver reads it. */
static const gql_json_value *property(const void *parent, gql_str name) {
  const gql_json_value *p = parent;
  return p && p->kind == GQL_JSON_OBJECT ? gql_json_get(p, name) : NULL;
}

static void typed_resolver(const gql_resolve_info *info, const void *parent,
                           gql_out *out) {
  const path_ctx *pc = gql_info_data(info);
  const gql_field *f = gql_exec_info_field(info);
  write_typed(pc, gql_info_arena(info), out, property(parent, f->name),
              f->type);
}

/* ---- pending: every call pends; completed innermost first */

typedef struct job {
  gql_pending *p;
  const gql_json_value *v;
  gql_type_ref t;
  gql_arena *a;
} job;

typedef struct pending_queue {
  job *jobs; /* a stack: the last pended completes first */
  size_t n, cap;
} pending_queue;

static void pending_resolver(const gql_resolve_info *info, const void *parent,
                             gql_out *out) {
  const path_ctx *pc = gql_info_data(info);
  pending_queue *q = pc->q;
  if (q->n == q->cap) {
    q->cap = q->cap ? q->cap * 2 : 64;
    q->jobs = realloc(q->jobs, sizeof *q->jobs * q->cap);
    cr_assert(q->jobs);
  }
  const gql_field *f = gql_exec_info_field(info);
  q->jobs[q->n++] = (job){gql_out_pending(out), property(parent, f->name),
                          f->type, gql_info_arena(info)};
}

/* Completes the pending fields in the order a synchronous execution would
 * have completed them: the fields of one object pend in selection order,
 * and each one's own fields (pended while it completes) before the next. */
static void run_pending(pending_queue *q, const path_ctx *pc) {
  size_t base = 0;
  while (q->n > base) {
    /* the oldest of the newest batch: reverse it once, then pop */
    job j = q->jobs[base];
    memmove(q->jobs + base, q->jobs + base + 1,
            sizeof *q->jobs * (q->n - base - 1));
    q->n--;
    size_t before = q->n;
    cr_assert(j.p);
    write_typed(pc, j.a, gql_pending_out(j.p), j.v, j.t);
    pc->t->pended++;
    /* what this completion pended goes first: move it before the rest */
    size_t added = q->n - before;
    if (added && before > base) {
      job *tmp = malloc(sizeof *tmp * added);
      memcpy(tmp, q->jobs + before, sizeof *tmp * added);
      memmove(q->jobs + base + added, q->jobs + base,
              sizeof *tmp * (before - base));
      memcpy(q->jobs + base, tmp, sizeof *tmp * added);
      free(tmp);
    }
  }
}

/* ---- members: the data as C structs */

typedef struct cval cval; /* a converted value */

/* One field of a struct: the member (as gql_schema_set_member or
 * set_list_member reads it) and the converted value for a resolver. */
typedef struct slot {
  union {
    int64_t i;
    double d;
    bool b;
    gql_str s;
    uint8_t e;
    const void **ptrs;    /* object list items (NULL: a null list) */
    const uint8_t *enums; /* enum list items (NULL: a null list) */
  } m;
  uint32_t count;
  const cval *cv;
} slot;

/* A converted object: its concrete type and a slot per field. */
typedef struct cobj {
  uint32_t type;
  slot slots[];
} cobj;

struct cval {
  const gql_json_value *json;
  const cobj *obj; /* an object's struct */
  cval *items;     /* a list's */
  size_t n;
};

/* Per object type and field: which member kinds every value fits. */
enum {
  FIT_INT = 1,
  FIT_FLOAT = 2,
  FIT_STR = 4,
  FIT_BOOL = 8,
  FIT_ENUM = 16,
  FIT_OBJECTS = 32,
  FIT_ENUMS = 64,
  FIT_ALL = 127
};

typedef struct conv {
  const gql_schema *s;
  gql_arena *a;
  uint8_t **fits; /* [type][field] */
  bool bad;       /* an object the structs cannot type */
} conv;

static cval *convert(conv *c, const gql_json_value *v, gql_type_ref t);

static const cobj *convert_object(conv *c, const gql_json_value *v,
                                  uint32_t type) {
  const gql_type *ty = &c->s->types[type];
  if (ty->kind != GQL_TYPE_OBJECT) {
    type = typename_of(c->s, v);
    if (type == GQL_NO_TYPE) {
      c->bad = true;
      return NULL;
    }
    ty = &c->s->types[type];
  }
  cobj *o = gql_arena_alloc(c->a, sizeof *o + sizeof(slot) * ty->nfields);
  memset(o, 0, sizeof *o + sizeof(slot) * ty->nfields);
  o->type = type;
  for (uint32_t i = 0; i < ty->nfields; i++) {
    const gql_field *f = &ty->fields[i];
    const gql_json_value *fv = gql_json_get(v, f->name);
    slot *sl = &o->slots[i];
    sl->cv = convert(c, fv, f->type);
    uint8_t fit = 0;
    const gql_type *named = &c->s->types[f->type.type];
    gql_type_ref nt = gql_type_ref_nullable(f->type);
    bool null = !fv || fv->kind == GQL_JSON_NULL;
    if (gql_type_ref_is_list(nt)) {
      gql_type_ref item = gql_type_ref_unwrap(nt);
      bool flat = gql_type_ref_is_named(gql_type_ref_nullable(item));
      if (flat && null) {
        fit = FIT_OBJECTS | FIT_ENUMS; /* a null list: NULL items */
      } else if (flat && fv->kind == GQL_JSON_ARRAY) {
        size_t n = fv->array.count;
        fit = named->kind == GQL_TYPE_ENUM ? FIT_ENUMS
              : named->kind == GQL_TYPE_OBJECT ||
                      named->kind == GQL_TYPE_INTERFACE ||
                      named->kind == GQL_TYPE_UNION
                  ? FIT_OBJECTS
                  : 0;
        uint8_t *ix = gql_arena_alloc(c->a, n + 1);
        const void **ptrs = gql_arena_alloc(c->a, sizeof *ptrs * (n + 1));
        for (size_t k = 0; k < n; k++) {
          const gql_json_value *it = &fv->array.items[k];
          int e = named->kind == GQL_TYPE_ENUM && it->kind == GQL_JSON_STRING
                      ? enum_index(named, it->string)
                      : -1;
          if (e < 0)
            fit &= ~FIT_ENUMS;
          else
            ix[k] = (uint8_t)e;
          if (it->kind == GQL_JSON_OBJECT)
            ptrs[k] = sl->cv->items[k].obj;
          else if (it->kind == GQL_JSON_NULL)
            ptrs[k] = NULL;
          else
            fit &= ~FIT_OBJECTS;
        }
        if (fit & FIT_ENUMS)
          sl->m.enums = ix;
        else
          sl->m.ptrs = ptrs;
        sl->count = (uint32_t)n;
      }
    } else if (null) {
      fit = FIT_STR; /* a NULL gql_str is null */
    } else {
      switch (fv->kind) {
      case GQL_JSON_NUMBER: /* the member the field's type reads */
        if (f->type.type == c->s->t_float) {
          if (!fv->is_int ||
              (fv->number.i < (1ll << 53) && fv->number.i > -(1ll << 53)))
            fit = FIT_FLOAT, sl->m.d = fv->number.d;
        } else if (fv->is_int) {
          fit = FIT_INT, sl->m.i = fv->number.i;
        }
        break;
      case GQL_JSON_STRING: {
        int e =
            named->kind == GQL_TYPE_ENUM ? enum_index(named, fv->string) : -1;
        if (e >= 0)
          fit = FIT_ENUM, sl->m.e = (uint8_t)e;
        else
          fit = FIT_STR, sl->m.s = fv->string;
        break;
      }
      case GQL_JSON_BOOL:
        fit = FIT_BOOL, sl->m.b = fv->boolean;
        break;
      default:
        break;
      }
    }
    c->fits[type][i] &= fit;
  }
  return o;
}

static cval *convert(conv *c, const gql_json_value *v, gql_type_ref t) {
  cval *cv = gql_arena_alloc(c->a, sizeof *cv);
  *cv = (cval){.json = v};
  if (!v || v->kind == GQL_JSON_NULL)
    return cv;
  gql_type_ref nt = gql_type_ref_nullable(t);
  if (gql_type_ref_is_list(nt)) {
    if (v->kind == GQL_JSON_ARRAY) {
      cv->n = v->array.count;
      cv->items = gql_arena_alloc(c->a, sizeof *cv->items * (cv->n + 1));
      for (size_t i = 0; i < cv->n; i++)
        cv->items[i] = *convert(c, &v->array.items[i], gql_type_ref_unwrap(nt));
    }
    return cv;
  }
  gql_type_kind k = c->s->types[t.type].kind;
  if (v->kind == GQL_JSON_OBJECT &&
      (k == GQL_TYPE_OBJECT || k == GQL_TYPE_INTERFACE || k == GQL_TYPE_UNION))
    cv->obj = convert_object(c, v, t.type);
  return cv;
}

typedef struct struct_list {
  const path_ctx *pc;
  const cval *items;
  gql_type_ref item;
} struct_list;

static void write_struct(const path_ctx *pc, gql_arena *a, gql_out *out,
                         const cval *cv, gql_type_ref t);

static void struct_item(const void *list, size_t i, gql_out *out) {
  const struct_list *l = list;
  write_struct(l->pc, gql_exec_out_arena(out), out, &l->items[i], l->item);
}

/* write_typed for a converted value: objects are their structs. */
static void write_struct(const path_ctx *pc, gql_arena *a, gql_out *out,
                         const cval *cv, gql_type_ref t) {
  const gql_json_value *v = cv->json;
  if (!v || v->kind == GQL_JSON_NULL) {
    gql_out_null(out);
    return;
  }
  gql_type_ref nt = gql_type_ref_nullable(t);
  if (gql_type_ref_is_list(nt) && v->kind == GQL_JSON_ARRAY) {
    struct_list *l = gql_arena_alloc(a, sizeof *l);
    *l = (struct_list){pc, cv->items, gql_type_ref_unwrap(nt)};
    gql_out_list(out, l, cv->n, struct_item);
    return;
  }
  if (cv->obj) {
    gql_out_object(out, cv->obj, cv->obj->type);
    return;
  }
  write_typed(pc, a, out, v, t); /* a leaf, or a value of the wrong kind */
}

static void struct_resolver(const gql_resolve_info *info, const void *parent,
                            gql_out *out) {
  const path_ctx *pc = gql_info_data(info);
  const cobj *o = parent;
  if (!o) {
    gql_out_null(out);
    return;
  }
  const gql_field *f = gql_exec_info_field(info);
  const gql_type *ty = &pc->s->types[o->type];
  write_struct(pc, gql_info_arena(info), out, o->slots[f - ty->fields].cv,
               f->type);
}

static int64_t struct_type(const gql_resolve_info *info, const void *value) {
  return ((const cobj *)value)->type;
}

/* Members for the fields whose values all fit one, resolvers for the rest;
 * *root the root struct (NULL for no root value). False when the data has
 * an object the structs cannot type. */
static bool members_setup(gql_schema *s, const path_ctx *pc, gql_arena *a,
                          const gql_json_value *root, uint32_t root_type,
                          const void **out) {
  conv c = {.s = s, .a = a};
  c.fits = gql_arena_alloc(a, sizeof *c.fits * s->ntypes);
  for (uint32_t t = 0; t < s->ntypes; t++) {
    c.fits[t] = gql_arena_alloc(a, s->types[t].nfields + 1);
    memset(c.fits[t], FIT_ALL, s->types[t].nfields + 1);
  }
  const cobj *r = root && root->kind == GQL_JSON_OBJECT
                      ? convert_object(&c, root, root_type)
                      : NULL;
  *out = r;
  if (c.bad)
    return false;
  size_t slots = offsetof(cobj, slots);
  for (uint32_t t = 0; t < s->ntypes; t++) {
    const gql_type *ty = &s->types[t];
    if (ty->builtin)
      continue;
    if (ty->kind == GQL_TYPE_INTERFACE || ty->kind == GQL_TYPE_UNION)
      cr_assert_eq(gql_schema_set_resolve_type(s, ty->name.ptr, struct_type),
                   0);
    if (ty->kind != GQL_TYPE_OBJECT)
      continue;
    for (uint32_t i = 0; i < ty->nfields; i++) {
      const gql_field *f = &ty->fields[i];
      const gql_type *named = &s->types[f->type.type];
      size_t off = slots + sizeof(slot) * i;
      uint8_t fit = c.fits[t][i];
      gql_type_ref nt = gql_type_ref_nullable(f->type);
      int kind = 0;
      if (gql_type_ref_is_list(nt)) {
        gql_list_member lm = {.items_offset = off + offsetof(slot, m),
                              .count_offset = off + offsetof(slot, count),
                              .count_size = 4,
                              .type = GQL_TYPE_AUTO};
        if (named->kind == GQL_TYPE_ENUM && (fit & FIT_ENUMS))
          lm.kind = GQL_LIST_ENUM_U8;
        else if (named->kind != GQL_TYPE_ENUM && (fit & FIT_OBJECTS))
          lm.kind = GQL_LIST_OBJECT_PTRS;
        if (lm.kind && gql_schema_set_list_member(s, ty->name.ptr, f->name.ptr,
                                                  &lm) == 0) {
          pc->t->list_members++;
          continue;
        }
      } else if (named->kind == GQL_TYPE_ENUM) {
        kind = fit & FIT_ENUM ? GQL_MEMBER_ENUM_U8 : 0;
      } else if (f->type.type == s->t_int) {
        kind = fit & FIT_INT ? GQL_MEMBER_INT64 : 0;
      } else if (f->type.type == s->t_float) {
        kind = fit & FIT_FLOAT ? GQL_MEMBER_DOUBLE : 0;
      } else if (f->type.type == s->t_string || f->type.type == s->t_id) {
        kind = fit & FIT_STR ? GQL_MEMBER_STR : 0;
      } else if (f->type.type == s->t_boolean) {
        kind = fit & FIT_BOOL ? GQL_MEMBER_BOOL : 0;
      }
      if (kind && gql_schema_set_member(s, ty->name.ptr, f->name.ptr, kind,
                                        off + offsetof(slot, m)) == 0) {
        pc->t->members++;
        continue;
      }
      cr_assert_eq(gql_schema_set_resolver(s, ty->name.ptr, f->name.ptr,
                                           struct_resolver, (void *)pc,
                                           GQL_RESOLVER_SYNC),
                   0);
    }
  }
  return true;
}

/* ------------------------------------------------------------ one case */

typedef struct exec_case {
  char name[160];
  const char *sdl;
  size_t sdl_len;
  const gql_json_value *root;
  const char *query;
  size_t query_len;
  const char *vars; /* JSON text or NULL */
  size_t vars_len;
  const char *op;
  bool no_validate;
} exec_case;

typedef struct response {
  char *json;
  size_t len;
} response;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  response *r = ud;
  free(r->json);
  r->json = malloc(len + 1);
  memcpy(r->json, json, len);
  r->json[len] = 0;
  r->len = len;
}

/* The response of `p` on the root, traced by `tracer` or not; pending
 * fields are completed from q. */
static response execute(const gql_prepared *p, const exec_case *k,
                        const void *root, gql_tracer *tracer, pending_queue *q,
                        const path_ctx *pc) {
  response r = {0};
  gql_arena *a = gql_arena_new(NULL);
  gql_trace *tr = tracer ? gql_trace_begin(tracer, NULL) : NULL;
  if (tracer) {
    cr_assert(tr);
    gql_trace_set_operation(tr, p, k->vars, k->vars_len);
  }
  gql_execute_params params = {.root_value = root,
                               .variables_json = k->vars,
                               .variables_len = k->vars_len,
                               .trace = tr,
                               .arena = a,
                               .on_done = on_done,
                               .ud = &r,
                               .subscription_once = true};
  cr_assert_geq(gql_execute(p, &params), 0, "%s", k->name);
  if (q)
    run_pending(q, pc);
  gql_trace_end(tr);
  gql_arena_free(a);
  cr_assert(r.json, "%s: no response", k->name);
  return r;
}

/* The root type of the case's operation, once prepared on `s`. */
static uint32_t root_type_of(const gql_schema *s, const gql_prepared *p) {
  switch (gql_prepared_operation(p)) {
  case GQL_OP_MUTATION:
    return s->mutation;
  case GQL_OP_SUBSCRIPTION:
    return s->subscription;
  default:
    return s->query;
  }
}

static void run_case(const exec_case *k, gql_tracer *tracer, tally *t) {
  response want = {0};
  bool prepared_once = false;
  for (int path = 0; path < P_COUNT; path++) {
    gql_schema *s = NULL;
    if (gql_schema_from_sdl(k->sdl, k->sdl_len, NULL, &s, NULL) < 0)
      return; /* a schema gql refuses: the conformance runner's business */
    gql_arena *a = gql_arena_new(NULL);
    pending_queue q = {0};
    path_ctx pc = {.path = path, .s = s, .q = &q, .t = t};
    const void *root = k->root;
    bool ok = false;
    if (path == P_MEMBERS) {
      /* the root type from a first preparation on a plain copy */
      gql_schema *plain = NULL;
      gql_prepared *pp = NULL;
      cr_assert_eq(gql_schema_from_sdl(k->sdl, k->sdl_len, NULL, &plain, NULL),
                   0);
      gql_prepare_options po = {.no_validate = k->no_validate};
      if (gql_prepare(plain, k->query, k->query_len, k->op, &po, &pp, NULL) ==
          0) {
        uint32_t rt = root_type_of(plain, pp);
        gql_prepared_free(pp);
        ok = rt == GQL_NO_TYPE || members_setup(s, &pc, a, k->root, rt, &root);
        if (!ok)
          t->members_skipped++;
        if (rt == GQL_NO_TYPE)
          root = NULL;
      }
      gql_schema_free(plain);
      if (!ok) {
        gql_arena_free(a);
        gql_schema_free(s);
        continue;
      }
    } else if (path != P_GENERAL) {
      for (uint32_t ti = 0; ti < s->ntypes; ti++) {
        const gql_type *ty = &s->types[ti];
        if (ty->builtin || ty->kind != GQL_TYPE_OBJECT)
          continue;
        for (uint32_t i = 0; i < ty->nfields; i++)
          cr_assert_eq(
              gql_schema_set_resolver(
                  s, ty->name.ptr, ty->fields[i].name.ptr,
                  path == P_PENDING ? pending_resolver : typed_resolver, &pc,
                  path == P_PENDING ? 0 : GQL_RESOLVER_SYNC),
              0);
      }
    }
    gql_prepared *p = NULL;
    gql_prepare_options po = {.no_validate = k->no_validate};
    if (gql_prepare(s, k->query, k->query_len, k->op, &po, &p, NULL) < 0) {
      gql_arena_free(a);
      gql_schema_free(s);
      return; /* request errors: nothing is executed */
    }
    prepared_once = true;
    for (int traced = 0; traced < 2; traced++) {
      response got = execute(p, k, root, traced ? tracer : NULL,
                             path == P_PENDING ? &q : NULL, &pc);
      t->runs++;
      if (!want.json) {
        want = got;
        continue;
      }
      cr_expect(got.len == want.len &&
                    memcmp(got.json, want.json, got.len) == 0,
                "%s: %s%s differs from general:\n got %s\nwant %s", k->name,
                path_names[path], traced ? " traced" : "", got.json, want.json);
      free(got.json);
    }
    gql_prepared_free(p);
    free(q.jobs);
    gql_arena_free(a);
    gql_schema_free(s);
  }
  free(want.json);
  t->cases += prepared_once;
}

static gql_tracer *tracer_new(void) {
  gql_tracer_config tc = {.service_name = "paths", .no_thread = true};
  gql_tracer *t = NULL;
  cr_assert_eq(gql_tracer_new(&tc, &t), 0);
  return t;
}

/* ------------------------------------------------------------ corpora */

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  cr_assert(b && fread(b, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  b[n] = 0;
  *len = (size_t)n;
  return b;
}

#define SHARED GQL_SOURCE_DIR "/../shared"

static gql_str str_member(const gql_json_value *o, const char *name) {
  const gql_json_value *v = gql_json_get(o, gql_cstr(name));
  return v && v->kind == GQL_JSON_STRING ? v->string : (gql_str){NULL, 0};
}

Test(write_paths, graphql_js_recorded_executions_answer_alike_on_every_path) {
  size_t len;
  char *text = read_file(
      SHARED "/conformance/graphql-js/execution-replayable.jsonl", &len);
  gql_arena *a = gql_arena_new(NULL);
  gql_tracer *tracer = tracer_new();
  tally t = {0};
  unsigned lines = 0;
  for (char *line = text, *end; *line; line = end) {
    end = strchr(line, '\n');
    end = end ? end + 1 : line + strlen(line);
    gql_json_value *c;
    if (gql_json_parse(a, line, (size_t)(end - line), NULL, &c, NULL) < 0)
      continue;
    lines++;
    exec_case k = {0};
    snprintf(k.name, sizeof k.name, "execution line %u", lines);
    gql_str sdl = str_member(c, "schema"), q = str_member(c, "query"),
            op = str_member(c, "operationName");
    k.sdl = sdl.ptr, k.sdl_len = sdl.len;
    k.query = q.ptr, k.query_len = q.len;
    k.op = op.ptr ? gql_arena_strndup(a, op.ptr, op.len) : NULL;
    k.root = gql_json_get(c, GQL_STR("rootValue"));
    const gql_json_value *pass =
        gql_json_get(c, GQL_STR("documentPassesValidation"));
    k.no_validate = !pass || pass->kind != GQL_JSON_BOOL || !pass->boolean;
    const gql_json_value *vars = gql_json_get(c, GQL_STR("variables"));
    if (vars && vars->kind == GQL_JSON_OBJECT) {
      gql_str vt;
      cr_assert_eq(gql_value_print(a, vars, &vt), 0);
      k.vars = vt.ptr, k.vars_len = vt.len;
    }
    run_case(&k, tracer, &t);
  }
  cr_assert_eq(lines, 77, "the corpus has %u cases", lines);
  cr_expect_geq(t.cases, 70, "only %u cases executed", t.cases);
  cr_log_info("graphql-js executions: %u cases, %u runs, members path "
              "skipped for %u (untyped objects); %u members, %u list members, "
              "%u bulk lists, %u pending completions",
              t.cases, t.runs, t.members_skipped, t.members, t.list_members,
              t.bulk_lists, t.pended);
  cr_expect(t.members > 50 && t.list_members >= 3 && t.bulk_lists >= 6 &&
            t.pended > 50);
  gql_tracer_free(tracer);
  gql_arena_free(a);
  free(text);
}

Test(write_paths, introspection_results_answer_alike_on_every_path) {
  size_t slen;
  char *sdl = read_file(
      SHARED "/conformance/introspection/sept2025-features.graphql", &slen);
  const char *queries[] = {"graphql16.15-all-options.graphql",
                           "graphql16.15-default.graphql",
                           "graphql17.1-all-options.graphql"};
  gql_tracer *tracer = tracer_new();
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *root;
  cr_assert_eq(gql_value_parse(a, "{}", 2, &root), 0);
  tally t = {0};
  for (size_t i = 0; i < GQL_ARRAY_LEN(queries); i++) {
    char path[512];
    snprintf(path, sizeof path, SHARED "/conformance/introspection/%s",
             queries[i]);
    size_t qlen;
    char *q = read_file(path, &qlen);
    exec_case k = {.sdl = sdl,
                   .sdl_len = slen,
                   .root = root,
                   .query = q,
                   .query_len = qlen,
                   .no_validate = true};
    snprintf(k.name, sizeof k.name, "introspection %s", queries[i]);
    run_case(&k, tracer, &t);
    free(q);
  }
  cr_assert_eq(t.cases, 3);
  gql_tracer_free(tracer);
  gql_arena_free(a);
  free(sdl);
}

Test(write_paths, benchmark_documents_answer_alike_on_every_path) {
  bench_ops *ops = bench_ops_new(SHARED);
  gql_tracer *tracer = tracer_new();
  tally t = {0};
  gql_arena *a = gql_arena_new(NULL);
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    const gql_schema *js = op->json_schema ? op->json_schema : op->schema;
    const char *sdl;
    size_t slen;
    cr_assert_eq(gql_schema_print(js, a, &sdl, &slen), 0);
    exec_case k = {.sdl = sdl,
                   .sdl_len = slen,
                   .root = op->json_root,
                   .query = op->query,
                   .query_len = op->query_len};
    snprintf(k.name, sizeof k.name, "bench %s", op->name);
    run_case(&k, tracer, &t);
  }
  cr_assert_eq(t.cases, OP_COUNT);
  cr_log_info("benchmark documents: %u runs; %u members, %u list members, "
              "%u bulk lists, %u pending completions",
              t.runs, t.members, t.list_members, t.bulk_lists, t.pended);
  cr_expect(t.members > 10 && t.list_members > 3 && t.bulk_lists > 100 &&
            t.pended > 1000);
  gql_tracer_free(tracer);
  gql_arena_free(a);
  bench_ops_free(ops);
}

/* The benchmark's own C resolvers (bulk writers, enum indices) and member
 * schemas, traced and not, against the untraced C resolvers. */
Test(write_paths, benchmark_resolvers_and_members_answer_alike_traced) {
  bench_ops *ops = bench_ops_new(SHARED);
  gql_tracer *tracer = tracer_new();
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    exec_case k = {.query = op->query, .query_len = op->query_len};
    snprintf(k.name, sizeof k.name, "bench %s", op->name);
    gql_schema *schemas[] = {op->schema, op->member_schema, op->json_schema};
    const void *roots[] = {NULL, NULL, op->json_root};
    response want = {0};
    for (size_t j = 0; j < 3; j++) {
      if (!schemas[j])
        continue;
      gql_prepared *p = NULL;
      cr_assert_eq(gql_prepare(schemas[j], op->query, op->query_len, NULL, NULL,
                               &p, NULL),
                   0);
      for (int traced = 0; traced < 2; traced++) {
        response got =
            execute(p, &k, roots[j], traced ? tracer : NULL, NULL, NULL);
        if (!want.json) {
          want = got;
          continue;
        }
        cr_expect(
            got.len == want.len && memcmp(got.json, want.json, got.len) == 0,
            "%s: schema %zu%s differs", op->name, j, traced ? " traced" : "");
        free(got.json);
      }
      gql_prepared_free(p);
    }
    free(want.json);
  }
  gql_tracer_free(tracer);
  bench_ops_free(ops);
}
