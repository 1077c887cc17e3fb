/* Input coercion as graphql-js 16 does it: valueFromAST for literals,
 * getArgumentValues for fields, coerceVariableValues / coerceInputValue for
 * JSON variables. Coerced values are JSON values in the arena; an explicit
 * null is gql_exec_null_value and "undefined" is NULL. */
#include "../schema/internal.h"
#include "exec.h"

#include <math.h>
#include <stdlib.h>

static gql_json_value *new_value(gql_arena *a, gql_json_kind kind) {
  gql_json_value *v = gql_arena_alloc(a, sizeof *v);
  if (v)
    *v = (gql_json_value){.kind = kind};
  return v;
}

static gql_json_value *new_number(gql_arena *a, double d) {
  gql_json_value *v = new_value(a, GQL_JSON_NUMBER);
  if (!v)
    return NULL;
  v->number.d = d;
  if (d == floor(d) && fabs(d) < 9.2e18) {
    v->is_int = true;
    v->number.i = (int64_t)d;
  }
  return v;
}

static gql_json_value *new_string(gql_arena *a, gql_str s) {
  gql_json_value *v = new_value(a, GQL_JSON_STRING);
  if (v)
    v->string = s;
  return v;
}

static gql_json_value *new_bool(gql_arena *a, bool b) {
  gql_json_value *v = new_value(a, GQL_JSON_BOOL);
  if (v)
    v->boolean = b;
  return v;
}

static const gql_json_value *NULLV = &gql_exec_null_value;

static bool is_builtin(const coerce_ctx *c, uint32_t t, uint32_t which) {
  return which != GQL_NO_TYPE && t == which;
}

/* ------------------------------------------------------------ literals */

static const gql_json_value *variable_value(const coerce_ctx *c,
                                            gql_ast_name name) {
  if (!c->vars)
    return NULL;
  for (uint32_t i = 0; i < c->nvars; i++)
    if (gql_str_eq(c->var_defs[i].name, gql_ast_name_str(name)))
      return c->vars[i];
  return NULL;
}

static bool is_missing_variable(const coerce_ctx *c, const gql_ast_value *v) {
  return v->h.kind == GQL_AST_VARIABLE && !variable_value(c, v->u.name);
}

/* graphql-js valueFromASTUntyped (custom scalars). */
static const gql_json_value *untyped(const coerce_ctx *c,
                                     const gql_ast_value *v) {
  gql_arena *a = c->arena;
  switch (v->h.kind) {
  case GQL_AST_NULL_VALUE:
    return NULLV;
  case GQL_AST_INT_VALUE:
  case GQL_AST_FLOAT_VALUE:
    return new_number(a, strtod(v->u.raw.ptr, NULL));
  case GQL_AST_STRING_VALUE:
    return new_string(a, v->u.string.value);
  case GQL_AST_ENUM_VALUE:
    return new_string(a, v->u.raw);
  case GQL_AST_BOOLEAN_VALUE:
    return new_bool(a, v->u.boolean);
  case GQL_AST_VARIABLE:
    return variable_value(c, v->u.name);
  case GQL_AST_LIST_VALUE: {
    gql_json_value *l = new_value(a, GQL_JSON_ARRAY);
    if (!l)
      return NULL;
    l->array.items =
        gql_arena_alloc(a, sizeof(gql_json_value) * (v->u.list.count + 1));
    if (!l->array.items)
      return NULL;
    for (uint32_t i = 0; i < v->u.list.count; i++) {
      const gql_json_value *item = untyped(c, v->u.list.items[i]);
      l->array.items[l->array.count++] = item ? *item : *NULLV;
    }
    return l;
  }
  case GQL_AST_OBJECT_VALUE: {
    gql_json_value *o = new_value(a, GQL_JSON_OBJECT);
    if (!o)
      return NULL;
    o->object.members =
        gql_arena_alloc(a, sizeof(gql_json_member) * (v->u.fields.count + 1));
    if (!o->object.members)
      return NULL;
    for (uint32_t i = 0; i < v->u.fields.count; i++) {
      const gql_ast_argument *f = v->u.fields.items[i];
      const gql_json_value *fv = untyped(c, f->value);
      if (!fv)
        continue;
      o->object.members[o->object.count++] =
          (gql_json_member){gql_ast_name_str(f->name), *fv};
    }
    return o;
  }
  }
  return NULL;
}

static const gql_json_value *leaf_from_ast(const coerce_ctx *c,
                                           const gql_ast_value *v, uint32_t t) {
  const gql_schema *s = c->s;
  const gql_type *ty = gql_schema_type_at(s, t);
  int k = v->h.kind;
  if (ty->kind == GQL_TYPE_ENUM) {
    if (k != GQL_AST_ENUM_VALUE)
      return NULL;
    const gql_enum_value *ev = gql_type_enum_value(ty, v->u.raw);
    return ev ? new_string(c->arena, ev->name) : NULL;
  }
  if (is_builtin(c, t, s->t_int)) {
    if (k != GQL_AST_INT_VALUE)
      return NULL;
    double d = strtod(v->u.raw.ptr, NULL);
    if (d > 2147483647.0 || d < -2147483648.0)
      return NULL;
    return new_number(c->arena, d);
  }
  if (is_builtin(c, t, s->t_float)) {
    if (k != GQL_AST_INT_VALUE && k != GQL_AST_FLOAT_VALUE)
      return NULL;
    return new_number(c->arena, strtod(v->u.raw.ptr, NULL));
  }
  if (is_builtin(c, t, s->t_string))
    return k == GQL_AST_STRING_VALUE ? new_string(c->arena, v->u.string.value)
                                     : NULL;
  if (is_builtin(c, t, s->t_boolean))
    return k == GQL_AST_BOOLEAN_VALUE ? new_bool(c->arena, v->u.boolean) : NULL;
  if (is_builtin(c, t, s->t_id)) {
    if (k == GQL_AST_STRING_VALUE)
      return new_string(c->arena, v->u.string.value);
    if (k == GQL_AST_INT_VALUE)
      return new_string(c->arena, v->u.raw);
    return NULL;
  }
  return untyped(c, v);
}

const gql_json_value *gql_exec_value_from_ast(const coerce_ctx *c,
                                              const gql_ast_value *v,
                                              gql_type_ref type) {
  if (!v)
    return NULL;
  if (v->h.kind == GQL_AST_VARIABLE) {
    const gql_json_value *val = variable_value(c, v->u.name);
    if (!val)
      return NULL;
    if (val->kind == GQL_JSON_NULL && gql_type_ref_is_non_null(type))
      return NULL;
    return val;
  }
  if (gql_type_ref_is_non_null(type)) {
    if (v->h.kind == GQL_AST_NULL_VALUE)
      return NULL;
    return gql_exec_value_from_ast(c, v, gql_type_ref_unwrap(type));
  }
  if (v->h.kind == GQL_AST_NULL_VALUE)
    return NULLV;
  gql_arena *a = c->arena;
  if (gql_type_ref_is_list(type)) {
    gql_type_ref item = gql_type_ref_unwrap(type);
    gql_json_value *l = new_value(a, GQL_JSON_ARRAY);
    if (!l)
      return NULL;
    if (v->h.kind != GQL_AST_LIST_VALUE) {
      const gql_json_value *one = gql_exec_value_from_ast(c, v, item);
      if (!one)
        return NULL;
      l->array.items = (gql_json_value *)one;
      l->array.count = 1;
      return l;
    }
    l->array.items =
        gql_arena_alloc(a, sizeof(gql_json_value) * (v->u.list.count + 1));
    if (!l->array.items)
      return NULL;
    for (uint32_t i = 0; i < v->u.list.count; i++) {
      const gql_ast_value *iv = v->u.list.items[i];
      const gql_json_value *r;
      if (is_missing_variable(c, iv)) {
        if (gql_type_ref_is_non_null(item))
          return NULL;
        r = NULLV;
      } else {
        r = gql_exec_value_from_ast(c, iv, item);
        if (!r)
          return NULL;
      }
      l->array.items[l->array.count++] = *r;
    }
    return l;
  }
  const gql_type *ty = gql_schema_type_at(c->s, type.type);
  if (ty->kind == GQL_TYPE_INPUT_OBJECT) {
    if (v->h.kind != GQL_AST_OBJECT_VALUE)
      return NULL;
    gql_json_value *o = new_value(a, GQL_JSON_OBJECT);
    if (!o)
      return NULL;
    o->object.members =
        gql_arena_alloc(a, sizeof(gql_json_member) * (ty->ninput_fields + 1));
    if (!o->object.members)
      return NULL;
    for (uint32_t i = 0; i < ty->ninput_fields; i++) {
      const gql_input_value *f = &ty->input_fields[i];
      const gql_ast_argument *fn = NULL;
      for (uint32_t j = 0; j < v->u.fields.count; j++)
        if (gql_str_eq(gql_ast_name_str(v->u.fields.items[j]->name), f->name))
          fn = v->u.fields.items[j];
      if (!fn || is_missing_variable(c, fn->value)) {
        if (f->default_value) {
          const gql_json_value *d = gql_exec_default_value(c, f);
          if (d)
            o->object.members[o->object.count++] =
                (gql_json_member){f->name, *d};
        } else if (gql_type_ref_is_non_null(f->type)) {
          return NULL;
        }
        continue;
      }
      const gql_json_value *fv = gql_exec_value_from_ast(c, fn->value, f->type);
      if (!fv)
        return NULL;
      o->object.members[o->object.count++] = (gql_json_member){f->name, *fv};
    }
    if (ty->one_of) {
      if (o->object.count != 1 ||
          o->object.members[0].value.kind == GQL_JSON_NULL)
        return NULL;
    }
    return o;
  }
  if (ty->kind == GQL_TYPE_SCALAR || ty->kind == GQL_TYPE_ENUM)
    return leaf_from_ast(c, v, type.type);
  return NULL;
}

const gql_json_value *gql_exec_default_value(const coerce_ctx *c,
                                             const gql_input_value *iv) {
  if (!iv->default_value)
    return NULL;
  coerce_ctx plain = {.s = c->s, .arena = c->arena};
  return gql_exec_value_from_ast(&plain, iv->default_value, iv->type);
}

/* ------------------------------------------------------------ arguments */

static const char *type_str(const coerce_ctx *c, gql_type_ref t) {
  const char *s = gql_type_ref_str(c->s, t, c->arena);
  return s ? s : "?";
}

int gql_exec_arg_values(const coerce_ctx *c, const gql_input_value *defs,
                        uint32_t ndefs, const gql_ast_arguments *args,
                        uint32_t node_off, const gql_json_value **out,
                        const char **msg, uint32_t *off) {
  gql_arena *a = c->arena;
  gql_json_value *o = new_value(a, GQL_JSON_OBJECT);
  if (!o)
    goto nomem;
  o->object.members = gql_arena_alloc(a, sizeof(gql_json_member) * (ndefs + 1));
  if (!o->object.members)
    goto nomem;
  for (uint32_t i = 0; i < ndefs; i++) {
    const gql_input_value *d = &defs[i];
    const gql_ast_argument *an = NULL;
    for (uint32_t j = 0; args && j < args->count; j++)
      if (gql_str_eq(gql_ast_name_str(args->items[j]->name), d->name)) {
        an = args->items[j];
        break;
      }
    if (!an) {
      if (d->default_value) {
        const gql_json_value *dv = gql_exec_default_value(c, d);
        if (dv)
          o->object.members[o->object.count++] =
              (gql_json_member){d->name, *dv};
      } else if (gql_type_ref_is_non_null(d->type)) {
        *msg = gql_arena_sprintf(a,
                                 "Argument \"%.*s\" of required type \"%s\" "
                                 "was not provided.",
                                 (int)d->name.len, d->name.ptr,
                                 type_str(c, d->type));
        *off = node_off;
        return -1;
      }
      continue;
    }
    const gql_ast_value *vn = an->value;
    bool is_null = vn->h.kind == GQL_AST_NULL_VALUE;
    if (vn->h.kind == GQL_AST_VARIABLE) {
      const gql_json_value *vv = variable_value(c, vn->u.name);
      if (!vv) {
        if (d->default_value) {
          const gql_json_value *dv = gql_exec_default_value(c, d);
          if (dv)
            o->object.members[o->object.count++] =
                (gql_json_member){d->name, *dv};
        } else if (gql_type_ref_is_non_null(d->type)) {
          *msg = gql_arena_sprintf(
              a,
              "Argument \"%.*s\" of required type \"%s\" was provided the "
              "variable \"$%.*s\" which was not provided a runtime value.",
              (int)d->name.len, d->name.ptr, type_str(c, d->type),
              (int)vn->u.name.len, vn->u.name.ptr);
          *off = vn->h.start;
          return -1;
        }
        continue;
      }
      is_null = vv->kind == GQL_JSON_NULL;
    }
    if (is_null && gql_type_ref_is_non_null(d->type)) {
      *msg = gql_arena_sprintf(a,
                               "Argument \"%.*s\" of non-null type \"%s\" "
                               "must not be null.",
                               (int)d->name.len, d->name.ptr,
                               type_str(c, d->type));
      *off = vn->h.start;
      return -1;
    }
    const gql_json_value *cv = gql_exec_value_from_ast(c, vn, d->type);
    if (!cv) {
      gql_buf b;
      gql_buf_init(&b, NULL);
      gql_print_value(&b, vn);
      const char *printed = gql_buf_cstr(&b);
      *msg = gql_arena_sprintf(a, "Argument \"%.*s\" has invalid value %s.",
                               (int)d->name.len, d->name.ptr,
                               printed ? printed : "");
      gql_buf_free(&b);
      *off = vn->h.start;
      return -1;
    }
    o->object.members[o->object.count++] = (gql_json_member){d->name, *cv};
  }
  *out = o;
  return 0;
nomem:
  *msg = "Out of memory.";
  *off = node_off;
  return -1;
}

/* ------------------------------------------------------------ variables */

/* A step of the path inside a variable's value. */
typedef struct cpath {
  const struct cpath *prev;
  gql_str key;
  int64_t index; /* -1: key */
} cpath;

typedef struct var_err {
  const coerce_ctx *c;
  gql_error_list *errors;
  gql_str source;
  const plan_var *var;
  bool failed;
} var_err;

static void print_path(gql_buf *b, const cpath *p) {
  if (!p)
    return;
  print_path(b, p->prev);
  if (p->index >= 0)
    gql_buf_printf(b, "[%lld]", (long long)p->index);
  else {
    gql_buf_putc(b, '.');
    gql_buf_put_str(b, p->key);
  }
}

/* coerceVariableValues' onError: "Variable "$x" got invalid value V[ at
 * "x.path"]; MESSAGE". */
static void report(var_err *e, const cpath *path, const gql_json_value *value,
                   const char *message) {
  e->failed = true;
  if (gql_error_list_full(e->errors)) { /* past the cutoff: no formatting */
    e->errors->truncated = true;
    return;
  }
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_printf(&b, "Variable \"$%.*s\" got invalid value ",
                 (int)e->var->name.len, e->var->name.ptr);
  gql_exec_inspect(&b, value);
  if (path) {
    gql_buf_printf(&b, " at \"%.*s", (int)e->var->name.len, e->var->name.ptr);
    print_path(&b, path);
    gql_buf_putc(&b, '"');
  }
  gql_buf_puts(&b, "; ");
  gql_buf_puts(&b, message);
  const char *m = gql_buf_cstr(&b);
  uint32_t off = e->var->def->h.start;
  gql_error_list_addf(e->errors, e->source, &off, 1, "%s", m ? m : "");
  gql_buf_free(&b);
}

static void reportf(var_err *e, const cpath *path, const gql_json_value *value,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void reportf(var_err *e, const cpath *path, const gql_json_value *value,
                    const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = gql_arena_vsprintf(e->c->arena, fmt, ap);
  va_end(ap);
  report(e, path, value, m ? m : "");
}

static const gql_json_value *parse_scalar(var_err *e, const cpath *path,
                                          const gql_json_value *v, uint32_t t) {
  const coerce_ctx *c = e->c;
  const gql_schema *s = c->s;
  const gql_type *ty = gql_schema_type_at(s, t);
  gql_arena *a = c->arena;
  bool num = v->kind == GQL_JSON_NUMBER;
  if (ty->kind == GQL_TYPE_ENUM) {
    gql_buf b;
    gql_buf_init(&b, NULL);
    gql_str *names = gql_arena_alloc(a, sizeof(gql_str) * (ty->nvalues + 1));
    for (uint32_t i = 0; names && i < ty->nvalues; i++)
      names[i] = ty->values[i].name;
    /* what the suggestions are for: the value, or (not a string) how
     * inspect() prints it, as graphql-js 16.15's parseValue suggests */
    gql_str asked = v->kind == GQL_JSON_STRING ? v->string : (gql_str){0};
    if (v->kind != GQL_JSON_STRING) {
      gql_buf_printf(&b, "Enum \"%.*s\" cannot represent non-string value: ",
                     (int)ty->name.len, ty->name.ptr);
      size_t at = b.len;
      gql_exec_inspect(&b, v);
      const char *all = gql_buf_cstr(&b);
      if (all)
        asked =
            (gql_str){gql_arena_strndup(a, all + at, b.len - at), b.len - at};
      gql_buf_putc(&b, '.');
    } else {
      const gql_enum_value *ev = gql_type_enum_value(ty, v->string);
      if (ev) {
        gql_buf_free(&b);
        return new_string(a, ev->name);
      }
      gql_buf_printf(&b, "Value \"%.*s\" does not exist in \"%.*s\" enum.",
                     (int)v->string.len, v->string.ptr, (int)ty->name.len,
                     ty->name.ptr);
    }
    if (names && asked.ptr) {
      gql_str sug[8];
      uint32_t n = gql_suggestion_list(asked, names, ty->nvalues, sug, 8, a);
      gql_did_you_mean(&b, "the enum value", sug, n);
    }
    const char *m = gql_buf_cstr(&b);
    report(e, path, v, m ? m : "");
    gql_buf_free(&b);
    return NULL;
  }
  if (t == s->t_int) {
    if (!num || !v->is_int) {
      reportf(e, path, v, "Int cannot represent non-integer value: %s",
              gql_exec_inspect_str(a, v));
      return NULL;
    }
    if (v->number.i > 2147483647 || v->number.i < -2147483648LL) {
      reportf(e, path, v,
              "Int cannot represent non 32-bit signed integer value: %s",
              gql_exec_inspect_str(a, v));
      return NULL;
    }
    return v;
  }
  if (t == s->t_float) {
    if (!num || !isfinite(v->number.d)) {
      reportf(e, path, v, "Float cannot represent non numeric value: %s",
              gql_exec_inspect_str(a, v));
      return NULL;
    }
    return v;
  }
  if (t == s->t_string) {
    if (v->kind != GQL_JSON_STRING) {
      reportf(e, path, v, "String cannot represent a non string value: %s",
              gql_exec_inspect_str(a, v));
      return NULL;
    }
    return v;
  }
  if (t == s->t_boolean) {
    if (v->kind != GQL_JSON_BOOL) {
      reportf(e, path, v, "Boolean cannot represent a non boolean value: %s",
              gql_exec_inspect_str(a, v));
      return NULL;
    }
    return v;
  }
  if (t == s->t_id) {
    if (v->kind == GQL_JSON_STRING)
      return v;
    if (num && v->is_int) {
      char *txt = gql_arena_sprintf(a, "%lld", (long long)v->number.i);
      return txt ? new_string(a, gql_cstr(txt)) : NULL;
    }
    reportf(e, path, v, "ID cannot represent value: %s",
            gql_exec_inspect_str(a, v));
    return NULL;
  }
  return v; /* custom scalars: parseValue is the identity */
}

static const gql_json_value *coerce_input(var_err *e, const gql_json_value *v,
                                          gql_type_ref type,
                                          const cpath *path) {
  const coerce_ctx *c = e->c;
  gql_arena *a = c->arena;
  if (e->failed && gql_error_list_full(e->errors)) {
    e->errors->truncated = true; /* the value is discarded anyway */
    return NULL;
  }
  if (gql_type_ref_is_non_null(type)) {
    if (v && v->kind != GQL_JSON_NULL)
      return coerce_input(e, v, gql_type_ref_unwrap(type), path);
    reportf(e, path, v, "Expected non-nullable type \"%s\" not to be null.",
            type_str(c, type));
    return NULL;
  }
  if (!v || v->kind == GQL_JSON_NULL)
    return NULLV;
  if (gql_type_ref_is_list(type)) {
    gql_type_ref item = gql_type_ref_unwrap(type);
    gql_json_value *l = new_value(a, GQL_JSON_ARRAY);
    if (!l)
      return NULL;
    if (v->kind != GQL_JSON_ARRAY) {
      const gql_json_value *one = coerce_input(e, v, item, path);
      l->array.items = (gql_json_value *)(one ? one : NULLV);
      l->array.count = 1;
      return l;
    }
    l->array.items =
        gql_arena_alloc(a, sizeof(gql_json_value) * (v->array.count + 1));
    if (!l->array.items)
      return NULL;
    for (size_t i = 0; i < v->array.count; i++) {
      cpath p = {path, {0, 0}, (int64_t)i};
      const gql_json_value *r = coerce_input(e, &v->array.items[i], item, &p);
      l->array.items[l->array.count++] = r ? *r : *NULLV;
    }
    return l;
  }
  const gql_type *ty = gql_schema_type_at(c->s, type.type);
  if (ty->kind == GQL_TYPE_INPUT_OBJECT) {
    if (v->kind != GQL_JSON_OBJECT) {
      reportf(e, path, v, "Expected type \"%.*s\" to be an object.",
              (int)ty->name.len, ty->name.ptr);
      return NULL;
    }
    gql_json_value *o = new_value(a, GQL_JSON_OBJECT);
    if (!o)
      return NULL;
    o->object.members =
        gql_arena_alloc(a, sizeof(gql_json_member) * (ty->ninput_fields + 1));
    if (!o->object.members)
      return NULL;
    for (uint32_t i = 0; i < ty->ninput_fields; i++) {
      const gql_input_value *f = &ty->input_fields[i];
      const gql_json_value *fv = gql_json_get(v, f->name);
      if (!fv) {
        if (f->default_value) {
          const gql_json_value *d = gql_exec_default_value(c, f);
          if (d)
            o->object.members[o->object.count++] =
                (gql_json_member){f->name, *d};
        } else if (gql_type_ref_is_non_null(f->type)) {
          reportf(e, path, v,
                  "Field \"%.*s\" of required type \"%s\" was not provided.",
                  (int)f->name.len, f->name.ptr, type_str(c, f->type));
        }
        continue;
      }
      cpath p = {path, f->name, -1};
      const gql_json_value *r = coerce_input(e, fv, f->type, &p);
      o->object.members[o->object.count++] =
          (gql_json_member){f->name, r ? *r : *NULLV};
    }
    for (size_t i = 0; i < v->object.count; i++) {
      gql_str key = v->object.members[i].key;
      if (gql_type_input_field(ty, key))
        continue;
      gql_buf b;
      gql_buf_init(&b, NULL);
      gql_buf_printf(&b, "Field \"%.*s\" is not defined by type \"%.*s\".",
                     (int)key.len, key.ptr, (int)ty->name.len, ty->name.ptr);
      gql_str *names =
          gql_arena_alloc(a, sizeof(gql_str) * (ty->ninput_fields + 1));
      if (names) {
        for (uint32_t j = 0; j < ty->ninput_fields; j++)
          names[j] = ty->input_fields[j].name;
        gql_str sug[8];
        uint32_t n =
            gql_suggestion_list(key, names, ty->ninput_fields, sug, 8, a);
        gql_did_you_mean(&b, NULL, sug, n);
      }
      const char *m = gql_buf_cstr(&b);
      report(e, path, v, m ? m : "");
      gql_buf_free(&b);
    }
    if (ty->one_of) {
      if (o->object.count != 1)
        reportf(e, path, v,
                "Exactly one key must be specified for OneOf type \"%.*s\".",
                (int)ty->name.len, ty->name.ptr);
      if (o->object.count >= 1 &&
          o->object.members[0].value.kind == GQL_JSON_NULL) {
        cpath p = {path, o->object.members[0].key, -1};
        reportf(e, &p, NULLV, "Field \"%.*s\" must be non-null.",
                (int)o->object.members[0].key.len,
                o->object.members[0].key.ptr);
      }
    }
    return o;
  }
  return parse_scalar(e, path, v, type.type);
}

int gql_exec_coerce_variables(const coerce_ctx *c, gql_str source,
                              const gql_json_value *inputs,
                              const gql_json_value **vals,
                              gql_error_list *errors) {
  bool failed = false;
  for (uint32_t i = 0; i < c->nvars; i++) {
    const plan_var *pv = &c->var_defs[i];
    vals[i] = NULL;
    uint32_t off = pv->def->h.start;
    if (pv->type.type == GQL_NO_TYPE) {
      gql_buf b;
      gql_buf_init(&b, NULL);
      gql_print_type(&b, pv->def->type);
      const char *ts = gql_buf_cstr(&b);
      gql_error_list_addf(errors, source, &pv->def->type->h.start, 1,
                          "Variable \"$%.*s\" expected value of type \"%s\" "
                          "which cannot be used as an input type.",
                          (int)pv->name.len, pv->name.ptr, ts ? ts : "");
      gql_buf_free(&b);
      failed = true;
      continue;
    }
    const gql_json_value *in = inputs && inputs->kind == GQL_JSON_OBJECT
                                   ? gql_json_get(inputs, pv->name)
                                   : NULL;
    if (!in) {
      if (pv->def->default_value) {
        coerce_ctx plain = {.s = c->s, .arena = c->arena};
        vals[i] =
            gql_exec_value_from_ast(&plain, pv->def->default_value, pv->type);
      } else if (gql_type_ref_is_non_null(pv->type)) {
        gql_error_list_addf(errors, source, &off, 1,
                            "Variable \"$%.*s\" of required type \"%s\" was "
                            "not provided.",
                            (int)pv->name.len, pv->name.ptr,
                            type_str(c, pv->type));
        failed = true;
      }
      continue;
    }
    if (in->kind == GQL_JSON_NULL && gql_type_ref_is_non_null(pv->type)) {
      gql_error_list_addf(errors, source, &off, 1,
                          "Variable \"$%.*s\" of non-null type \"%s\" must "
                          "not be null.",
                          (int)pv->name.len, pv->name.ptr,
                          type_str(c, pv->type));
      failed = true;
      continue;
    }
    var_err e = {.c = c, .errors = errors, .source = source, .var = pv};
    const gql_json_value *r = coerce_input(&e, in, pv->type, NULL);
    if (e.failed) {
      failed = true;
      continue;
    }
    vals[i] = r;
  }
  return failed ? -1 : 0;
}

int gql_prepared_coerce_variables(const gql_prepared *p, gql_arena *arena,
                                  const gql_value *variables,
                                  const gql_value **out, gql_errors *errors) {
  *out = NULL;
  if (errors)
    errors->items = NULL, errors->count = 0;
  if (!p || !arena)
    return GQL_EINVAL;
  uint32_t n = p->nvars;
  const gql_json_value **vals = gql_arena_alloc(arena, (n + 1) * sizeof *vals);
  gql_json_value *obj = gql_arena_alloc(arena, sizeof *obj);
  gql_json_member *m = gql_arena_alloc(arena, (n + 1) * sizeof *m);
  if (!vals || !obj || !m)
    return GQL_ENOMEM;
  gql_error_list el;
  gql_error_list_init(&el, errors && errors->arena ? errors->arena : arena, 50);
  coerce_ctx cc = {
      .s = p->s, .arena = arena, .var_defs = p->vars, .nvars = p->nvars};
  if (gql_exec_coerce_variables(&cc, p->text, variables, vals, &el) < 0) {
    if (el.truncated) { /* graphql-js maxErrors: 50, then this one */
      el.max = 0;
      gql_error_list_push(&el,
                          "Too many errors processing variables, error limit "
                          "reached. Execution aborted.",
                          NULL, 0);
    }
    if (errors && errors->arena)
      errors->items = el.items, errors->count = el.count;
    return el.nomem ? GQL_ENOMEM : GQL_EINVAL;
  }
  size_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (vals[i])
      m[k++] = (gql_json_member){.key = p->vars[i].name, .value = *vals[i]};
  *obj = (gql_json_value){.kind = GQL_JSON_OBJECT};
  obj->object.members = m;
  obj->object.count = k;
  *out = obj;
  return 0;
}
