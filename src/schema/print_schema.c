/* graphql-js 16 printSchema, byte for byte. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- strings */

bool gql_is_printable_as_block_string(gql_str s) {
  if (s.len == 0)
    return true;
  bool empty_line = true, has_indent = false, common_indent = true,
       seen_non_empty = false;
  for (size_t i = 0; i < s.len; i++) {
    unsigned char c = (unsigned char)s.ptr[i];
    if (c == '\r' || (c < 0x20 && c != '\n' && c != '\t'))
      return false;
    if (c == '\n') {
      if (empty_line && !seen_non_empty)
        return false;
      seen_non_empty = true;
      empty_line = true;
      has_indent = false;
    } else if (c == '\t' || c == ' ') {
      has_indent = has_indent || empty_line;
    } else {
      common_indent = common_indent && has_indent;
      empty_line = false;
    }
  }
  if (empty_line)
    return false;
  if (common_indent && seen_non_empty)
    return false;
  return true;
}

void gql_schema_print_description_string(gql_buf *out, gql_str s) {
  if (gql_is_printable_as_block_string(s))
    gql_print_block_string(out, s);
  else
    gql_print_string(out, s);
}

/* ---- numbers: GraphQL number literals are JSON numbers, and graphql-js
 * prints a coerced number with Number#toString */

static void print_js_number(gql_buf *out, double d) {
  char buf[32];
  gql_buf_append(out, buf, gql_dtoa(d, buf));
}

static bool raw_to_double(gql_str raw, double *d) {
  *d = gql_strtod(raw.ptr, raw.len);
  return true;
}

/* ---- default values: astFromValue(valueFromAST(v, t), t) */

static bool coerce_print(const gql_schema *s, gql_type_ref t,
                         const gql_ast_value *v, gql_buf *out, int depth);

static bool print_leaf(const gql_schema *s, uint32_t tid,
                       const gql_ast_value *v, gql_buf *out) {
  const gql_type *t = &s->types[tid];
  int k = v->h.kind;
  if (t->kind == GQL_TYPE_ENUM) {
    if (k != GQL_AST_ENUM_VALUE || !gql_type_enum_value(t, v->u.raw))
      return false;
    gql_buf_put_str(out, v->u.raw);
    return true;
  }
  double d;
  if (tid == s->t_int) {
    if (k != GQL_AST_INT_VALUE || !raw_to_double(v->u.raw, &d) ||
        d > 2147483647.0 || d < -2147483648.0)
      return false;
    print_js_number(out, d);
    return true;
  }
  if (tid == s->t_float) {
    if ((k != GQL_AST_INT_VALUE && k != GQL_AST_FLOAT_VALUE) ||
        !raw_to_double(v->u.raw, &d) || !isfinite(d))
      return false;
    print_js_number(out, d);
    return true;
  }
  if (tid == s->t_string) {
    if (k != GQL_AST_STRING_VALUE)
      return false;
    gql_print_string(out, v->u.string.value);
    return true;
  }
  if (tid == s->t_boolean) {
    if (k != GQL_AST_BOOLEAN_VALUE)
      return false;
    gql_buf_puts(out, v->u.boolean ? "true" : "false");
    return true;
  }
  if (tid == s->t_id) {
    if (k == GQL_AST_INT_VALUE) {
      gql_buf_put_str(out, v->u.raw);
      return true;
    }
    if (k != GQL_AST_STRING_VALUE)
      return false;
    gql_str sv = v->u.string.value;
    bool intlike = sv.len > 0;
    size_t i = sv.len && sv.ptr[0] == '-' ? 1 : 0;
    if (i == sv.len || (sv.ptr[i] == '0' && sv.len > i + 1))
      intlike = false;
    for (; i < sv.len; i++)
      intlike = intlike && sv.ptr[i] >= '0' && sv.ptr[i] <= '9';
    if (intlike)
      gql_buf_put_str(out, sv);
    else
      gql_print_string(out, sv);
    return true;
  }
  /* a custom scalar: valueFromASTUntyped, then serialize as identity */
  switch (k) {
  case GQL_AST_INT_VALUE:
  case GQL_AST_FLOAT_VALUE:
    if (!raw_to_double(v->u.raw, &d) || !isfinite(d))
      return false;
    print_js_number(out, d);
    return true;
  case GQL_AST_STRING_VALUE:
    gql_print_string(out, v->u.string.value);
    return true;
  case GQL_AST_ENUM_VALUE:
    gql_print_string(out, v->u.raw);
    return true;
  case GQL_AST_BOOLEAN_VALUE:
    gql_buf_puts(out, v->u.boolean ? "true" : "false");
    return true;
  default:
    return false; /* graphql-js throws: cannot convert value to AST */
  }
}

static bool print_object(const gql_schema *s, const gql_type *t,
                         const gql_ast_value *v, gql_buf *out, int depth) {
  if (v->h.kind != GQL_AST_OBJECT_VALUE)
    return false;
  gql_buf_putc(out, '{');
  uint32_t printed = 0, present = 0;
  bool null_present = false;
  for (uint32_t i = 0; i < t->ninput_fields; i++) {
    const gql_input_value *f = &t->input_fields[i];
    const gql_ast_argument *fv = NULL;
    for (uint32_t j = 0; j < v->u.fields.count && !fv; j++)
      if (gql_str_eq(gql_ast_name_str(v->u.fields.items[j]->name), f->name))
        fv = v->u.fields.items[j];
    size_t mark = out->len;
    if (printed)
      gql_buf_puts(out, ", ");
    gql_buf_put_str(out, f->name);
    gql_buf_puts(out, ": ");
    if (fv) {
      if (!coerce_print(s, f->type, fv->value, out, depth + 1))
        return false;
      present++;
      null_present |= fv->value->h.kind == GQL_AST_NULL_VALUE;
      printed++;
    } else if (f->default_value) {
      if (!coerce_print(s, f->type, f->default_value, out, depth + 1))
        out->len = mark; /* an invalid default is no default */
      else {
        present++;
        printed++;
      }
    } else {
      out->len = mark;
      if (gql_type_ref_is_non_null(f->type))
        return false;
    }
  }
  if (t->one_of && (present != 1 || null_present))
    return false;
  gql_buf_putc(out, '}');
  return true;
}

static bool coerce_print(const gql_schema *s, gql_type_ref t,
                         const gql_ast_value *v, gql_buf *out, int depth) {
  if (depth > 1024 || v->h.kind == GQL_AST_VARIABLE)
    return false;
  if (gql_type_ref_is_non_null(t)) {
    if (v->h.kind == GQL_AST_NULL_VALUE)
      return false;
    return coerce_print(s, gql_type_ref_unwrap(t), v, out, depth);
  }
  if (v->h.kind == GQL_AST_NULL_VALUE) {
    gql_buf_puts(out, "null");
    return true;
  }
  if (gql_type_ref_is_list(t)) {
    gql_type_ref item = gql_type_ref_unwrap(t);
    gql_buf_putc(out, '[');
    if (v->h.kind != GQL_AST_LIST_VALUE) {
      if (!coerce_print(s, item, v, out, depth + 1))
        return false;
    } else {
      for (uint32_t i = 0; i < v->u.list.count; i++) {
        if (i)
          gql_buf_puts(out, ", ");
        if (!coerce_print(s, item, v->u.list.items[i], out, depth + 1))
          return false;
      }
    }
    gql_buf_putc(out, ']');
    return true;
  }
  const gql_type *nt = &s->types[t.type];
  if (nt->kind == GQL_TYPE_INPUT_OBJECT)
    return print_object(s, nt, v, out, depth);
  if (nt->kind == GQL_TYPE_SCALAR || nt->kind == GQL_TYPE_ENUM)
    return print_leaf(s, t.type, v, out);
  return false;
}

bool gql_schema_print_default(const gql_schema *s, gql_type_ref t,
                              const gql_ast_value *v, gql_buf *out) {
  size_t mark = out->len;
  if (coerce_print(s, t, v, out, 0))
    return true;
  out->len = mark;
  return false;
}

/* ---- the schema */

static void print_description(gql_buf *out, gql_str d, const char *indent,
                              bool first) {
  if (!d.ptr)
    return;
  if (*indent && !first) {
    gql_buf_putc(out, '\n');
    gql_buf_puts(out, indent);
  } else {
    gql_buf_puts(out, indent);
  }
  gql_buf tmp;
  gql_buf_init(&tmp, out->alc);
  gql_schema_print_description_string(&tmp, d);
  for (size_t i = 0; i < tmp.len; i++) {
    gql_buf_putc(out, tmp.data[i]);
    if (tmp.data[i] == '\n')
      gql_buf_puts(out, indent);
  }
  gql_buf_free(&tmp);
  gql_buf_putc(out, '\n');
}

static void print_deprecated(gql_buf *out, gql_str reason) {
  if (!reason.ptr)
    return;
  if (gql_str_eq_cstr(reason, "No longer supported")) {
    gql_buf_puts(out, " @deprecated");
    return;
  }
  gql_buf_puts(out, " @deprecated(reason: ");
  gql_print_string(out, reason);
  gql_buf_putc(out, ')');
}

static void print_input_value(const gql_schema *s, gql_buf *out,
                              const gql_input_value *v) {
  gql_buf_put_str(out, v->name);
  gql_buf_puts(out, ": ");
  gql_type_ref_print(s, v->type, out);
  if (v->default_value) {
    size_t mark = out->len;
    gql_buf_puts(out, " = ");
    if (!gql_schema_print_default(s, v->type, v->default_value, out))
      out->len = mark;
  }
  print_deprecated(out, v->deprecation_reason);
}

static void print_args(const gql_schema *s, gql_buf *out,
                       const gql_input_value *args, uint32_t n,
                       const char *indent) {
  if (!n)
    return;
  bool any_desc = false;
  for (uint32_t i = 0; i < n; i++)
    any_desc |= args[i].description.ptr != NULL;
  if (!any_desc) {
    gql_buf_putc(out, '(');
    for (uint32_t i = 0; i < n; i++) {
      if (i)
        gql_buf_puts(out, ", ");
      print_input_value(s, out, &args[i]);
    }
    gql_buf_putc(out, ')');
    return;
  }
  char ind2[64];
  snprintf(ind2, sizeof ind2, "  %s", indent);
  gql_buf_puts(out, "(\n");
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      gql_buf_putc(out, '\n');
    print_description(out, args[i].description, ind2, i == 0);
    gql_buf_puts(out, ind2);
    print_input_value(s, out, &args[i]);
  }
  gql_buf_putc(out, '\n');
  gql_buf_puts(out, indent);
  gql_buf_putc(out, ')');
}

static void print_fields(const gql_schema *s, gql_buf *out, const gql_type *t) {
  if (!t->nfields)
    return;
  gql_buf_puts(out, " {\n");
  for (uint32_t i = 0; i < t->nfields; i++) {
    const gql_field *f = &t->fields[i];
    if (i)
      gql_buf_putc(out, '\n');
    print_description(out, f->description, "  ", i == 0);
    gql_buf_puts(out, "  ");
    gql_buf_put_str(out, f->name);
    print_args(s, out, f->args, f->nargs, "  ");
    gql_buf_puts(out, ": ");
    gql_type_ref_print(s, f->type, out);
    print_deprecated(out, f->deprecation_reason);
  }
  gql_buf_puts(out, "\n}");
}

static void print_interfaces(const gql_schema *s, gql_buf *out,
                             const gql_type *t) {
  for (uint32_t i = 0; i < t->ninterfaces; i++) {
    gql_buf_puts(out, i ? " & " : " implements ");
    gql_buf_put_str(out, s->types[t->interfaces[i]].name);
  }
}

static void print_type(const gql_schema *s, gql_buf *out, const gql_type *t) {
  print_description(out, t->description, "", true);
  switch (t->kind) {
  case GQL_TYPE_SCALAR:
    gql_buf_puts(out, "scalar ");
    gql_buf_put_str(out, t->name);
    if (t->specified_by_url.ptr) {
      gql_buf_puts(out, " @specifiedBy(url: ");
      gql_print_string(out, t->specified_by_url);
      gql_buf_putc(out, ')');
    }
    break;
  case GQL_TYPE_OBJECT:
  case GQL_TYPE_INTERFACE:
    gql_buf_puts(out, t->kind == GQL_TYPE_OBJECT ? "type " : "interface ");
    gql_buf_put_str(out, t->name);
    print_interfaces(s, out, t);
    print_fields(s, out, t);
    break;
  case GQL_TYPE_UNION:
    gql_buf_puts(out, "union ");
    gql_buf_put_str(out, t->name);
    for (uint32_t i = 0; i < t->nmembers; i++) {
      gql_buf_puts(out, i ? " | " : " = ");
      gql_buf_put_str(out, s->types[t->members[i]].name);
    }
    break;
  case GQL_TYPE_ENUM:
    gql_buf_puts(out, "enum ");
    gql_buf_put_str(out, t->name);
    if (t->nvalues) {
      gql_buf_puts(out, " {\n");
      for (uint32_t i = 0; i < t->nvalues; i++) {
        if (i)
          gql_buf_putc(out, '\n');
        print_description(out, t->values[i].description, "  ", i == 0);
        gql_buf_puts(out, "  ");
        gql_buf_put_str(out, t->values[i].name);
        print_deprecated(out, t->values[i].deprecation_reason);
      }
      gql_buf_puts(out, "\n}");
    }
    break;
  case GQL_TYPE_INPUT_OBJECT:
    gql_buf_puts(out, "input ");
    gql_buf_put_str(out, t->name);
    if (t->one_of)
      gql_buf_puts(out, " @oneOf");
    if (t->ninput_fields) {
      gql_buf_puts(out, " {\n");
      for (uint32_t i = 0; i < t->ninput_fields; i++) {
        if (i)
          gql_buf_putc(out, '\n');
        print_description(out, t->input_fields[i].description, "  ", i == 0);
        gql_buf_puts(out, "  ");
        print_input_value(s, out, &t->input_fields[i]);
      }
      gql_buf_puts(out, "\n}");
    }
    break;
  }
}

static bool common_names(const gql_schema *s) {
  if (s->query != GQL_NO_TYPE &&
      !gql_str_eq_cstr(s->types[s->query].name, "Query"))
    return false;
  if (s->mutation != GQL_NO_TYPE &&
      !gql_str_eq_cstr(s->types[s->mutation].name, "Mutation"))
    return false;
  if (s->subscription != GQL_NO_TYPE &&
      !gql_str_eq_cstr(s->types[s->subscription].name, "Subscription"))
    return false;
  return true;
}

static void separate(gql_buf *out, bool *first) {
  if (!*first)
    gql_buf_puts(out, "\n\n");
  *first = false;
}

void gql_schema_print_sdl(const gql_schema *s, gql_buf *out) {
  bool first = true;
  if (s->description.ptr || !common_names(s)) {
    separate(out, &first);
    print_description(out, s->description, "", true);
    gql_buf_puts(out, "schema {\n");
    static const char *const ops[] = {"query", "mutation", "subscription"};
    uint32_t roots[] = {s->query, s->mutation, s->subscription};
    for (int i = 0; i < 3; i++)
      if (roots[i] != GQL_NO_TYPE)
        gql_buf_printf(out, "  %s: %s\n", ops[i], s->types[roots[i]].name.ptr);
    gql_buf_putc(out, '}');
  }
  for (uint32_t i = 0; i < s->ndirectives; i++) {
    const gql_directive *d = &s->directives[i];
    if (gql_schema_is_std_directive_name(d->name))
      continue;
    separate(out, &first);
    print_description(out, d->description, "", true);
    gql_buf_puts(out, "directive @");
    gql_buf_put_str(out, d->name);
    print_args(s, out, d->args, d->nargs, "");
    if (d->repeatable)
      gql_buf_puts(out, " repeatable");
    gql_buf_puts(out, " on ");
    for (uint32_t j = 0; j < d->nlocations; j++) {
      if (j)
        gql_buf_puts(out, " | ");
      gql_buf_puts(out, gql_directive_location_name(d->locations[j]));
    }
  }
  for (uint32_t i = 0; i < s->ntypes; i++) {
    const gql_type *t = &s->types[i];
    if (gql_schema_is_std_scalar_name(t->name) ||
        gql_schema_is_introspection_name(t->name))
      continue;
    separate(out, &first);
    print_type(s, out, t);
  }
}
