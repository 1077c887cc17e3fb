/* The executor. It walks the plan; a synchronous subtree writes JSON straight
 * into the output buffer, and a non-null violation truncates the buffer back
 * to the nearest nullable value and writes null there. When a type below the
 * root is not proven synchronous, the operation runs in tree mode: values go
 * to an arena response tree whose leaves (and synchronous subtrees) are
 * ranges of a byte buffer, pending fields fill their node later, and the
 * tree is written in selection order once nothing is pending. The response
 * path is a chain of stack frames, turned into JSON only for errors. */
#include "exec.h"
#include "hooks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GQL_EXEC_HAVE_TSC 1
#endif

typedef struct path_frame {
  const struct path_frame *parent;
  const gql_str *key; /* the plan field's key, or NULL for a list index */
  /* index and last only when key is NULL (a field's frame leaves them
   * unset); last: the list's last index when every item is certain to call
   * the fields an earlier one called (see items_last), else 0 */
  int64_t index;
  int64_t last;
} path_frame;

enum { R_EMPTY, R_BYTES, R_NULL, R_OBJECT, R_LIST };

typedef struct rnode {
  uint8_t kind;
  bool nullable;
  struct rnode *parent;
  size_t start, end;   /* R_BYTES: range of the byte buffer */
  struct rnode *kids;  /* R_OBJECT, R_LIST */
  const gql_str *keys; /* R_OBJECT */
  uint32_t nkids;
} rnode;

typedef struct exec_error {
  const char *message;
  gql_location *locs;
  uint32_t nlocs;
  const char *path; /* JSON array or NULL */
} exec_error;

typedef struct serial_walk {
  const plan_field **fields;
  uint32_t count, next;
  const void *parent;
  rnode *node;
} serial_walk;

/* The state of one execution. A request whose root type is synchronous
 * all the way down (direct mode) ends inside gql_execute, and its context
 * lives on gql_execute's stack; tree mode's may outlive the call (fields
 * pend) and is in the request arena. Members under "tree mode" are set only
 * by exec_tree. */
typedef struct exec_ctx {
  const gql_prepared *p;
  const gql_schema *s;
  gql_arena *arena;
  uint8_t owns; /* OWN_ARENA, OWN_OUTPUT: what deliver frees */
  bool aborted;
  bool last_stamps; /* the hooks' last_stamps, in direct mode */
  bool owed;        /* a stamp may be GQL_STAMP_OWED (see stamps_settle) */
  gql_buf *out;     /* where values are written: the response, or the bytes of
                     * tree mode */
  gql_buf resp;
  gql_output *output;
  const gql_json_value **vars;
  const gql_json_value **slots;
  exec_error *errs;
  uint32_t nerrs, cap;
  const gql_exec_hooks *hooks; /* the protocol (hooks.h), or NULL */
  void *context;
  void (*on_done)(void *, const char *, size_t, bool);
  void *ud;
  /* tree mode */
  bool walking;
  bool done; /* the response has been delivered */
  uint32_t pending;
  rnode *root;
  gql_buf bytes;      /* the values, ranges of which the tree's nodes are */
  serial_walk serial; /* a mutation's root fields, one at a time */
  /* set only when used */
  gql_output own_output; /* params->output is NULL */
  /* vars and slots when the operation has few (no arena call) */
  const gql_json_value *few_vars[4], *few_slots[4];
} exec_ctx;

enum { OWN_ARENA = 1, OWN_OUTPUT = 2 };

/* An output handle. Its first member is the info a resolver of the field is
 * given (ctx, plan field and path are stored once, there): a field's output
 * is its own info; a list item's output shares ctx and plan field with the
 * field, has the item's path, and points `info` at the field's info. */
struct gql_out {
  gql_resolve_info own; /* own.ctx, own.pf and own.path are the output's */
  const gql_resolve_info *info; /* a list item's: the field's; NULL for a
                                 * field's own output: see out_info */
  gql_type_ref type;
  rnode *node; /* tree mode: the node this value fills */
  size_t mark; /* direct mode: where the value starts */
  bool written;
  bool prop; /* direct mode: the container must become null */
  bool pending_root;
  bool pended;      /* the resolver returned pending */
  bool field_level; /* a pending field (not a list item): its completion
                     * ends the resolver's trace span */
  uint8_t dleaf;    /* the writers' fast paths: the leaf kind (or
                     * LEAF_OBJECT) when `type` is the bare named type (T or
                     * T!), the value goes straight into the buffer (not
                     * tree mode) and nothing is written yet; else LEAF_NONE */
};

struct gql_pending {
  gql_out out;
  gql_resolve_info info;
};

static void finish(exec_ctx *ctx);
static void serial_continue(exec_ctx *ctx);
static void pending_done(gql_out *o);
#define DONE(o)                                                                \
  do {                                                                         \
    if ((o)->pending_root)                                                     \
      pending_done(o);                                                         \
  } while (0)
static void complete_json(gql_out *o, const gql_json_value *v);

/* ------------------------------------------------------------ errors */

static void write_path(gql_buf *b, const path_frame *f) {
  if (!f)
    return;
  write_path(b, f->parent);
  if (f->parent)
    gql_buf_putc(b, ',');
  if (!f->key)
    gql_json_write_int(b, f->index);
  else
    gql_json_write_string(b, *f->key);
}

static const char *path_json(exec_ctx *ctx, const path_frame *f) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_putc(&b, '[');
  write_path(&b, f);
  gql_buf_putc(&b, ']');
  const char *s = gql_buf_cstr(&b);
  char *r = s ? gql_arena_strndup(ctx->arena, s, b.len) : NULL;
  gql_buf_free(&b);
  return r;
}

static bool occ_included(const exec_ctx *ctx, const plan_occ *o) {
  for (uint32_t i = 0; i < o->nconds; i++) {
    const gql_json_value *v = ctx->vars[o->conds[i].var];
    bool b = v && v->kind == GQL_JSON_BOOL && v->boolean;
    if (b != o->conds[i].want)
      return false;
  }
  return true;
}

static void stamps_settle(exec_ctx *ctx);

/* Records an error at the field's nodes (or at byte `off` when not
 * UINT32_MAX) with the path. */
static void add_error(exec_ctx *ctx, const char *msg, const plan_field *pf,
                      uint32_t off, const path_frame *path) {
  if (GQL_UNLIKELY(ctx->owed)) /* the error may end a list early */
    stamps_settle(ctx);
  if (ctx->nerrs == ctx->cap) {
    uint32_t nc = ctx->cap ? ctx->cap * 2 : 8;
    exec_error *n =
        gql_arena_grow(ctx->arena, ctx->errs, ctx->cap, nc, sizeof *n);
    if (!n)
      return;
    ctx->errs = n;
    ctx->cap = nc;
  }
  exec_error *e = &ctx->errs[ctx->nerrs++];
  gql_str src = ctx->p->text;
  *e = (exec_error){.message = gql_arena_strndup(ctx->arena, msg, strlen(msg))};
  if (!e->message)
    e->message = "Out of memory.";
  if (off != UINT32_MAX) {
    e->locs = gql_arena_alloc(ctx->arena, sizeof *e->locs);
    if (e->locs) {
      e->locs[0] = gql_location_of(src.ptr, src.len, off);
      e->nlocs = 1;
    }
  } else if (pf) {
    e->locs = gql_arena_alloc(ctx->arena, sizeof *e->locs * pf->nocc);
    for (uint32_t i = 0; e->locs && i < pf->nocc; i++)
      if (occ_included(ctx, &pf->occs[i]))
        e->locs[e->nlocs++] =
            gql_location_of(src.ptr, src.len, pf->occs[i].node->h.start);
  }
  if (path)
    e->path = path_json(ctx, path);
}

/* ------------------------------------------------------------ completion */

/* Every write goes through here: a written output takes no fast path. */
static inline void set_written(gql_out *o) {
  o->written = true;
  o->dleaf = LEAF_NONE;
}

static bool begin(gql_out *o) {
  if (o->written)
    return false;
  set_written(o);
  return true;
}

static void tree_fail(exec_ctx *ctx, rnode *n) {
  while (n) {
    n->kind = R_NULL;
    if (n->nullable)
      return;
    n = n->parent;
  }
}

/* The value cannot be completed: null when its type allows, else the
 * container becomes null. */
static void value_failed(gql_out *o) {
  exec_ctx *ctx = o->own.ctx;
  if (o->node) {
    if (gql_type_ref_is_non_null(o->type))
      tree_fail(ctx, o->node->parent ? o->node->parent : o->node);
    else
      o->node->kind = R_NULL;
    return;
  }
  if (gql_type_ref_is_non_null(o->type)) {
    o->prop = true;
    return;
  }
  ctx->out->len = o->mark;
  gql_buf_append(ctx->out, "null", 4);
}

static void field_error(gql_out *o, const char *msg, uint32_t off) {
  add_error(o->own.ctx, msg, o->own.pf, off, o->own.path);
  value_failed(o);
}

static void field_errorf(gql_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void field_errorf(gql_out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = gql_arena_vsprintf(o->own.ctx->arena, fmt, ap);
  va_end(ap);
  field_error(o, m ? m : "Out of memory.", UINT32_MAX);
}

static const gql_str *parent_name(const gql_out *o) {
  return &o->own.ctx->s->types[o->own.pf->parent_type].name;
}

static void complete_null(gql_out *o) {
  if (gql_type_ref_is_non_null(o->type)) {
    const gql_str *pn = parent_name(o);
    field_errorf(o, "Cannot return null for non-nullable field %.*s.%.*s.",
                 (int)pn->len, pn->ptr, (int)o->own.pf->field->name.len,
                 o->own.pf->field->name.ptr);
    return;
  }
  if (o->node)
    o->node->kind = R_NULL;
  else
    gql_buf_append(o->own.ctx->out, "null", 4);
}

/* Leaf writes in tree mode are byte ranges. */
static void bytes_begin(gql_out *o) {
  if (o->node)
    o->node->start = o->own.ctx->out->len;
}
static void bytes_end(gql_out *o) {
  if (o->node && o->node->kind == R_EMPTY) {
    o->node->kind = R_BYTES;
    o->node->end = o->own.ctx->out->len;
  }
}

static char *inspect_str(exec_ctx *ctx, const gql_json_value *v) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_exec_inspect(&b, v);
  const char *s = gql_buf_cstr(&b);
  char *r = gql_arena_strndup(ctx->arena, s ? s : "", s ? b.len : 0);
  gql_buf_free(&b);
  return r ? r : "";
}

/* JavaScript's Number(string) for the strings a resolver may return; false
 * when it is NaN. */
static bool js_number(gql_str s, double *out) {
  size_t i = 0, n = s.len;
  while (i < n && (s.ptr[i] == ' ' || s.ptr[i] == '\t' || s.ptr[i] == '\n' ||
                   s.ptr[i] == '\r'))
    i++;
  while (n > i && (s.ptr[n - 1] == ' ' || s.ptr[n - 1] == '\t' ||
                   s.ptr[n - 1] == '\n' || s.ptr[n - 1] == '\r'))
    n--;
  if (i == n) {
    *out = 0;
    return true;
  }
  char tmp[64];
  if (n - i >= sizeof tmp)
    return false;
  for (size_t j = i; j < n; j++)
    if (!strchr("0123456789+-.eE", s.ptr[j]))
      return false;
  memcpy(tmp, s.ptr + i, n - i);
  tmp[n - i] = 0;
  char *end;
  *out = strtod(tmp, &end);
  return *end == 0;
}

static void serialize_leaf(gql_out *o, const gql_json_value *v) {
  exec_ctx *ctx = o->own.ctx;
  const gql_schema *s = ctx->s;
  uint32_t t = o->type.type;
  const gql_type *ty = &s->types[t];
  gql_buf *b = ctx->out;
  if (ty->kind == GQL_TYPE_ENUM) {
    const gql_enum_value *ev =
        v->kind == GQL_JSON_STRING ? gql_type_enum_value(ty, v->string) : NULL;
    if (!ev) {
      field_errorf(o, "Enum \"%.*s\" cannot represent value: %s",
                   (int)ty->name.len, ty->name.ptr, inspect_str(ctx, v));
      return;
    }
    bytes_begin(o);
    gql_json_write_string(b, ev->name);
    bytes_end(o);
    return;
  }
  bool is_num = v->kind == GQL_JSON_NUMBER;
  double d = is_num ? v->number.d : 0;
  if (t == s->t_int || t == s->t_float) {
    bool ok = true;
    if (v->kind == GQL_JSON_BOOL)
      d = v->boolean;
    else if (v->kind == GQL_JSON_STRING && v->string.len)
      ok = js_number(v->string, &d);
    else if (!is_num)
      ok = false;
    if (t == s->t_int) {
      if (!ok || d != floor(d) || !isfinite(d)) {
        field_errorf(o, "Int cannot represent non-integer value: %s",
                     inspect_str(ctx, v));
        return;
      }
      if (d > 2147483647.0 || d < -2147483648.0) {
        field_errorf(o,
                     "Int cannot represent non 32-bit signed integer value: %s",
                     inspect_str(ctx, v));
        return;
      }
      bytes_begin(o);
      gql_json_write_int(b, (int64_t)d);
      bytes_end(o);
      return;
    }
    if (!ok || !isfinite(d)) {
      field_errorf(o, "Float cannot represent non numeric value: %s",
                   inspect_str(ctx, v));
      return;
    }
    bytes_begin(o);
    if (is_num && v->is_int)
      gql_json_write_int(b, v->number.i);
    else
      gql_json_write_double(b, d);
    bytes_end(o);
    return;
  }
  if (t == s->t_string || t == s->t_id) {
    bool id = t == s->t_id;
    if (v->kind == GQL_JSON_STRING) {
      bytes_begin(o);
      gql_json_write_string(b, v->string);
      bytes_end(o);
      return;
    }
    if (!id && v->kind == GQL_JSON_BOOL) {
      bytes_begin(o);
      gql_buf_puts(b, v->boolean ? "\"true\"" : "\"false\"");
      bytes_end(o);
      return;
    }
    if (is_num && isfinite(d) && (!id || d == floor(d))) {
      char num[32];
      size_t n = v->is_int ? (size_t)snprintf(num, sizeof num, "%lld",
                                              (long long)v->number.i)
                           : gql_dtoa(d, num);
      bytes_begin(o);
      gql_json_write_string(b, (gql_str){num, n});
      bytes_end(o);
      return;
    }
    field_errorf(o, "%s cannot represent value: %s", id ? "ID" : "String",
                 inspect_str(ctx, v));
    return;
  }
  if (t == s->t_boolean) {
    bool val;
    if (v->kind == GQL_JSON_BOOL)
      val = v->boolean;
    else if (is_num && isfinite(d))
      val = d != 0;
    else {
      field_errorf(o, "Boolean cannot represent a non boolean value: %s",
                   inspect_str(ctx, v));
      return;
    }
    bytes_begin(o);
    gql_buf_puts(b, val ? "true" : "false");
    bytes_end(o);
    return;
  }
  bytes_begin(o); /* custom scalar: serialize is the identity */
  gql_json_write_value(b, v);
  bytes_end(o);
}

static bool field_included(const exec_ctx *ctx, const plan_set *ps,
                           plan_entry e) {
  const plan_field *pf = &ps->fields[e.field];
  if (!occ_included(ctx, &pf->occs[e.occ]))
    return false;
  for (uint32_t j = 0; j < e.occ; j++)
    if (occ_included(ctx, &pf->occs[j]))
      return false;
  return true;
}

void gql_exec_default_resolver(const gql_resolve_info *info, const void *parent,
                               gql_out *out) {
  const gql_json_value *p = parent;
  if (!p || p->kind != GQL_JSON_OBJECT) {
    gql_out_null(out);
    return;
  }
  gql_str name = info->pf->field->name;
  const gql_json_value *v = NULL;
  if (p->object.index) {
    v = gql_json_get(p, name);
  } else {
    /* Small objects: a backward scan (the last duplicate wins, as
     * JSON.parse) that checks length and first byte before memcmp. */
    const gql_json_member *m = p->object.members;
    for (size_t i = p->object.count; i-- > 0;) {
      if (m[i].key.len == name.len &&
          (name.len == 0 || (m[i].key.ptr[0] == name.ptr[0] &&
                             memcmp(m[i].key.ptr, name.ptr, name.len) == 0))) {
        v = &m[i].value;
        break;
      }
    }
  }
  if (v)
    gql_out_json(out, v);
  else
    gql_out_null(out);
}

/* A struct member at p, whatever its alignment. */
#define MEMBER_LOAD(name, T)                                                   \
  static inline T name(const char *p) {                                        \
    T v;                                                                       \
    memcpy(&v, p, sizeof v);                                                   \
    return v;                                                                  \
  }
MEMBER_LOAD(ld_i32, int32_t)
MEMBER_LOAD(ld_i64, int64_t)
MEMBER_LOAD(ld_f64, double)
MEMBER_LOAD(ld_bool, bool)
MEMBER_LOAD(ld_str, gql_str)
MEMBER_LOAD(ld_cstr, const char *)
MEMBER_LOAD(ld_ptr, const char *)
MEMBER_LOAD(ld_u16, uint16_t)
MEMBER_LOAD(ld_u32, uint32_t)
MEMBER_LOAD(ld_u64, uint64_t)
#undef MEMBER_LOAD

/* A list member's count: an unsigned member of `size` bytes at p. */
static inline size_t ld_count(const char *p, uint8_t size) {
  switch (size) {
  case 1:
    return (uint8_t)*p;
  case 2:
    return ld_u16(p);
  case 4:
    return ld_u32(p);
  default: /* 8 */
    return (size_t)ld_u64(p);
  }
}

/* A list member's items: in the parent, or where its pointer member points
 * (NULL: a null list). */
static inline const char *ld_items(const char *parent, uint32_t off,
                                   bool items_inline) {
  return items_inline ? parent + off : ld_ptr(parent + off);
}

/* The type a list member of `pf` gives its object items: its own, but
 * for an abstract type without a resolve_type, no type (UINT32_MAX - 1: a
 * "must resolve to an Object type" error per item) rather than
 * GQL_TYPE_AUTO, which would read the C struct as JSON for __typename. */
static inline uint32_t list_item_type(const plan_field *pf,
                                      const exec_resolver *r) {
  return r->item_type == GQL_TYPE_AUTO && !pf->named_object && !pf->resolve_type
             ? GQL_TYPE_AUTO - 1
             : r->item_type;
}

/* gql_exec_member_resolver for a list member: the bulk writer it stands
 * for. */
static void list_member_resolver(const gql_resolve_info *info,
                                 const exec_resolver *r, const char *parent,
                                 gql_out *out) {
  const char *items = ld_items(parent, r->offset, r->items_inline);
  size_t count = ld_count(parent + r->count_offset, r->count_size);
  switch (r->list) {
  case GQL_LIST_OBJECT_PTRS:
    gql_out_object_ptrs(out, (const void *const *)(const void *)items, count,
                        list_item_type(info->pf, r));
    return;
  case GQL_LIST_ENUM_U8:
    gql_out_enum_indices(out, (const uint8_t *)items, count);
    return;
  default: /* GQL_LIST_STRUCTS */
    gql_out_object_array(out, items, count, r->stride,
                         list_item_type(info->pf, r));
    return;
  }
}

void gql_exec_member_resolver(const gql_resolve_info *info, const void *parent,
                              gql_out *out) {
  const exec_resolver *r = info->pf->field->resolver;
  if (!parent) {
    gql_out_null(out);
    return;
  }
  if (r->list) {
    list_member_resolver(info, r, parent, out);
    return;
  }
  const char *p = (const char *)parent + r->offset;
  switch (r->member) {
  case GQL_MEMBER_INT32:
    gql_out_int(out, ld_i32(p));
    return;
  case GQL_MEMBER_INT64:
    gql_out_int(out, ld_i64(p));
    return;
  case GQL_MEMBER_DOUBLE:
    gql_out_float(out, ld_f64(p));
    return;
  case GQL_MEMBER_BOOL:
    gql_out_bool(out, ld_bool(p));
    return;
  case GQL_MEMBER_STR: {
    gql_str v = ld_str(p);
    if (v.ptr)
      gql_out_string(out, v.ptr, v.len);
    else
      gql_out_null(out);
    return;
  }
  case GQL_MEMBER_CSTR: {
    const char *v = ld_cstr(p);
    if (v)
      gql_out_string(out, v, strlen(v));
    else
      gql_out_null(out);
    return;
  }
  default: /* GQL_MEMBER_ENUM_U8 */
    gql_out_enum_index(out, (uint8_t)*p);
    return;
  }
}

static const gql_json_value *field_args(gql_out *o, const plan_field *pf) {
  exec_ctx *ctx = o->own.ctx;
  if (!pf->has_args)
    return NULL;
  if (pf->arg_error) {
    field_error(o, pf->arg_error, pf->arg_error_off);
    return NULL;
  }
  if (pf->arg_slot == UINT32_MAX)
    return pf->args_const;
  if (ctx->slots[pf->arg_slot])
    return ctx->slots[pf->arg_slot];
  coerce_ctx cc = {.s = ctx->s,
                   .arena = ctx->arena,
                   .vars = ctx->vars,
                   .var_defs = ctx->p->vars,
                   .nvars = ctx->p->nvars};
  const gql_ast_selection *node = pf->occs[0].node;
  const char *msg;
  uint32_t off;
  const gql_json_value *args;
  if (gql_exec_arg_values(&cc, pf->field->args, pf->field->nargs, &node->args,
                          node->h.start, &args, &msg, &off) < 0) {
    field_error(o, msg, off);
    return NULL;
  }
  ctx->slots[pf->arg_slot] = args;
  return args;
}

static __attribute__((noinline)) void
resolve_typename(exec_ctx *ctx, const plan_field *pf, gql_out *o) {
  gql_str name = ctx->s->types[pf->parent_type].name;
  set_written(o);
  if (!o->node) { /* a type name is a GraphQL name: JSON as is */
    gql_json_write_plain(ctx->out, name);
    return;
  }
  gql_json_value v = {.kind = GQL_JSON_STRING};
  v.string = name;
  serialize_leaf(o, &v);
}

/* A per-execution copy of h whose answers (calls) all ask for both hooks,
 * one per planned field (what no answer means); NULL when out of
 * memory. */
static gql_exec_hooks *hooks_asking(exec_ctx *ctx, const gql_exec_hooks *h) {
  uint32_t n = ctx->p->nplanned;
  gql_exec_hooks *c = gql_arena_alloc(ctx->arena, sizeof *c);
  uint8_t *calls = gql_arena_alloc(ctx->arena, n ? n : 1);
  if (!c || !calls)
    return NULL;
  *c = *h;
  memset(calls, GQL_HOOK_START | GQL_HOOK_FINISH, n);
  c->calls = calls;
  c->ncalls = n;
  return c;
}

/* The hooks' clock (h->now set): inline when it is the time-stamp
 * counter. */
static inline uint64_t hooks_now(const gql_exec_hooks *h) {
#ifdef GQL_EXEC_HAVE_TSC
  if (GQL_LIKELY(h->now_tsc))
    return __rdtsc();
#endif
  return h->now(h->pub.ctx);
}

/* A synchronous completion of field `pf` at field frame `fr` that the hooks
 * stamp: its time, or (gql_hooks.last_stamps, see items_last) none when a
 * later item of the list that the field's object is an item of will call
 * the same field: that call's completion comes later, and the stamp is
 * owed until then. */
static inline void stamp_completion(exec_ctx *ctx, const gql_exec_hooks *h,
                                    const plan_field *pf,
                                    const path_frame *fr) {
  const path_frame *it = fr->parent;
  if (it && !it->key && it->index < it->last) {
    h->stamps[pf->ordinal] = GQL_STAMP_OWED;
    ctx->owed = true;
    return;
  }
  h->stamps[pf->ordinal] = hooks_now(h);
}

/* Stores the time into every owed stamp: an error may end a list before
 * its next item calls the field (the stamp then ends no earlier than the
 * field's last completion, and no later than this error), and the hooks'
 * execute_error and execute_finish see none. */
static __attribute__((noinline)) void stamps_settle(exec_ctx *ctx) {
  ctx->owed = false;
  const gql_exec_hooks *h = ctx->hooks;
  uint64_t now = 0;
  for (uint32_t k = 0, n = ctx->p->nplanned; k < n; k++)
    if (h->stamps[k] == GQL_STAMP_OWED) {
      if (!now)
        now = hooks_now(h);
      h->stamps[k] = now;
    }
}

/* resolve_field with hooks, arguments or an aborted execution. */
static __attribute__((noinline)) void resolve_field_hooked(exec_ctx *ctx,
                                                           const plan_field *pf,
                                                           const void *parent,
                                                           gql_out *o) {
  gql_resolve_info *info = &o->own;
  if (pf->has_args) {
    info->args = field_args(o, pf);
    if (!info->args)
      return;
  }
  const gql_exec_hooks *h = ctx->hooks;
  unsigned calls = GQL_HOOK_START | GQL_HOOK_FINISH;
  if (GQL_LIKELY(h != NULL)) {
    if (pf->ordinal < h->ncalls) { /* the tracer's cached answer */
      calls = h->calls[pf->ordinal];
      if ((calls & GQL_HOOK_ENTRY) && h->starts && h->now) {
        /* a start stamp instead of a resolve_start, once (calls is
         * writable when it asks for this) */
        h->starts[pf->ordinal] = hooks_now(h);
        calls &= ~(unsigned)GQL_HOOK_ENTRY;
        ((uint8_t *)(uintptr_t)h->calls)[pf->ordinal] = (uint8_t)calls;
      }
    }
    if ((calls & GQL_HOOK_START) && h->pub.resolve_start) {
      if (h->pub.resolve_start(h->pub.ctx, info) && !ctx->aborted) {
        ctx->aborted = true;
        /* From here on every call takes this path (hook_free reads no
         * abort flag): the hooks with answers that all ask. (Out of
         * memory, the owner's entries still count: gql_trace's are
         * all non-zero after an abort.) */
        gql_exec_hooks *c = hooks_asking(ctx, h);
        if (c) {
          ctx->hooks = c;
          h = c;
        }
      }
      if (pf->ordinal < h->ncalls) /* it may answer for this call's finish */
        calls = h->calls[pf->ordinal];
    }
  }
  if (GQL_UNLIKELY(ctx->aborted)) {
    if (h && h->pub.resolve_finish) /* the call completes, without an error */
      h->pub.resolve_finish(h->pub.ctx, info);
    field_error(o, "Execution aborted.", UINT32_MAX);
    return;
  }
  const exec_resolver *r = pf->field->resolver;
  if (r)
    r->fn(info, parent, o);
  else
    gql_exec_default_resolver(info, parent, o);
  if (!o->written) {
    set_written(o);
    complete_null(o);
  }
  if (GQL_UNLIKELY(h == NULL) || o->pended)
    return; /* a pending field's resolve_finish comes later */
  if (h->pub.resolve_finish && ((calls & GQL_HOOK_FINISH) || info->error))
    h->pub.resolve_finish(h->pub.ctx, info);
  else if ((calls & GQL_HOOK_STAMP) && h->stamps && h->now)
    stamp_completion(ctx, h, pf, o->own.path);
}

/* The tracer's cached answer: this call of a traced execution needs no
 * hook (a collapsed sibling, a leaf). After an abort ctx->hooks has no
 * answers (see resolve_field_hooked): no abort flag to read per call. */
static inline bool hook_free(const exec_ctx *ctx, const gql_exec_hooks *h,
                             const plan_field *pf) {
  (void)ctx;
  return pf->ordinal < h->ncalls && !h->calls[pf->ordinal];
}

/* The same, for ctx->hooks, which has an answer for every planned field
 * (see answer_early): its answer, read without a bound check. */
static inline unsigned hooks_answer(const gql_exec_hooks *h,
                                    const plan_field *pf) {
  return h->calls[pf->ordinal];
}

/* Or it needs a clock read at its completion only (GQL_HOOK_STAMP). */
static inline bool stamp_only(const exec_ctx *ctx, const gql_exec_hooks *h,
                              const plan_field *pf) {
  return pf->ordinal < h->ncalls && h->calls[pf->ordinal] == GQL_HOOK_STAMP &&
         !ctx->aborted && h->stamps && h->now;
}

/* A hook-free call runs like an untraced one, except that an error still
 * reaches resolve_finish, and that with `stamp` a synchronous completion
 * gets its clock read. */
static inline __attribute__((always_inline)) void
call_hook_free(exec_ctx *ctx, const gql_exec_hooks *h, const plan_field *pf,
               const void *parent, gql_out *o, bool stamp) {
  pf->fn(&o->own, parent, o);
  if (GQL_UNLIKELY(!o->written)) {
    set_written(o);
    complete_null(o);
  }
  /* a pended call's completion comes through pending_done */
  if (GQL_UNLIKELY(o->own.error != NULL)) {
    if (!o->pended && h->pub.resolve_finish)
      h->pub.resolve_finish(h->pub.ctx, &o->own);
  } else if (stamp && !o->pended) {
    stamp_completion(ctx, h, pf, o->own.path);
  }
}

/* A call with hooks, arguments or after an abort: hook-free when the
 * tracer says so, else resolve_field_hooked. */
static __attribute__((noinline)) void resolve_field_slow(exec_ctx *ctx,
                                                         const plan_field *pf,
                                                         const void *parent,
                                                         gql_out *o) {
  const gql_exec_hooks *h = ctx->hooks;
  if (GQL_LIKELY(h && !pf->has_args)) {
    if (hook_free(ctx, h, pf)) {
      call_hook_free(ctx, h, pf, parent, o, false);
      return;
    }
    if (stamp_only(ctx, h, pf)) {
      call_hook_free(ctx, h, pf, parent, o, true);
      return;
    }
  }
  resolve_field_hooked(ctx, pf, parent, o);
}

static void resolve_field(exec_ctx *ctx, const plan_field *pf,
                          const void *parent, const path_frame *path,
                          gql_out *o) {
  if (pf->meta == META_TYPENAME) {
    resolve_typename(ctx, pf, o);
    return;
  }
  /* out_init set ctx, pf, path and error; the rest only matters here */
  (void)path;
  o->own.args = NULL;
  o->own.trace = NULL;
  if (GQL_UNLIKELY(pf->has_args || ctx->hooks || ctx->aborted)) {
    /* constant arguments, untraced (ctx->aborted is only ever set with
     * hooks): the resolver straight */
    if (!pf->args_ready || ctx->hooks) {
      resolve_field_slow(ctx, pf, parent, o);
      return;
    }
    o->own.args = pf->args_const;
  }
  pf->fn(&o->own, parent, o);
  if (!o->written) {
    set_written(o);
    complete_null(o);
  }
}

/* The info a resolver or resolve_type of this output is given. */
static inline const gql_resolve_info *out_info(const gql_out *o) {
  return o->info ? o->info : &o->own;
}

/* Sets every member but own.args and own.trace, which only resolve_field's
 * slow path reads (this runs for every field, so it does not clear the
 * whole struct). List items set `info` to the field's. */
static inline void out_init(gql_out *o, exec_ctx *ctx, const plan_field *pf,
                            gql_type_ref type, uint8_t dleaf,
                            const path_frame *path, rnode *node) {
  o->own.ctx = ctx;
  o->own.pf = pf;
  o->own.path = path;
  o->own.error = NULL;
  o->info = NULL;
  o->type = type;
  o->node = node;
  o->mark = ctx->out->len;
  o->written = false;
  o->prop = false;
  o->pending_root = false;
  o->pended = false;
  o->field_level = false;
  o->dleaf = node ? LEAF_NONE : dleaf;
}

/* `sep` ('{' or ',') and the field's "key": with one capacity check, and
 * for a key under 32 bytes one or two 16-byte copies. */
static inline void put_key(gql_buf *b, char sep, const plan_field *pf) {
  if (GQL_LIKELY(pf->key_short && b->cap - b->len >= 32)) {
    char *d = b->data + b->len;
    memcpy(d, pf->key_pad + 1, 16);
    if (pf->key_short > 16)
      memcpy(d + 16, pf->key_pad + 17, 16);
    d[0] = sep;
    b->len += pf->key_short;
    return;
  }
  gql_str kj = pf->key_json;
  if (GQL_UNLIKELY(b->cap - b->len < kj.len + 1) &&
      !gql_buf_reserve(b, kj.len + 1))
    return;
  b->data[b->len++] = sep;
  gql_buf_put(b, kj.ptr, kj.len);
}

/* A list item's opening and its first field's key: `open` ('[' or ','),
 * '{' and "key": in one or two 16-byte copies. */
static inline void put_item_key(gql_buf *b, char open, const plan_field *pf) {
  if (GQL_LIKELY(pf->key_short && b->cap - b->len >= 32)) {
    char *d = b->data + b->len;
    memcpy(d, pf->key_pad, 16);
    if (pf->key_short >= 16)
      memcpy(d + 16, pf->key_pad + 16, 16);
    d[0] = open;
    d[1] = '{';
    b->len += pf->key_short + 1u;
    return;
  }
  gql_buf_putc(b, open);
  put_key(b, '{', pf);
}

/* One field of an object written in place, into `o`, the output that
 * exec_object_direct shares between its fields (its ctx, path frame, info,
 * node and pending flags are set once per object: in direct mode a field
 * never keeps its output past its write); true when the object must become
 * null. A plain field (no arguments, not __typename) with no hook attached
 * calls its resolver straight. */
/* A member field (plan_field.member) written straight into b, with no
 * resolver call and no output set-up: true when written; false (nothing
 * written) when the value needs the general path (a null, an Int out of
 * range, a non-finite Float, an enum index out of range). */
static inline __attribute__((always_inline)) bool
member_write(gql_buf *b, uint8_t kind, const plan_field *pf, const char *p) {
  switch (kind) {
  case MEMBER_INT32:
    gql_json_write_int(b, ld_i32(p));
    return true;
  case MEMBER_INT64_INT: {
    int64_t v = ld_i64(p);
    if ((uint64_t)v + 2147483648u > UINT32_MAX) /* outside Int's range */
      return false;
    gql_json_write_int(b, v);
    return true;
  }
  case MEMBER_INT64:
    gql_json_write_int(b, ld_i64(p));
    return true;
  case MEMBER_DOUBLE: {
    double v = ld_f64(p);
    if (!isfinite(v))
      return false;
    gql_json_write_double(b, v);
    return true;
  }
  case MEMBER_BOOL:
    if (ld_bool(p))
      gql_buf_put(b, "true", 4);
    else
      gql_buf_put(b, "false", 5);
    return true;
  case MEMBER_STR: {
    gql_str v = ld_str(p);
    if (!v.ptr)
      return false;
    gql_json_write_string(b, v);
    return true;
  }
  case MEMBER_CSTR: {
    const char *v = ld_cstr(p);
    if (!v)
      return false;
    gql_json_write_string(b, (gql_str){v, strlen(v)});
    return true;
  }
  case MEMBER_ENUM: {
    uint8_t v = (uint8_t)*p;
    const gql_type *e = pf->named;
    if (v >= e->nvalues)
      return false;
    gql_json_write_plain(b, e->values[v].name);
    return true;
  }
  default: /* MEMBER_NONE: callers test it first */
    __builtin_unreachable();
  }
}

/* The resolvers of member fields in objects that also have other fields
 * (plan_field.fn when pf->member is set; all-members objects take
 * members_fields): the member written straight into the response when the
 * output is the field's own in direct mode, else the general path. */
#define MEMBER_FN(name, kind)                                                  \
  static void name(const gql_resolve_info *info, const void *parent,           \
                   gql_out *o) {                                               \
    const plan_field *pf = info->pf;                                           \
    uint8_t dleaf = o->dleaf;                                                  \
    if (GQL_LIKELY(parent && dleaf != LEAF_NONE)) {                            \
      /* written first, so that the write is the last call (a tail call);      \
       * member_write writes nothing when it fails */                          \
      set_written(o);                                                          \
      if (member_write(o->own.ctx->out, kind, pf,                              \
                       (const char *)parent + pf->member_off))                 \
        return;                                                                \
      o->written = false;                                                      \
      o->dleaf = dleaf;                                                        \
    }                                                                          \
    gql_exec_member_resolver(info, parent, o);                                 \
  }
MEMBER_FN(member_int32, MEMBER_INT32)
MEMBER_FN(member_int64_int, MEMBER_INT64_INT)
MEMBER_FN(member_int64, MEMBER_INT64)
MEMBER_FN(member_double, MEMBER_DOUBLE)
MEMBER_FN(member_bool, MEMBER_BOOL)
MEMBER_FN(member_str, MEMBER_STR)
MEMBER_FN(member_cstr, MEMBER_CSTR)
MEMBER_FN(member_enum, MEMBER_ENUM)
#undef MEMBER_FN

static void member_list(const gql_resolve_info *info, const void *parent,
                        gql_out *o);

gql_resolver_fn gql_exec_member_fn(uint8_t member) {
  static const gql_resolver_fn fns[] = {
      [MEMBER_INT32] = member_int32,    [MEMBER_INT64_INT] = member_int64_int,
      [MEMBER_INT64] = member_int64,    [MEMBER_DOUBLE] = member_double,
      [MEMBER_BOOL] = member_bool,      [MEMBER_STR] = member_str,
      [MEMBER_CSTR] = member_cstr,      [MEMBER_ENUM] = member_enum,
      [MEMBER_LIST_ENUM] = member_list, [MEMBER_LIST_OBJECTS] = member_list};
  return member < GQL_ARRAY_LEN(fns) && fns[member] ? fns[member]
                                                    : gql_exec_member_resolver;
}

static inline __attribute__((always_inline)) bool
field_direct(exec_ctx *ctx, gql_buf *b, const plan_field *pf,
             const void *parent, path_frame *fr, gql_out *o) {

  fr->key = &pf->key;
  o->own.pf = pf;
  o->own.error = NULL;
  o->type = pf->type;
  o->mark = b->len; /* b is ctx->out */
  o->written = false;
  o->prop = false;
  o->dleaf = pf->dleaf;
  /* ctx->aborted is only ever set with hooks attached */
  const gql_exec_hooks *h = ctx->hooks;
  if (GQL_LIKELY(pf->plain && !h)) {
    pf->fn(&o->own, parent, o);
    if (GQL_UNLIKELY(!o->written)) {
      set_written(o);
      complete_null(o);
    }
  } else if (pf->plain) {
    unsigned c = hooks_answer(h, pf);
    if (GQL_LIKELY(c == 0)) {
      /* traced, but the tracer needs no hook for this call: inline, and
       * like the untraced call above (own.args and own.trace as they
       * were: the tracer that asked for no hook reads neither) */
      call_hook_free(ctx, h, pf, parent, o, false);
    } else if (c == GQL_HOOK_STAMP && h->stamps && h->now) {
      /* a composite field's (after an abort every answer asks) */
      call_hook_free(ctx, h, pf, parent, o, true);
    } else { /* what resolve_field would come to */
      o->own.args = NULL;
      o->own.trace = NULL;
      resolve_field_hooked(ctx, pf, parent, o);
    }
  } else {
    resolve_field(ctx, pf, parent, fr, o);
  }
  return o->prop;
}

/* The output the fields of an object share (see field_direct), with its
 * path frame `fr`: set once per object, or once per list of objects. */
static inline void object_out_init(gql_out *o, exec_ctx *ctx, path_frame *fr) {
  o->own.ctx = ctx;
  o->own.path = fr;
  o->info = NULL;
  o->node = NULL;
  o->pending_root = false;
  o->pended = false;
  o->field_level = false;
}

/* Writes {...} for plan set `ps` into b (ctx->out) with the output and
 * frame object_out_init set; true when the object must become null. */
static inline __attribute__((always_inline)) bool
object_fields(exec_ctx *ctx, gql_buf *b, const plan_set *ps, const void *parent,
              path_frame *fr, gql_out *o) {
  if (!ps->any_cond) {
    /* The first field peeled off, so that each separator is a constant,
     * and a pointer walk, which the resolver calls cannot make reload. */
    const plan_field *pf = ps->fields, *end = ps->fields_end;
    if (pf == end) {
      gql_buf_put(b, "{}", 2);
      return false;
    }
    put_key(b, '{', pf);
    if (field_direct(ctx, b, pf, parent, fr, o))
      return true;
    while (++pf < end) {
      put_key(b, ',', pf);
      if (field_direct(ctx, b, pf, parent, fr, o))
        return true;
    }
    gql_buf_putc(b, '}');
    return false;
  }
  char sep = '{';
  for (uint32_t i = 0; i < ps->nentries; i++) {
    if (!field_included(ctx, ps, ps->entries[i]))
      continue;
    const plan_field *pf = &ps->fields[ps->entries[i].field];
    put_key(b, sep, pf);
    sep = ',';
    if (field_direct(ctx, b, pf, parent, fr, o))
      return true;
  }
  if (sep == '{')
    gql_buf_putc(b, '{');
  gql_buf_putc(b, '}');
  return false;
}

/* A field of an all-members object whose value needs the general path, at
 * response path `path` (the object's); out of line: rare, and it keeps
 * the members loop free of outputs and frames. */
static __attribute__((noinline)) bool field_general(exec_ctx *ctx, gql_buf *b,
                                                    const plan_field *pf,
                                                    const void *parent,
                                                    const path_frame *path) {
  path_frame fr;
  fr.parent = path;
  gql_out o;
  object_out_init(&o, ctx, &fr);
  return field_direct(ctx, b, pf, parent, &fr, &o);
}

/* enum_items_put value by value, with a capacity check each. */
static __attribute__((noinline)) bool enum_items_slow(gql_buf *b,
                                                      const plan_field *pf,
                                                      const uint8_t *items,
                                                      size_t count) {
  const gql_type *e = pf->named;
  size_t mark = b->len;
  for (size_t i = 0; i < count; i++) {
    uint8_t v = items[i];
    if (v >= e->nvalues) {
      b->len = mark;
      return false;
    }
    gql_buf_putc(b, i ? ',' : '[');
    gql_json_write_plain(b, e->values[v].name);
  }
  if (!count)
    gql_buf_putc(b, '[');
  gql_buf_putc(b, ']');
  return true;
}

/* [...] for enum indices items[0..count) of enum pf->named: true when
 * written; false (nothing written) when an index is out of range. A short
 * list of short names (exec_type.quoted) takes one capacity check and a
 * copy of each value's slot, with no call. */
static inline __attribute__((always_inline)) bool
enum_items_put(gql_buf *b, const plan_field *pf, const uint8_t *items,
               size_t count) {
  const char *q = ((const exec_type *)pf->named->exec_data)->quoted;
  size_t need = count * ENUM_SLOT + 2;
  if (GQL_UNLIKELY(!q || count > 64 ||
                   (b->cap - b->len < need && !gql_buf_reserve(b, need))))
    return enum_items_slow(b, pf, items, count);
  uint32_t nvalues = pf->named->nvalues;
  char *start = b->data + b->len, *d = start;
  for (size_t i = 0; i < count; i++) {
    uint8_t v = items[i];
    if (GQL_UNLIKELY(v >= nvalues))
      return false; /* b->len has not moved */
    const char *slot = q + (size_t)v * ENUM_SLOT;
    uint8_t n = (uint8_t)slot[ENUM_SLOT - 1];
    memcpy(d, slot, 16);
    if (n > 16)
      memcpy(d + 16, slot + 16, 16);
    d += n;
  }
  if (count)
    *start = '[';
  else
    *d++ = '[';
  *d++ = ']';
  b->len = (size_t)(d - b->data);
  return true;
}

/* An enum list member (MEMBER_LIST_ENUM) of parent p written straight
 * into b: true when written; false (nothing written) when it needs the
 * general path (a null list, an index out of range), which writes it
 * again from the start: enum items have no side effects to repeat. */
static __attribute__((noinline)) bool
enum_list_write(gql_buf *b, const plan_field *pf, const char *p) {
  const exec_resolver *r = pf->field->resolver;
  const uint8_t *items =
      (const uint8_t *)ld_items(p, pf->member_off, r->items_inline);
  if (!items)
    return false;
  size_t count = ld_count(p + r->count_offset, r->count_size);
  return enum_items_put(b, pf, items, count);
}

static bool members_list(exec_ctx *ctx, gql_buf *b, const plan_field *pf,
                         const char *p, const path_frame *path);

/* One field of an all-members object (see members_fields): true when the
 * object must become null. */
static inline __attribute__((always_inline)) bool
member_field(exec_ctx *ctx, gql_buf *b, const plan_field *pf, const char *p,
             const path_frame *path) {
  bool done;
  const char *m = p + pf->member_off;
  /* one switch: each scalar case is member_write of a constant kind */
  switch (pf->member) {
#define SCALAR(kind)                                                           \
  case kind:                                                                   \
    done = member_write(b, kind, pf, m);                                       \
    break;
    SCALAR(MEMBER_INT32)
    SCALAR(MEMBER_INT64_INT)
    SCALAR(MEMBER_INT64)
    SCALAR(MEMBER_DOUBLE)
    SCALAR(MEMBER_BOOL)
    SCALAR(MEMBER_STR)
    SCALAR(MEMBER_CSTR)
    SCALAR(MEMBER_ENUM)
#undef SCALAR
  case MEMBER_LIST_ENUM:
    done = enum_list_write(b, pf, p);
    break;
  case MEMBER_LIST_OBJECTS:
    return members_list(ctx, b, pf, p, path);
  default: /* MEMBER_NONE: not in an all-members set */
    __builtin_unreachable();
  }
  return !done && field_general(ctx, b, pf, p, path);
}

/* The resolver of a list member beside other fields (plan_field.fn for
 * MEMBER_LIST_*): written as in an all-members object when the output is
 * the field's own in direct mode (its frame's parent is the object's
 * path), untraced, and the list is not null; else the general path. */
static void member_list(const gql_resolve_info *info, const void *parent,
                        gql_out *o) {
  const plan_field *pf = info->pf;
  exec_ctx *ctx = o->own.ctx;
  if (GQL_LIKELY(parent && !o->node && !o->written && !ctx->hooks)) {
    const exec_resolver *r = pf->field->resolver;
    if (pf->member == MEMBER_LIST_ENUM) {
      if (enum_list_write(ctx->out, pf, parent)) {
        set_written(o);
        return;
      }
    } else if (ld_items(parent, pf->member_off, r->items_inline)) {
      set_written(o);
      if (members_list(ctx, ctx->out, pf, parent, o->own.path->parent))
        o->prop = true; /* the non-null list failed */
      return;
    }
  }
  gql_exec_member_resolver(info, parent, o);
}

/* object_fields for a plan set whose fields are all members
 * (plan_set.all_members), untraced, of a parent at `path`: keys and
 * values, nothing else, unless a value needs the general path. */
static inline __attribute__((always_inline)) bool
members_fields(exec_ctx *ctx, gql_buf *b, const plan_set *ps,
               const void *parent, const path_frame *path, char open) {
  const plan_field *pf = ps->fields, *end = ps->fields_end;
  const char *p = parent;
  if (open)
    put_item_key(b, open, pf);
  else
    put_key(b, '{', pf);
  if (member_field(ctx, b, pf, p, path))
    return true;
  while (++pf < end) {
    put_key(b, ',', pf);
    if (member_field(ctx, b, pf, p, path))
      return true;
  }
  gql_buf_putc(b, '}');
  return false;
}

/* exec_object_direct of an all-members plan set (untraced, a parent); out
 * of line, so that the general loop keeps its registers. */
static __attribute__((noinline)) bool members_object(exec_ctx *ctx,
                                                     const plan_set *ps,
                                                     const void *parent,
                                                     const path_frame *path) {
  return members_fields(ctx, ctx->out, ps, parent, path, 0);
}

/* Writes {...} for plan set `ps` straight into the buffer; true when the
 * object must become null. */
static __attribute__((noinline)) bool object_direct(exec_ctx *ctx,
                                                    const plan_set *ps,
                                                    const void *parent,
                                                    const path_frame *path) {
  path_frame fr;
  fr.parent = path;
  gql_out o;
  object_out_init(&o, ctx, &fr);
  return object_fields(ctx, ctx->out, ps, parent, &fr, &o);
}
static inline bool exec_object_direct(exec_ctx *ctx, const plan_set *ps,
                                      const void *parent,
                                      const path_frame *path) {
  if (ps->all_members && !ctx->hooks && parent)
    return members_object(ctx, ps, parent, path);
  return object_direct(ctx, ps, parent, path);
}

/* path_frame.last for the items of a list of `count` items, in an
 * execution that asks for last stamps (ctx->last_stamps, tested by the
 * callers first: an argument they computed before it would cost the
 * untraced lists): its last index when the items are non-null and have
 * one plan (`one_plan_non_null`: in a synchronous execution each item then
 * calls every field an earlier one called, unless an error ends the list),
 * else 0. */
static inline int64_t items_last(bool one_plan_non_null, size_t count) {
  return one_plan_non_null ? (int64_t)count - 1 : 0;
}

/* Writes [{...},...] for `count` objects `stride` bytes apart, each by plan
 * set `ps`; a failed item becomes null, or when items are non-null, the
 * call returns true (the list must become null). `members`: ps is
 * all-members and untraced (members_fields, no output); else one output
 * and one pair of path frames serve every item (the item's index changes).
 * Inlined into its two callers, so that each loop keeps its registers. */
static inline __attribute__((always_inline)) bool
array_items(exec_ctx *ctx, const plan_set *ps, const char *p, size_t count,
            size_t stride, const path_frame *path, bool item_non_null,
            bool members) {
  gql_buf *b = ctx->out;
  path_frame item = {path, NULL, 0, 0};
  path_frame fr;
  gql_out o;
  if (!members) {
    if (GQL_UNLIKELY(ctx->last_stamps))
      item.last = items_last(item_non_null, count);
    fr.parent = &item;
    object_out_init(&o, ctx, &fr);
  }
  for (size_t i = 0; i < count; i++, p += stride) {
    size_t mark;
    if (members) {
      mark = b->len + 1; /* after the '[' or ',' members_fields writes */
    } else {
      gql_buf_putc(b, i ? ',' : '[');
      mark = b->len;
    }
    item.index = (int64_t)i;
    if (members ? members_fields(ctx, b, ps, p, &item, i ? ',' : '[')
                : object_fields(ctx, b, ps, p, &fr, &o)) {
      if (item_non_null)
        return true;
      b->len = mark;
      gql_buf_append(b, "null", 4);
    }
  }
  if (!count)
    gql_buf_putc(b, '[');
  gql_buf_putc(b, ']');
  return false;
}

/* array_items of an all-members plan set (untraced), out of line. */
static __attribute__((noinline)) bool
members_array(exec_ctx *ctx, const plan_set *ps, const char *p, size_t count,
              size_t stride, const path_frame *path, bool item_non_null) {
  return array_items(ctx, ps, p, count, stride, path, item_non_null, true);
}

/* array_items for gql_out_object_array's fast path. */
static bool exec_array_direct(exec_ctx *ctx, const plan_set *ps, const char *p,
                              size_t count, size_t stride,
                              const path_frame *path, bool item_non_null) {
  if (ps->all_members && !ctx->hooks) /* p is not NULL */
    return members_array(ctx, ps, p, count, stride, path, item_non_null);
  return array_items(ctx, ps, p, count, stride, path, item_non_null, false);
}

/* Tree mode: an object node whose fields fill its kids. */
static void tree_field(exec_ctx *ctx, const plan_field *pf, const void *parent,
                       const path_frame *path, rnode *kid) {
  path_frame fr;
  fr.parent = path;
  fr.key = &pf->key;
  gql_out o;
  out_init(&o, ctx, pf, pf->type, pf->dleaf, &fr, kid);
  resolve_field(ctx, pf, parent, &fr, &o);
}

/* Resolves the root fields of a mutation until one pends (it resumes when
 * everything pending has completed) or all are done. */
static void serial_continue(exec_ctx *ctx) {
  serial_walk *w = &ctx->serial;
  bool walking = ctx->walking;
  ctx->walking = true;
  while (w->next < w->count && ctx->pending == 0) {
    uint32_t k = w->next++;
    tree_field(ctx, w->fields[k], w->parent, NULL, &w->node->kids[k]);
  }
  ctx->walking = walking;
  if (!walking && ctx->pending == 0)
    finish(ctx);
}

/* Tree mode: an object node whose fields fill its kids. Its fields and
 * keys are laid out first; `serial` (the root of a mutation) resolves them
 * one after the other, each after the previous one has completed. */
static void exec_object_tree(exec_ctx *ctx, const plan_set *ps,
                             const void *parent, const path_frame *path,
                             rnode *node, bool serial) {
  uint32_t n = ps->any_cond ? ps->nentries : ps->nfields;
  uint32_t count = 0;
  for (uint32_t i = 0; i < n; i++)
    count += !ps->any_cond || field_included(ctx, ps, ps->entries[i]);
  rnode *kids = gql_arena_alloc(ctx->arena, sizeof *kids * (count + 1));
  gql_str *keys = gql_arena_alloc(ctx->arena, sizeof *keys * (count + 1));
  const plan_field **fields =
      gql_arena_alloc(ctx->arena, sizeof *fields * (count + 1));
  if (!kids || !keys || !fields) {
    tree_fail(ctx, node);
    return;
  }
  node->kind = R_OBJECT;
  node->kids = kids;
  node->keys = keys;
  node->nkids = count;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const plan_field *pf;
    if (ps->any_cond) {
      if (!field_included(ctx, ps, ps->entries[i]))
        continue;
      pf = &ps->fields[ps->entries[i].field];
    } else {
      pf = &ps->fields[i];
    }
    fields[k] = pf;
    kids[k] = (rnode){.kind = R_EMPTY,
                      .parent = node,
                      .nullable = !gql_type_ref_is_non_null(pf->field->type)};
    keys[k++] = pf->key_json;
  }
  if (serial) {
    ctx->serial = (serial_walk){fields, count, 0, parent, node};
    serial_continue(ctx);
    return;
  }
  for (k = 0; k < count; k++)
    tree_field(ctx, fields[k], parent, path, &kids[k]);
}

/* ------------------------------------------------------------ objects */

static const plan_set *sub_plan(const plan_field *pf, uint32_t type) {
  if (pf->sub_span) {
    uint32_t k = type - pf->sub_lo;
    return k < pf->sub_span ? pf->sub_table[k] : NULL;
  }
  for (uint32_t i = 0; i < pf->nsubs; i++)
    if (pf->sub_types[i] == type)
      return pf->subs[i];
  return NULL;
}

static void complete_object(gql_out *o, const void *obj, uint32_t concrete) {
  exec_ctx *ctx = o->own.ctx;
  const plan_set *ps = sub_plan(o->own.pf, concrete);
  if (!ps) {
    const gql_type *ct = &ctx->s->types[concrete];
    const gql_type *at = &ctx->s->types[o->type.type];
    field_errorf(o,
                 "Runtime Object type \"%.*s\" is not a possible type for "
                 "\"%.*s\".",
                 (int)ct->name.len, ct->name.ptr, (int)at->name.len,
                 at->name.ptr);
    return;
  }
  if (!o->node) {
    if (exec_object_direct(ctx, ps, obj, o->own.path))
      value_failed(o);
    return;
  }
  if (ctx->s->types[concrete].sync) {
    size_t start = ctx->out->len;
    if (exec_object_direct(ctx, ps, obj, o->own.path)) {
      ctx->out->len = start;
      value_failed(o);
      return;
    }
    o->node->kind = R_BYTES;
    o->node->start = start;
    o->node->end = ctx->out->len;
    return;
  }
  exec_object_tree(ctx, ps, obj, o->own.path, o->node, false);
}

/* graphql-js ensureValidRuntimeType, for a type index (< ntypes). */
static void complete_abstract_index(gql_out *o, const void *obj, uint32_t t) {
  exec_ctx *ctx = o->own.ctx;
  if (GQL_UNLIKELY(ctx->s->types[t].kind != GQL_TYPE_OBJECT)) {
    const gql_type *at = &ctx->s->types[o->type.type];
    const gql_str *name = &ctx->s->types[t].name;
    field_errorf(o,
                 "Abstract type \"%.*s\" was resolved to a non-object type "
                 "\"%.*s\".",
                 (int)at->name.len, at->name.ptr, (int)name->len, name->ptr);
    return;
  }
  complete_object(o, obj, t);
}

/* graphql-js ensureValidRuntimeType, for a type found by name. */
static void complete_abstract_named(gql_out *o, const void *obj, gql_str name) {
  exec_ctx *ctx = o->own.ctx;
  const gql_type *at = &ctx->s->types[o->type.type];
  uint32_t t = gql_schema_type_index(ctx->s, name);
  if (t == GQL_NO_TYPE) {
    field_errorf(o,
                 "Abstract type \"%.*s\" was resolved to a type \"%.*s\" "
                 "that does not exist inside the schema.",
                 (int)at->name.len, at->name.ptr, (int)name.len, name.ptr);
    return;
  }
  complete_abstract_index(o, obj, t);
}

static void no_runtime_type(gql_out *o) {
  exec_ctx *ctx = o->own.ctx;
  const gql_str *an = &ctx->s->types[o->type.type].name;
  const gql_str *pn = parent_name(o);
  field_errorf(o,
               "Abstract type \"%.*s\" must resolve to an Object type at "
               "runtime for field \"%.*s.%.*s\". Either the \"%.*s\" type "
               "should provide a \"resolveType\" function or each possible "
               "type should provide an \"isTypeOf\" function.",
               (int)an->len, an->ptr, (int)pn->len, pn->ptr,
               (int)o->own.pf->field->name.len, o->own.pf->field->name.ptr,
               (int)an->len, an->ptr);
}

static void complete_composite(gql_out *o, const void *obj, uint32_t type,
                               bool json) {
  exec_ctx *ctx = o->own.ctx;
  uint32_t t = o->type.type;
  const gql_type *ty = &ctx->s->types[t];
  if (ty->kind == GQL_TYPE_OBJECT) {
    complete_object(o, obj, t);
    return;
  }
  if (type != GQL_TYPE_AUTO) {
    if (type >= ctx->s->ntypes) {
      no_runtime_type(o);
      return;
    }
    complete_abstract_index(o, obj, type);
    return;
  }
  const exec_type *et = ty->exec_data;
  if (et && et->resolve_type) {
    int64_t r = et->resolve_type(out_info(o), obj);
    if (r < 0 || (uint64_t)r >= ctx->s->ntypes) {
      no_runtime_type(o);
      return;
    }
    complete_abstract_index(o, obj, (uint32_t)r);
    return;
  }
  const gql_json_value *v = obj;
  const gql_json_value *tn = v && v->kind == GQL_JSON_OBJECT
                                 ? gql_json_get(v, GQL_STR("__typename"))
                                 : NULL;
  if (!tn || tn->kind != GQL_JSON_STRING) {
    no_runtime_type(o);
    return;
  }
  complete_abstract_named(o, obj, tn->string);
}

/* ------------------------------------------------------------ lists */

static void complete_list(gql_out *o, const void *list, size_t count,
                          gql_list_item_fn fn) {
  exec_ctx *ctx = o->own.ctx;
  const plan_field *pf = o->own.pf;
  gql_type_ref item;
  uint8_t dleaf;
  if (GQL_LIKELY(o->type.nmods == pf->type.nmods)) { /* the field's list */
    item = pf->list_item;
    dleaf = pf->list_dleaf;
  } else { /* a list in a list */
    item = gql_type_ref_unwrap(gql_type_ref_nullable(o->type));
    dleaf = gql_exec_fast_kind(item, pf->leaf);
  }
  if (!o->node) {
    /* One output for every item: in direct mode an item's write changes
     * only its written, prop and dleaf members (a pending write is an
     * error here), which are reset with its mark and path index. */
    gql_buf *b = ctx->out;
    /* items_one: a list of non-null items of the field's object type (the
     * field's own list: it has no list in it), so that an item fn writes
     * such an object or an error */
    path_frame fr = {o->own.path, NULL, 0, 0};
    if (GQL_UNLIKELY(ctx->last_stamps))
      fr.last = items_last(pf->items_one, count);
    gql_out io;
    out_init(&io, ctx, o->own.pf, item, dleaf, &fr, NULL);
    io.info = out_info(o);
    if (!count)
      gql_buf_putc(b, '[');
    for (size_t i = 0; i < count; i++) {
      gql_buf_putc(b, i ? ',' : '[');
      fr.index = (int64_t)i;
      io.mark = b->len;
      io.written = false;
      io.prop = false;
      io.dleaf = dleaf;
      fn(list, i, &io);
      if (!io.written) {
        set_written(&io);
        complete_null(&io);
      }
      if (io.prop) {
        value_failed(o);
        return;
      }
    }
    gql_buf_putc(b, ']');
    return;
  }
  rnode *kids = gql_arena_alloc(ctx->arena, sizeof *kids * (count + 1));
  if (!kids) {
    field_error(o, "Out of memory.", UINT32_MAX);
    return;
  }
  rnode *node = o->node;
  node->kind = R_LIST;
  node->kids = kids;
  node->nkids = (uint32_t)count;
  for (size_t i = 0; i < count; i++) {
    kids[i] = (rnode){.kind = R_EMPTY,
                      .parent = node,
                      .nullable = !gql_type_ref_is_non_null(item)};
    path_frame fr = {o->own.path, NULL, (int64_t)i, 0};
    gql_out io;
    out_init(&io, ctx, o->own.pf, item, dleaf, &fr, &kids[i]);
    io.info = out_info(o);
    fn(list, i, &io);
    if (!io.written) {
      set_written(&io);
      complete_null(&io);
    }
  }
}

static void json_item(const void *list, size_t i, gql_out *out) {
  const gql_json_value *l = list;
  gql_out_json(out, &l->array.items[i]);
}

static void not_iterable(gql_out *o) {
  const gql_str *pn = parent_name(o);
  field_errorf(o,
               "Expected Iterable, but did not find one for field "
               "\"%.*s.%.*s\".",
               (int)pn->len, pn->ptr, (int)o->own.pf->field->name.len,
               o->own.pf->field->name.ptr);
}

/* completeValue for a JSON value. */
static void complete_json(gql_out *o, const gql_json_value *v) {
  if (!v || v->kind == GQL_JSON_NULL) {
    complete_null(o);
    return;
  }
  gql_type_ref t = gql_type_ref_nullable(o->type);
  if (gql_type_ref_is_list(t)) {
    if (v->kind != GQL_JSON_ARRAY) {
      not_iterable(o);
      return;
    }
    complete_list(o, v, v->array.count, json_item);
    return;
  }
  if (o->own.pf->leaf != LEAF_NONE) {
    serialize_leaf(o, v);
    return;
  }
  complete_composite(o, v, GQL_TYPE_AUTO, true);
}

/* ------------------------------------------------------------ gql_out */

void gql_out_null(gql_out *o) {
  if (!begin(o))
    return;
  complete_null(o);
  DONE(o);
}

static void out_scalar(gql_out *o, const gql_json_value *v) {
  if (!begin(o))
    return;
  complete_json(o, v);
  DONE(o);
}

/* The fast-path kind (gql_out.dleaf): LEAF_NONE sends the writers below
 * to the general path. */
static inline int direct_leaf(const gql_out *o) {
  return o->dleaf;
}

/* Fast paths: a value of the expected scalar type written as is, straight
 * into the buffer (dleaf is only set in direct mode, before any write, and
 * never on a pending field's output). */
static inline void fast_begin(gql_out *o) {
  set_written(o);
}
static inline void fast_end(gql_out *o) {
  (void)o;
}

/* The general paths, out of line so that the fast ones need no frame. */
static __attribute__((noinline)) void out_int_slow(gql_out *o, int64_t i) {
  gql_json_value v = {.kind = GQL_JSON_NUMBER, .is_int = true};
  v.number.i = i;
  v.number.d = (double)i;
  out_scalar(o, &v);
}

static __attribute__((noinline)) void out_float_slow(gql_out *o, double d) {
  gql_json_value v = {.kind = GQL_JSON_NUMBER};
  v.number.d = d;
  if (d == floor(d) && fabs(d) < 9e15) {
    v.is_int = true;
    v.number.i = (int64_t)d;
  }
  out_scalar(o, &v);
}

static __attribute__((noinline)) void out_string_slow(gql_out *o, const char *s,
                                                      size_t len) {
  gql_json_value v = {.kind = GQL_JSON_STRING};
  v.string = (gql_str){s, len};
  out_scalar(o, &v);
}

static __attribute__((noinline)) void out_bool_slow(gql_out *o, bool b) {
  gql_json_value v = {.kind = GQL_JSON_BOOL};
  v.boolean = b;
  out_scalar(o, &v);
}

void gql_out_int(gql_out *o, int64_t i) {
  int leaf = direct_leaf(o);
  if ((leaf == LEAF_FLOAT ||
       (leaf == LEAF_INT && i >= -2147483648LL && i <= 2147483647LL))) {
    fast_begin(o);
    gql_json_write_int(o->own.ctx->out, i);
    fast_end(o);
    return;
  }
  out_int_slow(o, i);
}

void gql_out_float(gql_out *o, double d) {
  if (direct_leaf(o) == LEAF_FLOAT && isfinite(d)) {
    fast_begin(o);
    gql_json_write_double(o->own.ctx->out, d);
    fast_end(o);
    return;
  }
  out_float_slow(o, d);
}

void gql_out_string(gql_out *o, const char *s, size_t len) {
  int leaf = direct_leaf(o);
  if (leaf == LEAF_STRING || leaf == LEAF_ID) {
    fast_begin(o);
    gql_json_write_string(o->own.ctx->out, (gql_str){s, len});
    fast_end(o);
    return;
  }
  out_string_slow(o, s, len);
}

void gql_out_bool(gql_out *o, bool b) {
  if (direct_leaf(o) == LEAF_BOOLEAN) {
    fast_begin(o);
    if (b)
      gql_buf_put(o->own.ctx->out, "true", 4);
    else
      gql_buf_put(o->own.ctx->out, "false", 5);
    fast_end(o);
    return;
  }
  out_bool_slow(o, b);
}

/* Equal bytes, by overlapping words up to 16 bytes (enum value names). */
static inline bool same_bytes(const char *a, const char *b, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t x0, x1, y0, y1;
    memcpy(&x0, a, 8), memcpy(&y0, b, 8);
    memcpy(&x1, a + n - 8, 8), memcpy(&y1, b + n - 8, 8);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  if (n >= 4 && n < 8) {
    uint32_t x0, x1, y0, y1;
    memcpy(&x0, a, 4), memcpy(&y0, b, 4);
    memcpy(&x1, a + n - 4, 4), memcpy(&y1, b + n - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  return memcmp(a, b, n) == 0;
}

void gql_out_enum(gql_out *o, const char *name, size_t len) {
  if (direct_leaf(o) == LEAF_ENUM) {
    /* The enum's own value names first by pointer (a resolver that
     * writes the schema's names), then by content. */
    const gql_type *ty = &o->own.ctx->s->types[o->type.type];
    const gql_enum_value *ev = NULL;
    if (ty->nvalues <= 8) {
      for (uint32_t i = 0; i < ty->nvalues; i++) {
        gql_str v = ty->values[i].name;
        if (v.len == len &&
            (v.ptr == name || len == 0 ||
             (v.ptr[0] == name[0] && same_bytes(v.ptr, name, len)))) {
          ev = &ty->values[i];
          break;
        }
      }
    } else {
      ev = gql_type_enum_value(ty, (gql_str){name, len});
    }
    if (ev) {
      set_written(o);
      gql_json_write_plain(o->own.ctx->out, ev->name);
      return;
    }
  }
  gql_out_string(o, name, len);
}

static __attribute__((noinline)) void out_enum_index_slow(gql_out *o,
                                                          uint32_t index);

void gql_out_enum_index(gql_out *o, uint32_t index) {
  /* dleaf LEAF_ENUM: the field's named type (its own, or its list's
   * items') is the enum */
  const gql_type *ty = o->own.pf->named;
  if (GQL_LIKELY(direct_leaf(o) == LEAF_ENUM && index < ty->nvalues)) {
    gql_buf *b = o->own.ctx->out;
    gql_str name = ty->values[index].name;
    /* a name of 4 to 16 bytes: one check, two overlapping words, no
     * frame (the rest take the slow path's put_quoted) */
    size_t n = name.len;
    if (GQL_LIKELY(n >= 4 && n <= 16 && b->cap - b->len >= 18)) {
      set_written(o);
      char *d = b->data + b->len;
      d[0] = '"';
      if (n >= 8) {
        memcpy(d + 1, name.ptr, 8);
        memcpy(d + 1 + n - 8, name.ptr + n - 8, 8);
      } else {
        memcpy(d + 1, name.ptr, 4);
        memcpy(d + 1 + n - 4, name.ptr + n - 4, 4);
      }
      d[n + 1] = '"';
      b->len += n + 2;
      return;
    }
  }
  out_enum_index_slow(o, index);
}

static __attribute__((noinline)) void out_enum_index_slow(gql_out *o,
                                                          uint32_t index) {
  const gql_type *ty = &o->own.ctx->s->types[o->type.type];
  if (GQL_LIKELY(direct_leaf(o) == LEAF_ENUM && index < ty->nvalues)) {
    set_written(o);
    gql_json_write_plain(o->own.ctx->out, ty->values[index].name);
    return;
  }
  if (ty->kind == GQL_TYPE_ENUM && index < ty->nvalues) {
    /* tree mode; or a list type, which errors as gql_out_enum does */
    gql_str n = ty->values[index].name;
    gql_out_enum(o, n.ptr, n.len);
    return;
  }
  if (!begin(o))
    return;
  if (ty->kind == GQL_TYPE_ENUM)
    field_errorf(o, "Enum \"%.*s\" has no value at index %u.",
                 (int)ty->name.len, ty->name.ptr, index);
  else
    field_errorf(o, "Type \"%.*s\" is not an enum but was given an enum index.",
                 (int)ty->name.len, ty->name.ptr);
  DONE(o);
}

void gql_out_json(gql_out *o, const gql_value *v) {
  out_scalar(o, v);
}

void gql_out_object(gql_out *o, const void *obj, uint32_t type) {
  /* Fast path: a composite type T or T! (not a list, not a leaf) needs
   * none of the checks below; an object type written in place needs no
   * runtime type either. */
  if (direct_leaf(o) == LEAF_OBJECT && obj) {
    exec_ctx *ctx = o->own.ctx;
    const plan_field *pf = o->own.pf;
    set_written(o);
    /* The concrete type: the field's own object type, or the one given
     * for an abstract type. A sub-plan exists only for a possible object
     * type, so finding one is ensureValidRuntimeType's whole check. */
    const plan_set *ps = NULL;
    if (pf->named_object)
      ps = pf->subs[0];
    else if (type != GQL_TYPE_AUTO)
      ps = sub_plan(pf, type);
    if (ps) {
      if (exec_object_direct(ctx, ps, obj, o->own.path))
        value_failed(o);
      DONE(o);
      return;
    }
    complete_composite(o, obj, type, false);
    DONE(o);
    return;
  }
  if (!begin(o))
    return;
  if (!obj) {
    complete_null(o);
    DONE(o);
    return;
  }
  gql_type_ref t = gql_type_ref_nullable(o->type);
  if (gql_type_ref_is_list(t)) {
    not_iterable(o);
    DONE(o);
    return;
  }
  if (o->own.pf->leaf != LEAF_NONE) { /* the named type is not composite */
    const gql_str *pn = parent_name(o);
    field_errorf(o, "Field \"%.*s.%.*s\" of leaf type was given an object.",
                 (int)pn->len, pn->ptr, (int)o->own.pf->field->name.len,
                 o->own.pf->field->name.ptr);
    DONE(o);
    return;
  }
  complete_composite(o, obj, type, false);
  DONE(o);
}

void gql_out_list(gql_out *o, const void *list, size_t count,
                  gql_list_item_fn fn) {
  if (!begin(o))
    return;
  gql_type_ref t = gql_type_ref_nullable(o->type);
  if (!gql_type_ref_is_list(t)) {
    const gql_str *pn = parent_name(o);
    field_errorf(o, "Field \"%.*s.%.*s\" is not a list but was given one.",
                 (int)pn->len, pn->ptr, (int)o->own.pf->field->name.len,
                 o->own.pf->field->name.ptr);
    DONE(o);
    return;
  }
  complete_list(o, list, count, fn);
  DONE(o);
}

typedef struct object_array {
  const char *base;
  size_t stride;
  uint32_t type;
} object_array;

static void object_array_item(const void *list, size_t i, gql_out *out) {
  const object_array *a = list;
  gql_out_object(out, a->base + i * a->stride, a->type);
}

void gql_out_object_array(gql_out *o, const void *base, size_t count,
                          size_t stride, uint32_t type) {
  /* Fast path: [T] or [T!] (nullable or not) of an object type, written in
   * place: each item is the object's plan set, as gql_out_object's fast
   * path would write it. */
  const plan_field *pf = o->own.pf;
  exec_ctx *ctx = o->own.ctx;
  gql_type_ref t = gql_type_ref_nullable(o->type);
  if (!o->written && !o->node && base && gql_type_ref_is_list(t) &&
      pf->leaf == LEAF_NONE) {
    gql_type_ref item = gql_type_ref_unwrap(t);
    uint32_t it = item.type;
    const plan_set *ps = NULL;
    if ((item.nmods == 0 || (item.nmods == 1 && item.mods[0] == '!')) &&
        ctx->s->types[it].kind == GQL_TYPE_OBJECT)
      ps = pf->nsubs == 1 && pf->sub_types[0] == it ? pf->subs[0]
                                                    : sub_plan(pf, it);
    if (ps) {
      set_written(o);
      if (exec_array_direct(ctx, ps, base, count, stride, o->own.path,
                            item.nmods == 1))
        value_failed(o);
      return;
    }
  }
  if (!base) {
    gql_out_null(o);
    return;
  }
  object_array a = {base, stride, type};
  gql_out_list(o, &a, count, object_array_item);
}

/* The plan of an object item of list field `pf` (direct mode): by the
 * field's object type, the given type *type, or the abstract type's
 * resolve_type; NULL when the item needs the general path (a null, an
 * error), with *type what the general path is to be given: resolve_type's
 * answer, when it was called (one call per item, as graphql-js makes),
 * and UINT32_MAX - 1 (no type) for an answer that is no type index. */
static inline const plan_set *item_plan(const gql_resolve_info *info,
                                        const plan_field *pf, const void *obj,
                                        uint32_t *type) {
  if (!obj)
    return NULL;
  if (pf->named_object)
    return pf->subs[0];
  uint32_t t = *type;
  if (t == GQL_TYPE_AUTO) {
    if (!pf->resolve_type)
      return NULL;
    int64_t r = pf->resolve_type(info, obj);
    if (GQL_UNLIKELY((uint64_t)r >= GQL_TYPE_AUTO)) {
      *type = GQL_TYPE_AUTO - 1; /* negative, or not a type index */
      return NULL;
    }
    t = (uint32_t)r;
  }
  /* sub_plan finds only a possible object type */
  const plan_set *ps = sub_plan(pf, t);
  if (GQL_UNLIKELY(!ps))
    *type = t;
  return ps;
}

/* item_plan for an item whose plan depends on it (plan_field.list_plan
 * NULL: an abstract type, GQL_TYPE_AUTO): resolve_type's, and without one
 * no type rather than __typename. item_plan's abstract branch written
 * again on purpose: one body for both cost star_wars 8 (prepared) to 32
 * (members) instructions a request, either way round. */
static inline const plan_set *item_resolved(const gql_resolve_info *info,
                                            const plan_field *pf,
                                            const void *obj, uint32_t *type) {
  if (!obj)
    return NULL;
  if (GQL_UNLIKELY(!pf->resolve_type)) {
    *type = GQL_TYPE_AUTO - 1; /* see list_item_type */
    return NULL;
  }
  int64_t r = pf->resolve_type(info, obj);
  if (GQL_UNLIKELY((uint64_t)r >= GQL_TYPE_AUTO)) {
    *type = GQL_TYPE_AUTO - 1;
    return NULL;
  }
  const plan_set *ps = sub_plan(pf, (uint32_t)r);
  if (GQL_UNLIKELY(!ps))
    *type = (uint32_t)r;
  return ps;
}

/* Direct mode, the field's own list output (not an item of an outer
 * list) and items of fast-path kind `dleaf`: the bulk writers below loop
 * themselves. */
static inline bool bulk_direct(const gql_out *o, uint8_t dleaf) {
  const plan_field *pf = o->own.pf;
  return !o->written && !o->node && o->type.nmods == pf->type.nmods &&
         pf->list_dleaf == dleaf;
}

/* An item that the bulk writers leave to the general path, written
 * through an item output as complete_list would; true when the list must
 * become null. */
static __attribute__((noinline)) bool bulk_item(gql_out *o, path_frame *fr,
                                                const void *obj,
                                                uint32_t type_or_index,
                                                bool is_enum) {
  const plan_field *pf = o->own.pf;
  gql_out io;
  out_init(&io, o->own.ctx, pf, pf->list_item, pf->list_dleaf, fr, NULL);
  io.info = out_info(o);
  if (is_enum)
    gql_out_enum_index(&io, type_or_index);
  else
    gql_out_object(&io, obj, type_or_index);
  if (!io.written) {
    set_written(&io);
    complete_null(&io);
  }
  return io.prop;
}

/* An object item of list member `pf` that needs the general path (a
 * null item, a type that resolve_type cannot give), written as
 * gql_out_object_ptrs's bulk_item would, through an output for the field
 * (at frame `ffr`, its value starting at `mark`): 0 when written; else
 * the list failed, and 1 when it is now null, -1 when the object must
 * become null. */
static __attribute__((noinline)) int
list_item_general(exec_ctx *ctx, const plan_field *pf, const path_frame *ffr,
                  path_frame *fr, size_t mark, const void *obj, uint32_t type) {
  gql_out lo;
  out_init(&lo, ctx, pf, pf->type, LEAF_NONE, ffr, NULL);
  lo.own.args = NULL;
  lo.own.trace = NULL;
  lo.mark = mark;
  lo.written = true;
  if (!bulk_item(&lo, fr, obj, type, false))
    return 0;
  value_failed(&lo);
  return lo.prop ? -1 : 1;
}

/* The items of members_list: `ptrs` (pointers, else structs step bytes
 * apart) and `fixed` (every item's plan, else item_plan's) are constants
 * in each of its copies, so that the loop keeps few registers. Every item
 * opens with ',', the first made '[' at the end. */
static inline __attribute__((always_inline)) bool
list_items(exec_ctx *ctx, gql_buf *b, const plan_field *pf, const char *it,
           size_t count, size_t stride, path_frame *fr,
           const gql_resolve_info *info, bool ptrs, const plan_set *fixed) {
  size_t step = ptrs ? sizeof(void *) : stride, mark = b->len;
  /* the item's index is its path frame's (fr->index is 0) */
  for (size_t n = count; n; n--, it += step, fr->index++) {
    const void *obj = ptrs ? ld_ptr(it) : (const void *)it;
    /* what the general path is given: a fixed plan's type matters only
     * for an item that is not NULL, which gets the plan */
    uint32_t t = GQL_TYPE_AUTO;
    const plan_set *ps = !fixed         ? item_resolved(info, pf, obj, &t)
                         : ptrs && !obj ? NULL
                                        : fixed;
    if (GQL_UNLIKELY(ps == NULL)) {
      gql_buf_putc(b, ',');
      int r = list_item_general(ctx, pf, fr->parent, fr, mark, obj, t);
      if (r)
        return r < 0;
      continue;
    }
    size_t imark = b->len + 1; /* after the ',' */
    bool failed;
    if (GQL_LIKELY(ps->all_members)) {
      failed = members_fields(ctx, b, ps, obj, fr, ',');
    } else {
      gql_buf_putc(b, ',');
      failed = object_direct(ctx, ps, obj, fr);
    }
    if (GQL_LIKELY(!failed))
      continue;
    if (pf->list_item.nmods == 0) { /* a null item */
      b->len = imark;
      gql_buf_append(b, "null", 4);
      continue;
    }
    /* a non-null item failed: the list fails */
    if (gql_type_ref_is_non_null(pf->type))
      return true;
    b->len = mark;
    gql_buf_append(b, "null", 4);
    return false;
  }
  if (!count)
    gql_buf_putc(b, '[');
  else if (b->len > mark) /* not when the buffer failed */
    b->data[mark] = '[';
  gql_buf_putc(b, ']');
  return false;
}

/* A list member of objects (MEMBER_LIST_OBJECTS) of parent p in an
 * all-members object (untraced, direct): gql_out_object_ptrs's or
 * gql_out_object_array's fast path without an output, each all-members
 * item inline; true when the object must become null. */
static __attribute__((noinline)) bool members_list(exec_ctx *ctx, gql_buf *b,
                                                   const plan_field *pf,
                                                   const char *p,
                                                   const path_frame *path) {
  const exec_resolver *r = pf->field->resolver;
  const char *items = ld_items(p, pf->member_off, r->items_inline);
  if (!items) /* a null list */
    return field_general(ctx, b, pf, p, path);
  size_t count = ld_count(p + r->count_offset, r->count_size);
  path_frame ffr = {path, &pf->key, 0, 0}; /* the field's */
  path_frame fr = {&ffr, NULL, 0, 0};      /* its items' */
  /* what resolve_type is told: the field's info, as a resolver's output
   * would give it */
  gql_resolve_info info = {.ctx = ctx, .pf = pf, .path = &ffr};
  const plan_set *fixed = pf->list_plan;
  if (r->list == GQL_LIST_OBJECT_PTRS)
    return fixed ? list_items(ctx, b, pf, items, count, 0, &fr, &info, true,
                              fixed)
                 : list_items(ctx, b, pf, items, count, 0, &fr, &info, true,
                              NULL);
  return list_items(ctx, b, pf, items, count, r->stride, &fr, &info, false,
                    fixed);
}

typedef struct ptr_list {
  const void *const *items;
  uint32_t type;
} ptr_list;

static void ptr_item(const void *list, size_t i, gql_out *out) {
  const ptr_list *l = list;
  gql_out_object(out, l->items[i], l->type);
}

void gql_out_object_ptrs(gql_out *o, const void *const *items, size_t count,
                         uint32_t type) {
  if (items && bulk_direct(o, LEAF_OBJECT)) {
    exec_ctx *ctx = o->own.ctx;
    const plan_field *pf = o->own.pf;
    gql_buf *b = ctx->out;
    bool item_non_null = pf->list_item.nmods == 1;
    const gql_resolve_info *info = out_info(o);
    path_frame fr = {o->own.path, NULL, 0, 0};
    if (GQL_UNLIKELY(ctx->last_stamps))
      fr.last = items_last(
          pf->items_one || (item_non_null && type != GQL_TYPE_AUTO), count);
    set_written(o);
    if (!count)
      gql_buf_putc(b, '[');
    for (size_t i = 0; i < count; i++) {
      char open = i ? ',' : '[';
      fr.index = (int64_t)i;
      const void *obj = items[i];
      uint32_t t = type;
      const plan_set *ps = item_plan(info, pf, obj, &t);
      size_t mark = b->len + 1; /* after `open` */
      if (GQL_LIKELY(ps != NULL)) {
        /* an all-members item inline (no call), others out of line */
        bool failed;
        if (ps->all_members && !ctx->hooks) {
          failed = members_fields(ctx, b, ps, obj, &fr, open);
        } else {
          gql_buf_putc(b, open);
          failed = object_direct(ctx, ps, obj, &fr);
        }
        if (!failed)
          continue;
        if (!item_non_null) {
          b->len = mark;
          gql_buf_append(b, "null", 4);
          continue;
        }
      } else {
        gql_buf_putc(b, open);
        if (!bulk_item(o, &fr, obj, t, false))
          continue;
      }
      value_failed(o);
      DONE(o);
      return;
    }
    gql_buf_putc(b, ']');
    DONE(o);
    return;
  }
  if (!items) {
    gql_out_null(o);
    return;
  }
  ptr_list l = {items, type};
  gql_out_list(o, &l, count, ptr_item);
}

static void enum_item(const void *list, size_t i, gql_out *out) {
  gql_out_enum_index(out, ((const uint8_t *)list)[i]);
}

void gql_out_enum_indices(gql_out *o, const uint8_t *indices, size_t count) {
  if (indices && bulk_direct(o, LEAF_ENUM)) {
    exec_ctx *ctx = o->own.ctx;
    const gql_type *ty = o->own.pf->named;
    gql_buf *b = ctx->out;
    set_written(o);
    if (GQL_LIKELY(enum_items_put(b, o->own.pf, indices, count))) {
      DONE(o);
      return;
    }
    /* an index out of range: item by item */
    path_frame fr = {o->own.path, NULL, 0, 0};
    if (!count)
      gql_buf_putc(b, '[');
    for (size_t i = 0; i < count; i++) {
      gql_buf_putc(b, i ? ',' : '[');
      uint8_t v = indices[i];
      if (GQL_LIKELY(v < ty->nvalues)) {
        gql_json_write_plain(b, ty->values[v].name);
        continue;
      }
      fr.index = (int64_t)i;
      if (bulk_item(o, &fr, NULL, v, true)) {
        value_failed(o);
        DONE(o);
        return;
      }
    }
    gql_buf_putc(b, ']');
    DONE(o);
    return;
  }
  if (!indices) {
    gql_out_null(o);
    return;
  }
  gql_out_list(o, indices, count, enum_item);
}

void gql_out_error(gql_out *o, const char *message) {
  if (!begin(o))
    return;
  exec_ctx *ctx = o->own.ctx;
  uint32_t before = ctx->nerrs;
  field_error(o, message ? message : "Unknown error.", UINT32_MAX);
  gql_resolve_info *info = (gql_resolve_info *)out_info(o);
  if ((info == &o->own || o->field_level) && !info->error &&
      ctx->nerrs > before)
    info->error = ctx->errs[before].message;
  DONE(o);
}

static const path_frame *copy_path(exec_ctx *ctx, const path_frame *f) {
  if (!f)
    return NULL;
  path_frame *c = gql_arena_alloc(ctx->arena, sizeof *c);
  if (!c)
    return NULL;
  *c = *f;
  c->parent = copy_path(ctx, f->parent);
  return c;
}

gql_pending *gql_out_pending(gql_out *o) {
  if (!begin(o))
    return NULL;
  exec_ctx *ctx = o->own.ctx;
  if (!o->node) {
    const gql_str *pn = parent_name(o);
    field_errorf(o,
                 "Field \"%.*s.%.*s\" is declared synchronous but its "
                 "resolver returned pending.",
                 (int)pn->len, pn->ptr, (int)o->own.pf->field->name.len,
                 o->own.pf->field->name.ptr);
    return NULL;
  }
  gql_pending *p = gql_arena_alloc(ctx->arena, sizeof *p);
  if (!p) {
    field_error(o, "Out of memory.", UINT32_MAX);
    return NULL;
  }
  bool field_level = !o->info || o->field_level;
  o->pended = true;
  o->field_level = false;
  p->out = *o;
  p->out.written = false;
  p->out.pending_root = true;
  p->out.pended = false;
  p->out.field_level = field_level;
  p->out.own.path = copy_path(ctx, o->own.path);
  p->info = *out_info(o);
  p->info.path = p->out.own.path;
  p->out.info = &p->info;
  ctx->pending++;
  DONE(o);
  return p;
}

gql_out *gql_pending_out(gql_pending *p) {
  return p ? &p->out : NULL;
}

/* Called after each write to a pending field's output. */
static void pending_done(gql_out *o) {
  exec_ctx *ctx = o->own.ctx;
  o->pending_root = false;
  const gql_exec_hooks *h = ctx->hooks;
  if (o->field_level && h && h->pub.resolve_finish)
    h->pub.resolve_finish(h->pub.ctx, o->info);
  if (ctx->pending)
    ctx->pending--;
  if (ctx->walking || ctx->pending)
    return;
  if (ctx->serial.next < ctx->serial.count)
    serial_continue(ctx);
  else
    finish(ctx);
}

/* ------------------------------------------------------------ info */

gql_str gql_info_field_name(const gql_resolve_info *info) {
  return info->pf->field->name;
}
uint32_t gql_info_parent_type(const gql_resolve_info *info) {
  return info->pf->parent_type;
}
const gql_value *gql_arg(const gql_resolve_info *info, const char *name) {
  const gql_json_value *a = info->pf->has_args ? info->args : NULL;
  if (!a || !a->object.count)
    return NULL;
  size_t n = strlen(name);
  for (size_t i = 0; i < a->object.count; i++) {
    gql_str k = a->object.members[i].key;
    if (k.len == n && memcmp(k.ptr, name, n) == 0)
      return &a->object.members[i].value;
  }
  return NULL;
}
const gql_value *gql_info_args(const gql_resolve_info *info) {
  return info->pf->has_args ? info->args : NULL;
}
void *gql_info_context(const gql_resolve_info *info) {
  return info->ctx->context;
}
void *gql_info_data(const gql_resolve_info *info) {
  return info->pf->field->resolver_data;
}
gql_arena *gql_info_arena(const gql_resolve_info *info) {
  return info->ctx->arena;
}
const char *gql_info_path(const gql_resolve_info *info) {
  return path_json(info->ctx, info->path);
}
void gql_info_error(const gql_resolve_info *info, const char *message) {
  add_error(info->ctx, message ? message : "Unknown error.", info->pf,
            UINT32_MAX, info->path);
}
const gql_schema *gql_exec_info_schema(const gql_resolve_info *info) {
  return info->ctx->s;
}
const gql_schema *gql_exec_out_schema(const gql_out *o) {
  return o->own.ctx->s;
}
gql_arena *gql_exec_out_arena(const gql_out *o) {
  return o->own.ctx->arena;
}

/* ------------------------------------------------------------ response */

static void write_errors(exec_ctx *ctx, gql_buf *b) {
  gql_buf_puts(b, "\"errors\":[");
  for (uint32_t i = 0; i < ctx->nerrs; i++) {
    const exec_error *e = &ctx->errs[i];
    if (i)
      gql_buf_putc(b, ',');
    gql_buf_puts(b, "{\"message\":");
    gql_json_write_string(b, gql_cstr(e->message));
    gql_json_write_locations(b, e->locs, e->nlocs);
    if (e->path) {
      gql_buf_puts(b, ",\"path\":");
      gql_buf_puts(b, e->path);
    }
    gql_buf_putc(b, '}');
  }
  gql_buf_putc(b, ']');
}

static void write_tree(exec_ctx *ctx, gql_buf *b, const rnode *n) {
  switch (n->kind) {
  case R_BYTES:
    gql_buf_append(b, ctx->bytes.data + n->start, n->end - n->start);
    return;
  case R_OBJECT:
    gql_buf_putc(b, '{');
    for (uint32_t i = 0; i < n->nkids; i++) {
      if (i)
        gql_buf_putc(b, ',');
      gql_buf_append(b, n->keys[i].ptr, n->keys[i].len);
      write_tree(ctx, b, &n->kids[i]);
    }
    gql_buf_putc(b, '}');
    return;
  case R_LIST:
    gql_buf_putc(b, '[');
    for (uint32_t i = 0; i < n->nkids; i++) {
      if (i)
        gql_buf_putc(b, ',');
      write_tree(ctx, b, &n->kids[i]);
    }
    gql_buf_putc(b, ']');
    return;
  default:
    gql_buf_puts(b, "null");
  }
}

/* The hooks' part of deliver. */
static __attribute__((noinline)) void deliver_hooks(exec_ctx *ctx,
                                                    const gql_exec_hooks *h) {
  /* Defensive: none should be owed here. An owed stamp's field is called
   * again by the next item of its list (non-null, one plan, synchronous:
   * see items_last), whose completion stamps it or owes it again up to the
   * list's last item, which stamps; the one way to miss that call is an
   * error, and each error settles. */
  if (ctx->owed)
    stamps_settle(ctx);
  if (h->pub.execute_error)
    for (uint32_t i = 0; i < ctx->nerrs; i++) {
      const exec_error *e = &ctx->errs[i];
      h->pub.execute_error(h->pub.ctx, e->message, e->locs, e->nlocs, e->path);
    }
  if (h->pub.execute_finish)
    h->pub.execute_finish(h->pub.ctx, ctx->nerrs > 0);
}

/* Hands the response to on_done and the output buffer back to the caller;
 * then frees what the execution made for itself. With its own arena, the
 * context is freed here too (tree mode's is in the arena). Inline: every
 * request ends here, most of them from finish_direct. */
static inline __attribute__((always_inline)) void deliver(exec_ctx *ctx) {
  gql_buf *r = &ctx->resp;
  if (GQL_UNLIKELY(ctx->hooks != NULL))
    deliver_hooks(ctx, ctx->hooks);
  gql_output *go = ctx->output;
  if (GQL_LIKELY(!r->failed)) {
    ctx->on_done(ctx->ud, r->data, r->len, ctx->nerrs > 0);
    go->len = r->len;
  } else {
    static const char oom[] = "{\"errors\":[{\"message\":\"Out of memory.\"}]}";
    ctx->on_done(ctx->ud, oom, sizeof oom - 1, true);
    go->len = 0;
  }
  go->data = r->data;
  go->cap = r->cap;
  if (GQL_UNLIKELY(ctx->owns)) {
    if (ctx->owns & OWN_OUTPUT)
      gql_output_free(go);
    if (ctx->owns & OWN_ARENA)
      gql_arena_free(ctx->arena);
  }
}

/* Tree mode: everything has completed; write the response. */
static void finish(exec_ctx *ctx) {
  if (ctx->done)
    return;
  gql_buf *r = &ctx->resp;
  r->len = 0;
  gql_buf_putc(r, '{');
  if (ctx->nerrs) {
    write_errors(ctx, r);
    gql_buf_putc(r, ',');
  }
  gql_buf_puts(r, "\"data\":");
  write_tree(ctx, r, ctx->root);
  gql_buf_putc(r, '}');
  gql_buf_free(&ctx->bytes);
  ctx->done = true;
  deliver(ctx);
}

/* Direct mode: the data is in place after `{"data":`; put the errors in
 * front when there are some. */
static void finish_direct(exec_ctx *ctx, bool data_null) {
  gql_buf *r = &ctx->resp;
  const size_t head = 8; /* {"data": */
  if (data_null) {
    r->len = head;
    gql_buf_puts(r, "null");
  }
  gql_buf_putc(r, '}');
  if (ctx->nerrs && !r->failed) {
    size_t data_len = r->len - head;
    size_t before = r->len;
    gql_buf_putc(r, '{');
    write_errors(ctx, r);
    gql_buf_putc(r, ',');
    if (!r->failed) {
      size_t elen = r->len - before;
      /* room to copy `"data":DATA}` (data_len + head - 1 bytes) after the
       * errors */
      if (gql_buf_reserve(r, data_len + head - 1)) {
        /* [{"data":DATA}][{ERRORS,] → [{ERRORS,"data":DATA}] */
        memmove(r->data + before + elen, r->data + 1, data_len + head - 1);
        memmove(r->data, r->data + before, elen);
        memmove(r->data + elen, r->data + before + elen, data_len + head - 1);
        r->len = elen + data_len + head - 1;
      }
    }
  }
  deliver(ctx);
}

static void errors_only(exec_ctx *ctx, bool with_null_data) {
  gql_buf *r = &ctx->resp;
  r->len = 0;
  gql_buf_putc(r, '{');
  write_errors(ctx, r);
  if (with_null_data)
    gql_buf_puts(r, ",\"data\":null");
  gql_buf_putc(r, '}');
  deliver(ctx);
}

/* Sets the members every execution reads (tree mode's are exec_tree's, the
 * variables' vars_init's). */
static inline void ctx_init(exec_ctx *ctx, const gql_prepared *p,
                            const gql_execute_params *params, gql_arena *arena,
                            bool own_arena) {
  ctx->p = p;
  ctx->s = p->s;
  ctx->arena = arena;
  ctx->owns = own_arena ? OWN_ARENA : 0;
  ctx->aborted = false;
  ctx->last_stamps = ctx->owed = false;
  ctx->errs = NULL;
  ctx->nerrs = ctx->cap = 0;
  ctx->hooks = NULL; /* answer_early's */
  ctx->context = params->context;
  ctx->on_done = params->on_done;
  ctx->ud = params->ud;
  gql_output *go = params->output;
  if (GQL_UNLIKELY(!go)) {
    ctx->own_output = (gql_output){0};
    go = &ctx->own_output;
    ctx->owns |= OWN_OUTPUT;
  }
  ctx->output = go;
  ctx->out = &ctx->resp;
  ctx->resp.data = go->data; /* member by member: no clearing first */
  ctx->resp.len = 0;
  ctx->resp.cap = go->cap;
  ctx->resp.alc = go->alc; /* NULL: libc, as gql_alc_* take it */
  ctx->resp.failed = false;
  ctx->vars = ctx->slots = NULL; /* read only when the operation has
                                  * variables: see vars_init */
}

/* The coerced variables and the argument slots that depend on them: in the
 * context when they are few, else in the arena. False when out of memory. */
static bool vars_init(exec_ctx *ctx) {
  const gql_prepared *p = ctx->p;
  ctx->vars =
      p->nvars < GQL_ARRAY_LEN(ctx->few_vars)
          ? ctx->few_vars
          : gql_arena_alloc(ctx->arena, sizeof *ctx->vars * (p->nvars + 1));
  if (p->nslots < GQL_ARRAY_LEN(ctx->few_slots)) {
    ctx->slots = ctx->few_slots;
    for (uint32_t i = 0; i < p->nslots; i++)
      ctx->slots[i] = NULL;
  } else {
    ctx->slots =
        gql_arena_alloc(ctx->arena, sizeof *ctx->slots * (p->nslots + 1));
    if (ctx->slots)
      memset(ctx->slots, 0, sizeof *ctx->slots * (p->nslots + 1));
  }
  return ctx->vars && ctx->slots;
}

/* Answers the requests that end before any field runs: an execute_start
 * hook aborting, a subscription, variables that are not JSON or do not
 * coerce, an operation type without a root type. Also coerces the
 * variables. 1 when it answered (on_done has been called), 0 when the
 * fields are to run, GQL_ENOMEM. */
static __attribute__((noinline)) int
answer_early(exec_ctx *ctx, const gql_execute_params *params) {
  const gql_prepared *p = ctx->p;
  gql_arena *arena = ctx->arena;
  if (params->trace && params->hooks)
    return GQL_EINVAL;
  if ((p->nvars || p->nslots) && !vars_init(ctx))
    return GQL_ENOMEM;
  if (params->trace) {
    ctx->hooks = gql_exec_trace_hooks(params->trace);
  } else if (params->hooks) { /* an embedder's: every call asks for both */
    ctx->hooks = hooks_asking(ctx, &(gql_exec_hooks){.pub = *params->hooks});
    if (!ctx->hooks)
      return GQL_ENOMEM;
  }
  if (ctx->hooks && ctx->hooks->pub.execute_start &&
      ctx->hooks->pub.execute_start(ctx->hooks->pub.ctx)) {
    /* Aborted before the executor: nothing runs. */
    ctx->aborted = true;
    add_error(ctx, "Execution aborted.", NULL, UINT32_MAX, NULL);
    errors_only(ctx, false);
    return 1;
  }
  /* field_direct reads an answer per planned field with no bound check:
   * hooks without one for each get answers that all ask */
  if (ctx->hooks && (!ctx->hooks->calls || ctx->hooks->ncalls < p->nplanned)) {
    gql_exec_hooks *c = hooks_asking(ctx, ctx->hooks);
    if (!c)
      return GQL_ENOMEM;
    ctx->hooks = c;
  }
  const gql_exec_hooks *h = ctx->hooks;
  ctx->last_stamps = h && h->last_stamps && h->stamps && h->now &&
                     !p->root_error && p->s->types[p->root_type].sync;
  if (p->kind == GQL_OP_SUBSCRIPTION && !params->subscription_once) {
    add_error(ctx,
              "Subscriptions are not supported: gql executes queries and "
              "mutations only.",
              NULL, p->op ? p->op->h.start : UINT32_MAX, NULL);
    errors_only(ctx, false);
    return 1;
  }
  /* Variables. */
  const gql_json_value *inputs = params->variables;
  if (!inputs && params->variables_json) {
    gql_json_value *parsed;
    gql_json_error je;
    if (gql_json_parse(arena, params->variables_json, params->variables_len,
                       NULL, &parsed, &je) < 0) {
      char *m = gql_arena_sprintf(arena, "Variables are invalid JSON: %s",
                                  je.message);
      add_error(ctx, m ? m : "Variables are invalid JSON.", NULL, UINT32_MAX,
                NULL);
      errors_only(ctx, false);
      return 1;
    }
    inputs = parsed;
  }
  if (p->nvars) {
    gql_error_list el;
    gql_error_list_init(&el, arena, 50);
    coerce_ctx cc = {
        .s = p->s, .arena = arena, .var_defs = p->vars, .nvars = p->nvars};
    if (gql_exec_coerce_variables(&cc, p->text, inputs, ctx->vars, &el) < 0) {
      for (uint32_t i = 0; i < el.count; i++) {
        add_error(ctx, el.items[i].message, NULL, UINT32_MAX, NULL);
        exec_error *e = &ctx->errs[ctx->nerrs - 1];
        e->locs = el.items[i].locations;
        e->nlocs = el.items[i].nlocations;
      }
      if (el.truncated) /* graphql-js maxErrors: 50 */
        add_error(ctx,
                  "Too many errors processing variables, error limit "
                  "reached. Execution aborted.",
                  NULL, UINT32_MAX, NULL);
      errors_only(ctx, false);
      return 1;
    }
  }
  if (p->root_error) {
    uint32_t off = p->op->h.start;
    add_error(ctx, p->root_error, NULL, off, NULL);
    errors_only(ctx, true);
    return 1;
  }
  return 0;
}

/* Tree mode: returns 1 when fields are pending, else 0 (answered). */
static __attribute__((noinline)) int exec_tree(exec_ctx *ctx,
                                               const void *root_value) {
  const gql_prepared *p = ctx->p;
  ctx->walking = ctx->done = false;
  ctx->pending = 0;
  ctx->serial = (serial_walk){0};
  gql_buf_init(&ctx->bytes, ctx->output->alc);
  ctx->out = &ctx->bytes;
  ctx->root = gql_arena_alloc(ctx->arena, sizeof *ctx->root);
  if (!ctx->root) {
    gql_buf_free(&ctx->bytes);
    add_error(ctx, "Out of memory.", NULL, UINT32_MAX, NULL);
    errors_only(ctx, true);
    return 0;
  }
  *ctx->root = (rnode){.kind = R_EMPTY, .nullable = true};
  ctx->walking = true;
  exec_object_tree(ctx, p->root, root_value, NULL, ctx->root,
                   p->kind == GQL_OP_MUTATION);
  ctx->walking = false;
  if (ctx->done)
    return 0;
  if (ctx->pending == 0) {
    finish(ctx);
    return 0;
  }
  return 1;
}

int gql_execute(const gql_prepared *p, const gql_execute_params *params) {
  if (!p || !params || !params->on_done)
    return GQL_EINVAL;
  gql_arena *arena = params->arena;
  bool own_arena = !arena;
  if (own_arena && !(arena = gql_arena_new(NULL)))
    return GQL_ENOMEM;
  /* Only tree mode can outlive this call (when a field pends): every other
   * execution, early answers included, keeps its context on the stack. */
  bool tree = !p->root_error && !p->s->types[p->root_type].sync;
  exec_ctx direct;
  exec_ctx *ctx = tree ? gql_arena_alloc(arena, sizeof *ctx) : &direct;
  if (!ctx) {
    gql_arena_free(own_arena ? arena : NULL);
    return GQL_ENOMEM;
  }
  ctx_init(ctx, p, params, arena, own_arena);
  if (GQL_UNLIKELY(params->hooks || params->trace ||
                   p->kind == GQL_OP_SUBSCRIPTION || p->nvars || p->nslots ||
                   p->root_error ||
                   (!params->variables && params->variables_json))) {
    int rc = answer_early(ctx, params);
    if (rc < 0)
      gql_arena_free(own_arena ? arena : NULL);
    if (rc)
      return rc < 0 ? rc : 0;
  }
  if (GQL_UNLIKELY(tree))
    return exec_tree(ctx, params->root_value);
  gql_buf_put(&ctx->resp, "{\"data\":", 8);
  bool failed = exec_object_direct(ctx, p->root, params->root_value, NULL);
  finish_direct(ctx, failed);
  return 0;
}

/* The protocol given as the trace it would begin (see
 * gql_exec_trace_hooks): the tests' way in, gql_execute's code path. */
int gql_exec_run(const gql_prepared *p, const gql_execute_params *params,
                 const gql_exec_hooks *hooks) {
  gql_execute_params q = *params;
  q.hooks = NULL;
  q.trace = (gql_trace *)(void *)(uintptr_t)hooks;
  return gql_execute(p, &q);
}

/* ------------------------------------------------------------ tracer */

const void *gql_exec_info_key(const gql_resolve_info *info) {
  return info->pf;
}
const gql_field *gql_exec_info_field(const gql_resolve_info *info) {
  return info->pf->field;
}
const gql_ast_selection *gql_exec_info_node(const gql_resolve_info *info) {
  return info->pf->nocc ? info->pf->occs[0].node : NULL;
}
uint32_t gql_exec_info_depth(const gql_resolve_info *info) {
  uint32_t n = 0;
  for (const path_frame *f = info->path; f; f = f->parent)
    n += f->key != NULL;
  return n;
}
static void path_dotted(gql_buf *b, const path_frame *f, bool collapse) {
  if (!f)
    return;
  path_dotted(b, f->parent, collapse);
  if (f->parent)
    gql_buf_putc(b, '.');
  if (f->key)
    gql_buf_put_str(b, *f->key);
  else if (collapse)
    gql_buf_putc(b, '*');
  else {
    char d[24];
    size_t n = sizeof d;
    uint64_t v = (uint64_t)f->index;
    do
      d[--n] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    gql_buf_append(b, d + n, sizeof d - n);
  }
}
void gql_exec_info_path_dotted(const gql_resolve_info *info, gql_buf *b,
                               bool collapse) {
  path_dotted(b, info->path, collapse);
}
static size_t index_digits(uint64_t v) {
  size_t n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}
uint32_t gql_exec_info_lists_above(const gql_resolve_info *info) {
  uint32_t n = 0;
  const path_frame *f = info->path;
  for (f = f ? f->parent : NULL; f && !f->key; f = f->parent)
    n++;
  return n;
}
/* One pass for the length, one filling from the end: no buffer calls. */
gql_str gql_exec_info_path_str(const gql_resolve_info *info, gql_arena *a,
                               bool collapse) {
  size_t n = 0;
  for (const path_frame *f = info->path; f; f = f->parent)
    n += (f->parent != NULL) + (f->key     ? f->key->len
                                : collapse ? 1
                                           : index_digits((uint64_t)f->index));
  char *d = gql_arena_alloc(a, n + 1);
  if (!d)
    return GQL_STR("");
  d[n] = 0;
  char *e = d + n;
  for (const path_frame *f = info->path; f; f = f->parent) {
    if (f->key) {
      e -= f->key->len;
      memcpy(e, f->key->ptr, f->key->len);
    } else if (collapse) {
      *--e = '*';
    } else {
      uint64_t v = (uint64_t)f->index;
      do
        *--e = (char)('0' + v % 10);
      while ((v /= 10) != 0);
    }
    if (f->parent)
      *--e = '.';
  }
  return (gql_str){d, n};
}
const gql_json_value *gql_exec_info_variable(const gql_resolve_info *info,
                                             gql_str name) {
  const gql_prepared *p = info->ctx->p;
  for (uint32_t i = 0; i < p->nvars; i++)
    if (p->vars[i].name.len == name.len &&
        memcmp(p->vars[i].name.ptr, name.ptr, name.len) == 0)
      return info->ctx->vars[i];
  return NULL;
}
