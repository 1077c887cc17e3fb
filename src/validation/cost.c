/* Demand control's static estimate (see cost.h). The schema part reads
 * @cost / @listSize from each element's AST once into tables indexed like
 * the schema (type, field, argument, input field); the estimate walks the
 * operation's AST with those tables, the variables and a work budget. */
#include "cost.h"

#include "../language/ast.h"
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct cost_list_size {
  bool has_assumed;
  double assumed;
  gql_str *slicing; /* argument paths: "first", "input.pagination.first" */
  uint32_t nslicing;
  gql_str *sized; /* child field names */
  uint32_t nsized;
  bool require_one;
} cost_list_size;

typedef struct cost_field {
  double weight;            /* NAN: none on the field */
  const cost_list_size *ls; /* NULL: none */
  double *args;             /* per argument definition; NAN: none */
} cost_field;

typedef struct cost_type {
  double weight;       /* @cost on the type (object, scalar, enum); NAN */
  cost_field *fields;  /* object, interface */
  double *input_field; /* input object: per input field; NAN */
} cost_type;

struct gql_cost_schema {
  const gql_schema *s;
  gql_arena *arena;
  cost_type *types;
  double list_size;
  uint32_t max_work;
  char cost_name[128], list_size_name[128];
};

/* ------------------------------------------------------------- schema */

static bool name_is(gql_ast_name n, const char *s) {
  return strlen(s) == n.len && memcmp(n.ptr, s, n.len) == 0;
}

static const gql_ast_argument *dir_arg(const gql_ast_directive *d,
                                       const char *name) {
  for (uint32_t i = 0; i < d->args.count; i++)
    if (name_is(d->args.items[i]->name, name))
      return d->args.items[i];
  return NULL;
}

static const gql_ast_directive *find_dir(const gql_ast_directives *ds,
                                         const char *name) {
  for (uint32_t i = 0; i < ds->count; i++)
    if (name_is(ds->items[i]->name, name))
      return ds->items[i];
  return NULL;
}

/* The name a @link gives an element of a spec: "@cost" imported as is or
 * under an alias, else the spec's prefix ("cost__cost",
 * "federation__cost"). */
static void link_name(const gql_ast_directive *link, const char *spec_name,
                      const char *element, char *out, size_t n) {
  const gql_ast_argument *imp = dir_arg(link, "import");
  char at[64];
  snprintf(at, sizeof at, "@%s", element);
  if (imp && imp->value->h.kind == GQL_AST_LIST_VALUE) {
    for (uint32_t i = 0; i < imp->value->u.list.count; i++) {
      const gql_ast_value *v = imp->value->u.list.items[i];
      if (v->h.kind == GQL_AST_STRING_VALUE &&
          gql_str_eq_cstr(v->u.string.value, at)) {
        snprintf(out, n, "%s", element);
        return;
      }
      if (v->h.kind != GQL_AST_OBJECT_VALUE)
        continue;
      gql_str nm = {0}, as = {0};
      for (uint32_t k = 0; k < v->u.fields.count; k++) {
        const gql_ast_argument *f = v->u.fields.items[k];
        if (f->value->h.kind != GQL_AST_STRING_VALUE)
          continue;
        if (name_is(f->name, "name"))
          nm = f->value->u.string.value;
        else if (name_is(f->name, "as"))
          as = f->value->u.string.value;
      }
      if (gql_str_eq_cstr(nm, at)) {
        gql_str use = as.len ? as : nm;
        if (use.len && use.ptr[0] == '@') {
          use.ptr++;
          use.len--;
        }
        snprintf(out, n, "%.*s", (int)use.len, use.ptr);
        return;
      }
    }
  }
  const gql_ast_argument *as = dir_arg(link, "as");
  if (as && as->value->h.kind == GQL_AST_STRING_VALUE)
    snprintf(out, n, "%.*s__%s", (int)as->value->u.string.value.len,
             as->value->u.string.value.ptr, element);
  else
    snprintf(out, n, "%s__%s", spec_name, element);
}

static void names_from_links(const gql_schema *s, gql_cost_schema *cs) {
  const gql_ast_schema_def *defs[65];
  uint32_t n = 0;
  if (s->ast)
    defs[n++] = s->ast;
  for (uint32_t i = 0; i < s->nextensions && n < 65; i++)
    defs[n++] = s->extensions[i];
  for (uint32_t i = 0; i < n; i++) {
    for (uint32_t k = 0; k < defs[i]->directives.count; k++) {
      const gql_ast_directive *d = defs[i]->directives.items[k];
      if (!name_is(d->name, "link"))
        continue;
      const gql_ast_argument *url = dir_arg(d, "url");
      if (!url || url->value->h.kind != GQL_AST_STRING_VALUE)
        continue;
      gql_str u = url->value->u.string.value;
      const char *spec = NULL;
      if (u.len > 29 &&
          memcmp(u.ptr, "https://specs.apollo.dev/cost/", 30) == 0)
        spec = "cost";
      else if (u.len > 35 &&
               memcmp(u.ptr, "https://specs.apollo.dev/federation/", 36) == 0)
        spec = "federation";
      if (!spec)
        continue;
      link_name(d, spec, "cost", cs->cost_name, sizeof cs->cost_name);
      link_name(d, spec, "listSize", cs->list_size_name,
                sizeof cs->list_size_name);
      if (!strcmp(spec, "cost"))
        return; /* the cost spec's own link wins over federation's */
    }
  }
}

static int bad(char *err, size_t n, const char *fmt, gql_str a, gql_str b) {
  if (err && n)
    snprintf(err, n, fmt, (int)a.len, a.ptr, (int)b.len, b.ptr);
  return GQL_EINVAL;
}

/* @cost(weight:) on a directive list: NAN when absent. The weight is a
 * String in the IBM spec ("2.5") and an Int in Apollo's first version. */
static int read_weight(const gql_cost_schema *cs, const gql_ast_directives *ds,
                       double *out, gql_str where, char *err, size_t n) {
  *out = NAN;
  const gql_ast_directive *d = find_dir(ds, cs->cost_name);
  if (!d)
    return 0;
  const gql_ast_argument *w = dir_arg(d, "weight");
  const gql_ast_value *v = w ? w->value : NULL;
  char buf[64];
  if (v &&
      (v->h.kind == GQL_AST_INT_VALUE || v->h.kind == GQL_AST_FLOAT_VALUE) &&
      v->u.raw.len < sizeof buf) {
    memcpy(buf, v->u.raw.ptr, v->u.raw.len);
    buf[v->u.raw.len] = 0;
  } else if (v && v->h.kind == GQL_AST_STRING_VALUE &&
             v->u.string.value.len < sizeof buf) {
    memcpy(buf, v->u.string.value.ptr, v->u.string.value.len);
    buf[v->u.string.value.len] = 0;
  } else {
    return bad(err, n, "@cost on %.*s%.*s: weight must be a number", where,
               (gql_str){"", 0});
  }
  char *end;
  double x = strtod(buf, &end);
  if (end == buf || *end || !isfinite(x))
    return bad(err, n, "@cost on %.*s%.*s: weight must be a number", where,
               (gql_str){"", 0});
  *out = x;
  return 0;
}

static int str_list(gql_arena *a, const gql_ast_value *v, gql_str **items,
                    uint32_t *count) {
  *items = NULL;
  *count = 0;
  if (!v || v->h.kind == GQL_AST_NULL_VALUE)
    return 0;
  if (v->h.kind == GQL_AST_STRING_VALUE) { /* input coercion of a list */
    *items = gql_arena_alloc(a, sizeof **items);
    if (!*items)
      return GQL_ENOMEM;
    (*items)[0] = v->u.string.value;
    *count = 1;
    return 0;
  }
  if (v->h.kind != GQL_AST_LIST_VALUE)
    return GQL_EINVAL;
  *items = gql_arena_alloc(a, sizeof **items * (v->u.list.count + 1));
  if (!*items)
    return GQL_ENOMEM;
  for (uint32_t i = 0; i < v->u.list.count; i++) {
    if (v->u.list.items[i]->h.kind != GQL_AST_STRING_VALUE)
      return GQL_EINVAL;
    (*items)[(*count)++] = v->u.list.items[i]->u.string.value;
  }
  return 0;
}

static int read_list_size(gql_cost_schema *cs, const gql_field *f,
                          const gql_type *t, char *err, size_t n) {
  cost_field *cf = &cs->types[t - cs->s->types].fields[f - t->fields];
  const gql_ast_directive *d =
      f->ast ? find_dir(&f->ast->directives, cs->list_size_name) : NULL;
  if (!d)
    return 0;
  cost_list_size *ls = gql_arena_alloc(cs->arena, sizeof *ls);
  if (!ls)
    return GQL_ENOMEM;
  *ls = (cost_list_size){.require_one = true};
  const gql_ast_argument *a = dir_arg(d, "assumedSize");
  if (a && a->value->h.kind == GQL_AST_INT_VALUE) {
    ls->has_assumed = true;
    ls->assumed = strtod(a->value->u.raw.ptr, NULL);
  } else if (a && a->value->h.kind != GQL_AST_NULL_VALUE) {
    return bad(err, n, "@listSize on %.*s.%.*s: assumedSize must be an Int",
               t->name, f->name);
  }
  int rc = str_list(cs->arena,
                    (a = dir_arg(d, "slicingArguments")) ? a->value : NULL,
                    &ls->slicing, &ls->nslicing);
  if (rc == 0)
    rc = str_list(cs->arena, (a = dir_arg(d, "sizedFields")) ? a->value : NULL,
                  &ls->sized, &ls->nsized);
  if (rc == GQL_EINVAL)
    return bad(err, n,
               "@listSize on %.*s.%.*s: slicingArguments and sizedFields are "
               "lists of strings",
               t->name, f->name);
  if (rc < 0)
    return rc;
  a = dir_arg(d, "requireOneSlicingArgument");
  if (a && a->value->h.kind == GQL_AST_BOOLEAN_VALUE)
    ls->require_one = a->value->u.boolean;
  for (uint32_t i = 0; i < ls->nslicing; i++) {
    gql_str head = ls->slicing[i];
    const char *dot = memchr(head.ptr, '.', head.len);
    if (dot)
      head.len = (size_t)(dot - head.ptr);
    if (!gql_field_arg(f, head))
      return bad(err, n,
                 "@listSize on %.*s.%.*s: no argument named by "
                 "slicingArguments",
                 t->name, f->name);
  }
  cf->ls = ls;
  return 0;
}

static int read_type(gql_cost_schema *cs, uint32_t ti, char *err, size_t n) {
  const gql_type *t = &cs->s->types[ti];
  cost_type *ct = &cs->types[ti];
  ct->weight = NAN;
  int rc;
  if (t->ast && (rc = read_weight(cs, &t->ast->directives, &ct->weight, t->name,
                                  err, n)) < 0)
    return rc;
  for (uint32_t e = 0; e < t->nextensions && isnan(ct->weight); e++)
    if ((rc = read_weight(cs, &t->extensions[e]->directives, &ct->weight,
                          t->name, err, n)) < 0)
      return rc;
  if (t->ninput_fields) {
    ct->input_field =
        gql_arena_alloc(cs->arena, sizeof(double) * t->ninput_fields);
    if (!ct->input_field)
      return GQL_ENOMEM;
    for (uint32_t i = 0; i < t->ninput_fields; i++) {
      const gql_input_value *iv = &t->input_fields[i];
      ct->input_field[i] = NAN;
      if (iv->ast &&
          (rc = read_weight(cs, &iv->ast->directives, &ct->input_field[i],
                            iv->name, err, n)) < 0)
        return rc;
    }
  }
  if (!t->nfields)
    return 0;
  ct->fields = gql_arena_alloc(cs->arena, sizeof *ct->fields * t->nfields);
  if (!ct->fields)
    return GQL_ENOMEM;
  for (uint32_t i = 0; i < t->nfields; i++) {
    const gql_field *f = &t->fields[i];
    cost_field *cf = &ct->fields[i];
    *cf = (cost_field){.weight = NAN};
    if (f->ast && (rc = read_weight(cs, &f->ast->directives, &cf->weight,
                                    f->name, err, n)) < 0)
      return rc;
    if (f->nargs) {
      cf->args = gql_arena_alloc(cs->arena, sizeof(double) * f->nargs);
      if (!cf->args)
        return GQL_ENOMEM;
      for (uint32_t k = 0; k < f->nargs; k++) {
        cf->args[k] = NAN;
        const gql_input_value *iv = &f->args[k];
        if (iv->ast && (rc = read_weight(cs, &iv->ast->directives, &cf->args[k],
                                         iv->name, err, n)) < 0)
          return rc;
      }
    }
    if ((rc = read_list_size(cs, f, t, err, n)) < 0)
      return rc;
  }
  return 0;
}

int gql_cost_schema_new(const gql_schema *s, const gql_cost_options *o,
                        gql_cost_schema **out, char *err, size_t err_len) {
  *out = NULL;
  gql_cost_schema *cs = calloc(1, sizeof *cs);
  if (!cs || !(cs->arena = gql_arena_new(NULL))) {
    free(cs);
    return GQL_ENOMEM;
  }
  cs->s = s;
  cs->list_size = o && o->list_size ? o->list_size : 10;
  cs->max_work = o && o->max_work ? o->max_work : 1000000;
  snprintf(cs->cost_name, sizeof cs->cost_name, "cost");
  snprintf(cs->list_size_name, sizeof cs->list_size_name, "listSize");
  names_from_links(s, cs);
  if (o && o->cost_name)
    snprintf(cs->cost_name, sizeof cs->cost_name, "%s", o->cost_name);
  if (o && o->list_size_name)
    snprintf(cs->list_size_name, sizeof cs->list_size_name, "%s",
             o->list_size_name);
  cs->types = gql_arena_alloc(cs->arena, sizeof *cs->types * (s->ntypes + 1));
  int rc = cs->types ? 0 : GQL_ENOMEM;
  for (uint32_t i = 0; rc == 0 && i < s->ntypes; i++)
    rc = read_type(cs, i, err, err_len);
  if (rc < 0) {
    gql_cost_schema_free(cs);
    return rc;
  }
  *out = cs;
  return 0;
}

void gql_cost_schema_free(gql_cost_schema *cs) {
  if (!cs)
    return;
  gql_arena_free(cs->arena);
  free(cs);
}

/* ----------------------------------------------------------- estimate */

typedef struct est {
  const gql_cost_schema *cs;
  const gql_schema *s;
  const gql_document *doc;
  const gql_ast_operation *op;
  const gql_json_value *vars;
  gql_arena *a;
  uint32_t work, depth;
  const char *error;
  int rc;
  gql_ptrmap memo; /* fragment → double*, for spreads with no listSize */
} est;

/* A list size in force for a field's children (sizedFields). */
typedef struct list_dir {
  bool has_size;
  double size;
  const cost_list_size *ls;
} list_dir;

static int fail(est *e, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(est *e, int rc, const char *fmt, ...) {
  if (!e->rc) {
    va_list ap;
    va_start(ap, fmt);
    e->error = gql_arena_vsprintf(e->a, fmt, ap);
    va_end(ap);
    if (!e->error)
      e->error = "out of memory";
    e->rc = rc;
  }
  return rc;
}

static const gql_json_value *var_value(est *e, gql_ast_name name,
                                       const gql_ast_value **dflt) {
  *dflt = NULL;
  const gql_json_value *v =
      e->vars ? gql_json_get(e->vars, gql_ast_name_str(name)) : NULL;
  if (v)
    return v;
  for (uint32_t i = 0; i < e->op->variables.count; i++) {
    const gql_ast_variable_definition *d = e->op->variables.items[i];
    if (d->variable->u.name.len == name.len &&
        memcmp(d->variable->u.name.ptr, name.ptr, name.len) == 0) {
      *dflt = d->default_value;
      break;
    }
  }
  return NULL;
}

/* @skip(if:) / @include(if:) with a literal or a variable. */
static bool excluded(est *e, const gql_ast_directives *ds) {
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_directive *d = ds->items[i];
    bool skip = name_is(d->name, "skip");
    if (!skip && !name_is(d->name, "include"))
      continue;
    const gql_ast_argument *a = dir_arg(d, "if");
    if (!a)
      continue;
    const gql_ast_value *v = a->value;
    int truth = -1;
    if (v->h.kind == GQL_AST_VARIABLE) {
      const gql_ast_value *dflt;
      const gql_json_value *j = var_value(e, v->u.name, &dflt);
      if (j && j->kind == GQL_JSON_BOOL)
        truth = j->boolean;
      else if (!j && dflt && dflt->h.kind == GQL_AST_BOOLEAN_VALUE)
        truth = dflt->u.boolean;
    } else if (v->h.kind == GQL_AST_BOOLEAN_VALUE) {
      truth = v->u.boolean;
    }
    if (truth >= 0 && (skip ? truth == 1 : truth == 0))
      return true;
  }
  return false;
}

static double or_weight(double w, double dflt) {
  return isnan(w) ? dflt : w;
}

/* The weight @cost gives an input value of named type t (its own, else
 * its type's: scalars and enums may carry one). */
static double input_weight(est *e, double own, uint32_t t) {
  if (!isnan(own))
    return own;
  return t < e->s->ntypes ? e->cs->types[t].weight : NAN;
}

static double score_json(est *e, const gql_json_value *v, double weight,
                         gql_type_ref type);

static double score_value(est *e, const gql_ast_value *v, double weight,
                          gql_type_ref type) {
  if (++e->work > e->cs->max_work) {
    fail(e, GQL_ELIMIT, "The operation is too complex to estimate its cost.");
    return 0;
  }
  const gql_type *t = type.type < e->s->ntypes ? &e->s->types[type.type] : NULL;
  switch (v->h.kind) {
  case GQL_AST_NULL_VALUE:
    return 0;
  case GQL_AST_VARIABLE: {
    const gql_ast_value *dflt;
    const gql_json_value *j = var_value(e, v->u.name, &dflt);
    if (j)
      return score_json(e, j, weight, type);
    return dflt ? score_value(e, dflt, weight, type) : 0;
  }
  case GQL_AST_LIST_VALUE: {
    double c = or_weight(weight, 0);
    for (uint32_t i = 0; i < v->u.list.count; i++)
      c += score_value(e, v->u.list.items[i], weight, type);
    return c;
  }
  case GQL_AST_OBJECT_VALUE: {
    if (!t || t->kind != GQL_TYPE_INPUT_OBJECT)
      return or_weight(weight, 0);
    double c = or_weight(weight, 1);
    const cost_type *ct = &e->cs->types[type.type];
    for (uint32_t i = 0; i < v->u.fields.count; i++) {
      const gql_ast_argument *f = v->u.fields.items[i];
      const gql_input_value *iv =
          gql_type_input_field(t, gql_ast_name_str(f->name));
      if (!iv)
        continue;
      uint32_t k = (uint32_t)(iv - t->input_fields);
      c += score_value(e, f->value,
                       input_weight(e, ct->input_field[k], iv->type.type),
                       iv->type);
    }
    return c;
  }
  default:
    return or_weight(weight, 0);
  }
}

static double score_json(est *e, const gql_json_value *v, double weight,
                         gql_type_ref type) {
  if (++e->work > e->cs->max_work) {
    fail(e, GQL_ELIMIT, "The operation is too complex to estimate its cost.");
    return 0;
  }
  const gql_type *t = type.type < e->s->ntypes ? &e->s->types[type.type] : NULL;
  switch (v->kind) {
  case GQL_JSON_NULL:
    return 0;
  case GQL_JSON_ARRAY: {
    double c = or_weight(weight, 0);
    for (size_t i = 0; i < v->array.count; i++)
      c += score_json(e, &v->array.items[i], weight, type);
    return c;
  }
  case GQL_JSON_OBJECT: {
    if (!t || t->kind != GQL_TYPE_INPUT_OBJECT)
      return or_weight(weight, 0);
    double c = or_weight(weight, 1);
    const cost_type *ct = &e->cs->types[type.type];
    for (size_t i = 0; i < v->object.count; i++) {
      const gql_json_member *m = &v->object.members[i];
      const gql_input_value *iv = gql_type_input_field(t, m->key);
      if (!iv)
        continue;
      uint32_t k = (uint32_t)(iv - t->input_fields);
      c += score_json(e, &m->value,
                      input_weight(e, ct->input_field[k], iv->type.type),
                      iv->type);
    }
    return c;
  }
  default:
    return or_weight(weight, 0);
  }
}

/* A slicing argument's size: an Int, or a list's length, from a literal,
 * a variable or a default, following a dotted path into input objects. */
static bool size_of_json(const gql_json_value *v, gql_str rest, double *out);

static bool size_of_ast(est *e, const gql_ast_value *v, gql_str rest,
                        double *out) {
  if (v->h.kind == GQL_AST_VARIABLE) {
    const gql_ast_value *dflt;
    const gql_json_value *j = var_value(e, v->u.name, &dflt);
    if (j)
      return size_of_json(j, rest, out);
    return dflt && size_of_ast(e, dflt, rest, out);
  }
  if (rest.len) {
    if (v->h.kind != GQL_AST_OBJECT_VALUE)
      return false;
    const char *dot = memchr(rest.ptr, '.', rest.len);
    gql_str head = {rest.ptr, dot ? (size_t)(dot - rest.ptr) : rest.len};
    gql_str tail =
        dot ? (gql_str){dot + 1, rest.len - head.len - 1} : (gql_str){"", 0};
    for (uint32_t i = 0; i < v->u.fields.count; i++)
      if (gql_str_eq(gql_ast_name_str(v->u.fields.items[i]->name), head))
        return size_of_ast(e, v->u.fields.items[i]->value, tail, out);
    return false;
  }
  if (v->h.kind == GQL_AST_INT_VALUE) {
    *out = strtod(v->u.raw.ptr, NULL);
    if (*out < 0)
      *out = 0;
    return true;
  }
  if (v->h.kind == GQL_AST_LIST_VALUE) {
    *out = v->u.list.count;
    return true;
  }
  return false;
}

static bool size_of_json(const gql_json_value *v, gql_str rest, double *out) {
  if (rest.len) {
    if (v->kind != GQL_JSON_OBJECT)
      return false;
    const char *dot = memchr(rest.ptr, '.', rest.len);
    gql_str head = {rest.ptr, dot ? (size_t)(dot - rest.ptr) : rest.len};
    gql_str tail =
        dot ? (gql_str){dot + 1, rest.len - head.len - 1} : (gql_str){"", 0};
    const gql_json_value *m = gql_json_get(v, head);
    return m && size_of_json(m, tail, out);
  }
  if (v->kind == GQL_JSON_NUMBER && v->is_int) {
    *out = v->number.i < 0 ? 0 : (double)v->number.i;
    return true;
  }
  if (v->kind == GQL_JSON_ARRAY) {
    *out = (double)v->array.count;
    return true;
  }
  return false;
}

/* The list sizes @listSize gives one occurrence of a field. */
static int list_dir_for(est *e, const gql_ast_selection *sel,
                        const gql_field *f, const cost_list_size *ls,
                        list_dir *out) {
  *out = (list_dir){.ls = ls};
  if (!ls)
    return 0;
  uint32_t found = 0;
  double best = 0;
  for (uint32_t i = 0; i < ls->nslicing; i++) {
    gql_str path = ls->slicing[i];
    const char *dot = memchr(path.ptr, '.', path.len);
    gql_str head = {path.ptr, dot ? (size_t)(dot - path.ptr) : path.len};
    gql_str tail =
        dot ? (gql_str){dot + 1, path.len - head.len - 1} : (gql_str){"", 0};
    double v;
    bool has = false;
    for (uint32_t k = 0; k < sel->args.count && !has; k++)
      if (gql_str_eq(gql_ast_name_str(sel->args.items[k]->name), head))
        has = size_of_ast(e, sel->args.items[k]->value, tail, &v);
    if (!has) {
      const gql_input_value *def = gql_field_arg(f, head);
      bool given = false;
      for (uint32_t k = 0; k < sel->args.count; k++)
        given |= gql_str_eq(gql_ast_name_str(sel->args.items[k]->name), head);
      if (def && def->default_value && !given)
        has = size_of_ast(e, def->default_value, tail, &v);
    }
    if (has) {
      best = found++ ? fmax(best, v) : v;
    }
  }
  if (ls->nslicing && ls->require_one && found != 1)
    return fail(e, GQL_EINVAL,
                "Exactly one slicing argument is required, but found %u",
                found);
  if (found) {
    out->has_size = true;
    out->size = best;
  } else if (ls->has_assumed) {
    out->has_size = true;
    out->size = ls->assumed;
  }
  return 0;
}

static double score_set(est *e, const gql_ast_selection_set *set,
                        uint32_t parent, const list_dir *ld);

static const gql_ast_fragment *fragment(const gql_document *doc,
                                        gql_ast_name name) {
  for (uint32_t i = doc->definitions.count; i-- > 0;) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind == GQL_AST_FRAGMENT_DEFINITION &&
        gql_str_eq(gql_ast_name_str(((const gql_ast_fragment *)d)->name),
                   gql_ast_name_str(name)))
      return (const gql_ast_fragment *)d;
  }
  return NULL;
}

static double score_field(est *e, const gql_ast_selection *sel, uint32_t parent,
                          const list_dir *up) {
  if (name_is(sel->name, "__typename") || excluded(e, &sel->directives))
    return 0;
  const gql_field *f =
      gql_schema_field_def(e->s, parent, gql_ast_name_str(sel->name));
  if (!f) {
    fail(e, GQL_EINVAL,
         "Field %.*s was found in query, but its type is missing from the "
         "schema.",
         (int)sel->name.len, sel->name.ptr);
    return 0;
  }
  const gql_type *pt = &e->s->types[parent];
  const cost_field *cf = NULL;
  if (pt->fields && f >= pt->fields && f < pt->fields + pt->nfields)
    cf = &e->cs->types[parent].fields[f - pt->fields];
  list_dir ld;
  if (list_dir_for(e, sel, f, cf ? cf->ls : NULL, &ld) < 0)
    return 0;
  gql_type_ref nn = gql_type_ref_nullable(f->type);
  double count = 1;
  if (gql_type_ref_is_list(nn)) {
    bool sized = false;
    if (up && up->has_size && up->ls)
      for (uint32_t i = 0; i < up->ls->nsized && !sized; i++)
        sized = gql_str_eq(up->ls->sized[i], gql_ast_name_str(sel->name));
    count = sized ? up->size : ld.has_size ? ld.size : e->cs->list_size;
  }
  uint32_t named = f->type.type;
  double type_cost = cf && !isnan(cf->weight) ? cf->weight
                     : !isnan(e->cs->types[named].weight)
                         ? e->cs->types[named].weight
                     : gql_schema_is_composite(e->s, named) ? 1
                                                            : 0;
  if (sel->selection_set)
    type_cost += score_set(e, sel->selection_set, named, &ld);
  double args = 0;
  for (uint32_t i = 0; i < sel->args.count; i++) {
    const gql_ast_argument *a = sel->args.items[i];
    const gql_input_value *def = gql_field_arg(f, gql_ast_name_str(a->name));
    if (!def)
      continue;
    double w = cf && cf->args ? cf->args[def - f->args] : NAN;
    args +=
        score_value(e, a->value, input_weight(e, w, def->type.type), def->type);
  }
  return count * type_cost + args;
}

static double score_set(est *e, const gql_ast_selection_set *set,
                        uint32_t parent, const list_dir *ld) {
  if (++e->depth > 512) {
    fail(e, GQL_ELIMIT, "The operation is nested too deeply to estimate.");
    e->depth--;
    return 0;
  }
  double c = 0;
  for (uint32_t i = 0; i < set->selections.count && !e->rc; i++) {
    const gql_ast_selection *sel = set->selections.items[i];
    if (++e->work > e->cs->max_work) {
      fail(e, GQL_ELIMIT, "The operation is too complex to estimate its cost.");
      break;
    }
    if (sel->h.kind == GQL_AST_FIELD) {
      c += score_field(e, sel, parent, ld);
      continue;
    }
    if (excluded(e, &sel->directives))
      continue;
    if (sel->h.kind == GQL_AST_INLINE_FRAGMENT) {
      uint32_t t = parent;
      if (sel->type_condition) {
        t = gql_schema_type_index(e->s,
                                  gql_ast_name_str(sel->type_condition->name));
        if (t == GQL_NO_TYPE) {
          fail(e, GQL_EINVAL, "Unknown type %.*s.",
               (int)sel->type_condition->name.len,
               sel->type_condition->name.ptr);
          break;
        }
      }
      c += score_set(e, sel->selection_set, t, ld);
      continue;
    }
    const gql_ast_fragment *fr = fragment(e->doc, sel->name);
    uint32_t t = fr ? gql_schema_type_index(
                          e->s, gql_ast_name_str(fr->type_condition->name))
                    : GQL_NO_TYPE;
    if (!fr || t == GQL_NO_TYPE) {
      fail(e, GQL_EINVAL,
           "Parsed operation did not have a definition for fragment %.*s",
           (int)sel->name.len, sel->name.ptr);
      break;
    }
    /* A fragment's cost depends on nothing but its type and the list size
     * in force: without one, it is the same everywhere: counted once. */
    bool memo = !ld || !ld->has_size;
    double *m = memo ? gql_ptrmap_get(&e->memo, fr) : NULL;
    if (m) {
      c += *m;
      continue;
    }
    double fc = score_set(e, fr->selection_set, t, ld);
    if (memo && !e->rc) {
      double *keep = gql_arena_alloc(e->a, sizeof *keep);
      if (!keep || !gql_ptrmap_put(&e->memo, e->a, fr, keep)) {
        fail(e, GQL_ENOMEM, "out of memory");
        break;
      }
      *keep = fc;
    }
    c += fc;
  }
  e->depth--;
  return c;
}

int gql_cost_estimate(const gql_cost_schema *cs, const gql_document *doc,
                      const gql_ast_operation *op,
                      const gql_json_value *variables, gql_arena *scratch,
                      double *cost, const char **error) {
  *cost = 0;
  *error = NULL;
  est e = {.cs = cs,
           .s = cs->s,
           .doc = doc,
           .op = op,
           .vars = variables && variables->kind == GQL_JSON_OBJECT ? variables
                                                                   : NULL,
           .a = scratch};
  uint32_t root = gql_schema_root_type(cs->s, op->operation);
  if (root == GQL_NO_TYPE) {
    fail(&e, GQL_EINVAL,
         "Cannot cost %s operation because the schema does not support this "
         "root type",
         op->operation == GQL_OP_MUTATION ? "mutation" : "subscription");
    *error = e.error;
    return e.rc;
  }
  double c = op->operation == GQL_OP_MUTATION ? 10 : 0;
  c += score_set(&e, op->selection_set, root, NULL);
  if (e.rc) {
    *error = e.error;
    return e.rc;
  }
  *cost = c;
  return 0;
}

/* ------------------------------------------------------------ responses */

void gql_cost_too_expensive_json(double estimated, double max, gql_buf *out) {
  gql_buf_puts(out, "{\"errors\":[{\"message\":\"query estimated cost ");
  gql_json_write_double(out, estimated);
  gql_buf_puts(out, " exceeded configured maximum ");
  gql_json_write_double(out, max);
  gql_buf_puts(out, "\",\"extensions\":{\"cost.estimated\":");
  gql_json_write_double(out, estimated);
  gql_buf_puts(out, ",\"cost.max\":");
  gql_json_write_double(out, max);
  gql_buf_puts(out, ",\"code\":\"COST_ESTIMATED_TOO_EXPENSIVE\"}}]}");
}

void gql_cost_failure_json(const char *message, gql_buf *out) {
  /* Apollo Router words it "Query could not be parsed: ...". */
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "Query could not be parsed: ");
  gql_buf_puts(&b, message ? message : "");
  gql_buf_puts(out, "{\"errors\":[{\"message\":");
  gql_json_write_string(out,
                        b.failed ? gql_cstr("") : gql_str_from(b.data, b.len));
  gql_buf_free(&b);
  gql_buf_puts(out, ",\"extensions\":{\"code\":\"COST_QUERY_PARSE_FAILURE\"}}"
                    "]}");
}
