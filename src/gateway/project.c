/*
 * The client response: the client's normalised selection projected over
 * the merged data tree, in query order, with aliases, __typename, and
 * graphql-js's null propagation and serialisation (an enum value the API
 * schema lacks, such as an @inaccessible one, becomes null with an error);
 * root introspection fields as the gateway's own executor answered them.
 */
#include "execute_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- projection */

/* PROJ_ERROR: null with an error already recorded (a value the type
 * cannot represent). */
typedef enum proj { PROJ_OK, PROJ_NULL, PROJ_ERROR, PROJ_BUBBLED } proj;

typedef struct projector {
  gql_gw_request *r;
  gql_buf *out;
  /* @defer (r->ds): the payload being written; fields another payload
   * delivers are left out, and the deferred fragments it announces are
   * recorded (defer.c) */
  const gql_gw_defer *cur;
} projector;

static bool is_leaf(const gql_gw_type *t) {
  return !t || t->kind == GQL_AST_SCALAR_TYPE_DEFINITION ||
         t->kind == GQL_AST_ENUM_TYPE_DEFINITION;
}

static proj project(projector *p, const gql_json_value *v,
                    const gql_ast_type *t, const gql_gw_type *named,
                    const gql_gw_sel *sel, const seg *path, gql_str parent_type,
                    gql_str field);

/* Whether client field c (with a type condition) is selected on an object
 * of type t: its condition holds and no earlier field that applies has
 * the same response key (those come first, as CollectFields orders). */
static bool applies(const gql_gw_type *t, const gql_gw_sel *c,
                    const gql_gw_sel *sel) {
  if (!gw_sel_applies(t, c))
    return false;
  for (const gql_gw_sel *e = sel->first; e != c; e = e->next)
    if (gql_str_eq(e->key, c->key) && gw_sel_applies(t, e))
      return false;
  return true;
}

/* An object whose __typename the API schema cannot give at this place (an
 * @inaccessible type, or none of the abstract type's): null with
 * graphql-js's error. */
static proj runtime_type_error(projector *p, const gql_gw_type *named,
                               gql_str name, const gql_gw_type *t,
                               const seg *path, gql_str parent_type,
                               gql_str field) {
  char *msg =
      !t || t->inaccessible
          ? gql_arena_sprintf(p->r->arena,
                              "Abstract type \"%.*s\" was resolved to a type "
                              "\"%.*s\" that does not exist inside the schema.",
                              (int)named->name.len, named->name.ptr,
                              (int)name.len, name.ptr)
          : gql_arena_sprintf(p->r->arena,
                              "Runtime Object type \"%.*s\" is not a possible "
                              "type for \"%.*s\".",
                              (int)name.len, name.ptr, (int)named->name.len,
                              named->name.ptr);
  (void)parent_type;
  (void)field;
  if (msg)
    gql_gw_add_error(p->r, gql_cstr(msg),
                     gw_path_json(p->r->arena, path, NULL, 0));
  return PROJ_ERROR;
}

/* `named` is the field's type; the object's __typename may name a
 * concrete type below it. */
static proj project_object(projector *p, const gql_json_value *v,
                           const gql_gw_type *named, const gql_gw_sel *sel,
                           const seg *path, gql_str parent_type,
                           gql_str field) {
  if (!v || v->kind != GQL_JSON_OBJECT)
    return PROJ_NULL;
  const gql_json_value *tn = obj_get(v, GQL_STR("__typename"));
  const gql_gw_type *t = named;
  if (tn && tn->kind == GQL_JSON_STRING && !gql_str_eq(tn->string, t->name)) {
    t = gql_supergraph_type(p->r->plan->sg, tn->string);
    if (named->is_abstract &&
        (!t || t->inaccessible || !gql_supergraph_satisfies(t, named)))
      return runtime_type_error(p, named, tn->string, t, path, parent_type,
                                field);
    if (!t)
      t = named;
  }
  gql_buf_putc(p->out, '{');
  bool first = true;
  if (p->r->ds && sel->defers &&
      gw_defer_announce(p->r, sel, p->cur, t, path, p->out->len))
    return PROJ_ERROR;
  for (const gql_gw_sel *c = sel->first; c; c = c->next) {
    if (sel->has_cond && !applies(t, c, sel))
      continue;
    if (p->r->ds && c->dl != p->cur)
      continue;
    if (!first)
      gql_buf_putc(p->out, ',');
    first = false;
    write_key(p->out, c);
    if (c->verbatim) { /* the gateway's introspection answer */
      const gql_json_value *iv = obj_get(v, c->key);
      if (iv)
        gql_json_write_value(p->out, iv);
      else
        gql_buf_puts(p->out, "null");
      continue;
    }
    if (!c->def && gql_str_eq_cstr(c->name, "__typename")) {
      gql_json_write_string(p->out, t->name);
      continue;
    }
    const gql_gw_field *f =
        c->def && c->def->parent == t
            ? c->def
            : gql_supergraph_field_of(p->r->plan->sg, t, c->name);
    if (!f) {
      gql_buf_puts(p->out, "null");
      continue;
    }
    seg s = {path, c->key, 0};
    /* null, the rest stands (denied: not fetched, by the plan's verdict) */
    if (c->denied || (f->guarded && !gql_gw_allowed(&p->r->who, f))) {
      gql_gw_add_unauthorized(p->r, gw_path_json(p->r->arena, &s, NULL, 0));
      if (f->type->h.kind == GQL_AST_NON_NULL_TYPE)
        return PROJ_BUBBLED;
      gql_buf_puts(p->out, "null");
      continue;
    }
    proj res = project(p, obj_get(v, c->key), f->type, f->named, c, &s, t->name,
                       c->name);
    if (res == PROJ_BUBBLED)
      return PROJ_BUBBLED;
  }
  gql_buf_putc(p->out, '}');
  return PROJ_OK;
}

/* A subgraph value the field's type cannot hold: null and `msg` (its
 * %s the value as JSON), as graphql-js reports what a resolver returned
 * (a subgraph answering a list where an object is expected, a string for
 * an Int, ...: before, passed through as it was, or nulled silently). */
static proj shape_error(projector *p, const gql_json_value *v, const seg *path,
                        const char *msg) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  const char *at = strstr(msg, "%s");
  gql_buf_append(&b, msg, (size_t)(at - msg));
  gql_json_write_value(&b, v);
  gql_buf_puts(&b, at + 2);
  char *m = b.failed ? NULL : gql_arena_strndup(p->r->arena, b.data, b.len);
  gql_buf_free(&b);
  if (m)
    gql_gw_add_error(p->r, gql_cstr(m),
                     gw_path_json(p->r->arena, path, NULL, 0));
  return PROJ_ERROR;
}

/* An enum value the API schema cannot represent (an @inaccessible value,
 * or one only a subgraph knows): null and graphql-js's serialisation
 * error. */
static proj enum_error(projector *p, const gql_json_value *v,
                       const gql_gw_type *named, const seg *path) {
  gql_buf m;
  gql_buf_init(&m, NULL);
  gql_buf_printf(&m, "Enum \"%.*s\" cannot represent value: %%s",
                 (int)named->name.len, named->name.ptr);
  gql_buf_putc(&m, 0);
  proj r = m.failed ? PROJ_ERROR : shape_error(p, v, path, m.data);
  gql_buf_free(&m);
  return r;
}

typedef enum builtin {
  B_NONE,
  B_STRING,
  B_INT,
  B_FLOAT,
  B_BOOLEAN,
  B_ID
} builtin;

/* `t` is the field's named type (built-in scalars have no gql_gw_type). */
static builtin builtin_of(const gql_ast_type *t, const gql_gw_type *named) {
  if ((named && named->kind != GQL_AST_SCALAR_TYPE_DEFINITION) ||
      t->h.kind != GQL_AST_NAMED_TYPE)
    return B_NONE;
  gql_str n = named ? named->name : (gql_str){t->name.ptr, t->name.len};
  /* per leaf value: one compare, picked by the length */
  switch (n.len) {
  case 6:
    return memcmp(n.ptr, "String", 6) == 0 ? B_STRING : B_NONE;
  case 3:
    return memcmp(n.ptr, "Int", 3) == 0 ? B_INT : B_NONE;
  case 5:
    return memcmp(n.ptr, "Float", 5) == 0 ? B_FLOAT : B_NONE;
  case 7:
    return memcmp(n.ptr, "Boolean", 7) == 0 ? B_BOOLEAN : B_NONE;
  case 2:
    return memcmp(n.ptr, "ID", 2) == 0 ? B_ID : B_NONE;
  default:
    return B_NONE;
  }
}

/* Number.isInteger (a double past 2^53 always is one; no cast before the
 * range is known: a cast out of range is undefined, as fuzz_gateway_execute
 * found with 1.5e94). */
static bool integral(const gql_json_value *v) {
  double d = v->number.d;
  if (v->is_int || d >= 9007199254740992.0 || d <= -9007199254740992.0)
    return true;
  return d == (double)(int64_t)d;
}

static bool in_int32(const gql_json_value *v) {
  return v->is_int ? v->number.i >= INT32_MIN && v->number.i <= INT32_MAX
                   : v->number.d >= INT32_MIN && v->number.d <= INT32_MAX;
}

/* A string JavaScript's Number() reads as a decimal number (graphql-js's
 * Int and Float serialisers coerce those); false for others. */
static bool numeric_string(gql_arena *a, gql_str s, gql_json_value *out) {
  if (!s.len || s.len > 64)
    return false;
  for (size_t i = 0; i < s.len; i++)
    if (!s.ptr[i] || !strchr("0123456789+-.eE", s.ptr[i]))
      return false;
  char *z = gql_arena_strndup(a, s.ptr, s.len), *end = NULL;
  if (!z)
    return false;
  double d = strtod(z, &end);
  if (*end || d != d || d - d != 0)
    return false;
  *out = (gql_json_value){.kind = GQL_JSON_NUMBER, .number.d = d};
  return true;
}

/* Whether v is already what built-in scalar b serialises to. */
static bool builtin_fits(builtin b, const gql_json_value *v) {
  switch (b) {
  case B_STRING:
  case B_ID:
    return v->kind == GQL_JSON_STRING;
  case B_INT:
    return v->kind == GQL_JSON_NUMBER && v->is_int &&
           v->number.i >= INT32_MIN && v->number.i <= INT32_MAX;
  case B_FLOAT:
    return v->kind == GQL_JSON_NUMBER;
  case B_BOOLEAN:
    return v->kind == GQL_JSON_BOOL;
  case B_NONE:
    break;
  }
  return true;
}

/* A built-in scalar's value of another kind, as graphql-js's serialiser
 * takes it: coerced where it coerces (a number or boolean for a String,
 * an integral number for an ID, a boolean or numeric string for an Int or
 * Float, a number for a Boolean), else null with its error. */
static proj builtin_coerce(projector *p, builtin b, const gql_json_value *v,
                           const seg *path) {
  gql_buf *out = p->out;
  gql_json_value num;
  switch (b) {
  case B_STRING:
  case B_ID:
    if (v->kind == GQL_JSON_NUMBER && (b == B_STRING || integral(v))) {
      gql_buf_putc(out, '"');
      if (v->is_int)
        gql_json_write_int(out, v->number.i);
      else
        gql_json_write_double(out, v->number.d);
      gql_buf_putc(out, '"');
      return PROJ_OK;
    }
    if (b == B_STRING && v->kind == GQL_JSON_BOOL) {
      gql_buf_puts(out, v->boolean ? "\"true\"" : "\"false\"");
      return PROJ_OK;
    }
    return shape_error(p, v, path,
                       b == B_STRING ? "String cannot represent value: %s"
                                     : "ID cannot represent value: %s");
  case B_BOOLEAN:
    if (v->kind == GQL_JSON_NUMBER) {
      gql_buf_puts(out, v->number.d != 0 ? "true" : "false");
      return PROJ_OK;
    }
    return shape_error(p, v, path,
                       "Boolean cannot represent a non boolean value: %s");
  case B_INT:
  case B_FLOAT:
    if (v->kind == GQL_JSON_BOOL) {
      gql_buf_putc(out, v->boolean ? '1' : '0');
      return PROJ_OK;
    }
    if (v->kind == GQL_JSON_STRING &&
        numeric_string(p->r->arena, v->string, &num))
      v = &num;
    if (v->kind != GQL_JSON_NUMBER)
      return shape_error(p, v, path,
                         b == B_INT
                             ? "Int cannot represent non-integer value: %s"
                             : "Float cannot represent non numeric value: %s");
    if (b == B_FLOAT) {
      gql_json_write_double(out, v->number.d);
      return PROJ_OK;
    }
    if (!integral(v))
      return shape_error(p, v, path,
                         "Int cannot represent non-integer value: %s");
    if (!in_int32(v))
      return shape_error(
          p, v, path,
          "Int cannot represent non 32-bit signed integer value: %s");
    gql_json_write_int(out, v->is_int ? v->number.i : (int64_t)v->number.d);
    return PROJ_OK;
  case B_NONE:
    break;
  }
  return PROJ_OK;
}

static proj project_inner(projector *p, const gql_json_value *v,
                          const gql_ast_type *t, const gql_gw_type *named,
                          const gql_gw_sel *sel, const seg *path,
                          gql_str parent_type, gql_str field) {
  if (!v || v->kind == GQL_JSON_NULL)
    return PROJ_NULL;
  if (t->h.kind == GQL_AST_LIST_TYPE) {
    if (v->kind != GQL_JSON_ARRAY) {
      char *m = gql_arena_sprintf(
          p->r->arena,
          "Expected Iterable, but did not find one for field \"%.*s.%.*s\".",
          (int)parent_type.len, parent_type.ptr, (int)field.len, field.ptr);
      if (m)
        gql_gw_add_error(p->r, gql_cstr(m),
                         gw_path_json(p->r->arena, path, NULL, 0));
      return PROJ_ERROR;
    }
    gql_buf_putc(p->out, '[');
    for (size_t i = 0; i < v->array.count; i++) {
      if (i)
        gql_buf_putc(p->out, ',');
      seg s = {path, {NULL, 0}, i};
      proj res = project(p, &v->array.items[i], t->of, named, sel, &s,
                         parent_type, field);
      if (res == PROJ_BUBBLED)
        return PROJ_BUBBLED;
    }
    gql_buf_putc(p->out, ']');
    return PROJ_OK;
  }
  if (is_leaf(named)) {
    if (named && named->kind == GQL_AST_ENUM_TYPE_DEFINITION &&
        (v->kind != GQL_JSON_STRING ||
         !gql_supergraph_enum_has(named, v->string)))
      return enum_error(p, v, named, path);
    builtin b = builtin_of(t, named);
    if (b != B_NONE && !builtin_fits(b, v))
      return builtin_coerce(p, b, v, path);
    if (v->kind == GQL_JSON_STRING && v->verbatim) {
      /* as gql_json_write_string would write it, without the scan */
      if (gql_buf_reserve(p->out, v->string.len + 2)) {
        char *o = p->out->data + p->out->len;
        o[0] = '"';
        if (v->string.len)
          memcpy(o + 1, v->string.ptr, v->string.len);
        o[v->string.len + 1] = '"';
        p->out->len += v->string.len + 2;
      }
    } else {
      gql_json_write_value(p->out, v);
    }
    return PROJ_OK;
  }
  if (v->kind != GQL_JSON_OBJECT) {
    char *m = gql_arena_sprintf(p->r->arena,
                                "Expected value of type \"%.*s\" but got: %%s.",
                                (int)named->name.len, named->name.ptr);
    return m ? shape_error(p, v, path, m) : PROJ_ERROR;
  }
  return project_object(p, v, named, sel, path, parent_type, field);
}

static proj project(projector *p, const gql_json_value *v,
                    const gql_ast_type *t, const gql_gw_type *named,
                    const gql_gw_sel *sel, const seg *path, gql_str parent_type,
                    gql_str field) {
  size_t mark = p->out->len;
  bool non_null = t->h.kind == GQL_AST_NON_NULL_TYPE;
  proj res = project_inner(p, v, non_null ? t->of : t, named, sel, path,
                           parent_type, field);
  if (res == PROJ_OK)
    return PROJ_OK;
  p->out->len = mark;
  if (p->r->ds)
    gw_defer_drop(p->r, mark);
  if (non_null) {
    if (res == PROJ_NULL) {
      char *msg = gql_arena_sprintf(
          p->r->arena, "Cannot return null for non-nullable field %.*s.%.*s.",
          (int)parent_type.len, parent_type.ptr, (int)field.len, field.ptr);
      if (msg)
        gql_gw_add_error(p->r, gql_cstr(msg),
                         gw_path_json(p->r->arena, path, NULL, 0));
    }
    return PROJ_BUBBLED;
  }
  gql_buf_puts(p->out, "null");
  return PROJ_OK;
}

/* Writes `"errors":[...],` for the errors so far. */
static void write_response_errors(const gql_gw_request *r, gql_buf *out) {
  gql_buf_puts(out, "\"errors\":[");
  for (uint32_t i = 0; i < r->nerrors; i++) {
    if (i)
      gql_buf_putc(out, ',');
    gql_json_write_value(out, &r->errors[i]);
  }
  gql_buf_puts(out, "],");
}

int gql_gw_request_response(gql_gw_request *r, gql_buf *out) {
  /* The data is projected straight into `out`; errors go first (as
   * graphql-js orders them), so those that projection finds (null
   * propagation) are inserted in front afterwards. */
  size_t start = out->len;
  uint32_t nerrors = r->nerrors;
  gql_buf_putc(out, '{');
  if (nerrors)
    write_response_errors(r, out);
  gql_buf_puts(out, "\"data\":");
  size_t data_at = out->len;
  projector p = {r, out, NULL};
  const gql_gw_type *root = r->plan->root;
  proj res = root ? project_object(&p, r->data, root, &r->plan->client, NULL,
                                   root->name, root->name)
                  : PROJ_NULL;
  if (res != PROJ_OK) {
    out->len = data_at;
    gql_buf_puts(out, "null");
    if (r->ds)
      gw_defer_drop(r, 0);
  }
  gql_buf_putc(out, '}');
  if (r->nerrors != nerrors && !out->failed) {
    /* rewrite the head: `{` + all the errors, then the data as written */
    gql_buf head;
    gql_buf_init(&head, NULL);
    gql_buf_putc(&head, '{');
    write_response_errors(r, &head);
    gql_buf_puts(&head, "\"data\":");
    size_t old = data_at - start;
    if (!head.failed && head.len > old &&
        gql_buf_reserve(out, head.len - old)) {
      char *base = out->data + start;
      memmove(base + head.len, base + old, out->len - data_at);
      memcpy(base, head.data, head.len);
      out->len += head.len - old;
    } else {
      out->failed = true;
    }
    gql_buf_free(&head);
  }
  return out->failed ? GQL_ENOMEM : 0;
}

/* ---------------------------------------------------------------- defer */

const gql_gw_type *gw_concrete_type(const gql_gw_request *r,
                                    const gql_json_value *v,
                                    const gql_gw_type *named) {
  const gql_json_value *tn = obj_get(v, GQL_STR("__typename"));
  if (tn && tn->kind == GQL_JSON_STRING &&
      !gql_str_eq(tn->string, named->name)) {
    const gql_gw_type *t = gql_supergraph_type(r->plan->sg, tn->string);
    return t ? t : named;
  }
  return named;
}

int gw_project_deferred(gql_gw_request *r, gql_buf *out,
                        const gql_json_value *v, const gql_gw_type *named,
                        const gql_gw_sel *sel, const seg *path,
                        const gql_gw_defer *cur) {
  projector p = {r, out, cur};
  proj res = project_object(&p, v, named, sel, path, named->name, sel->name);
  return res == PROJ_OK ? 0 : 1;
}

/* ---------------------------------------------------- pending fragments */

int gw_defer_announce(gql_gw_request *r, const gql_gw_sel *sel,
                      const gql_gw_defer *cur, const gql_gw_type *t,
                      const seg *path, size_t at) {
  gw_defer_state *ds = r->ds;
  for (const gql_gw_defer *d = sel->defers; d; d = d->next_at) {
    if (d->parent != cur ||
        (d->cond && !gql_supergraph_satisfies(t, d->cond)) ||
        (d->cond2 && !gql_supergraph_satisfies(t, d->cond2)))
      continue;
    /* one instance per place: the projection meets a place once (an
     * object may be met at several places: merged entities share their
     * members) */
    if (!GQL_ARRAY_RESERVE(r->arena, ds->items, ds->cap, ds->n + 1))
      return 1;
    gql_json_value *pj = gw_path_json(r->arena, path, NULL, 0);
    if (!pj)
      return 1;
    gw_defer_inst *in = &ds->items[ds->n++];
    memset(in, 0, sizeof *in);
    *in = (gw_defer_inst){.d = d, .path = pj, .type = t, .at = at};
  }
  return 0;
}

void gw_defer_drop(gql_gw_request *r, size_t at) {
  gw_defer_state *ds = r->ds;
  for (uint32_t i = ds->session; i < ds->n; i++)
    if (ds->items[i].at >= at)
      ds->items[i].dead = true;
}
