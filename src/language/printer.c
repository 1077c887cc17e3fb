/*
 * The printer: graphql-js 16's print() byte for byte.
 *
 * graphql-js builds the output bottom-up from strings with join / wrap /
 * block / indent, where indent() puts two spaces after every newline of the
 * indented text. Here the output is streamed into one buffer instead, with
 * an indentation level: every newline is written by nl(), which appends the
 * spaces of all enclosing indent() calls at once. That gives the same bytes
 * without building a string per node (which would cost depth x size).
 *
 * The two places where graphql-js inspects a child's text are handled by
 * printing the child inline first and looking at what was written:
 *  - a field's arguments go on separate lines when the one-line form would
 *    be longer than MAX_LINE_LENGTH (measured in UTF-16 units, as in JS);
 *  - argument definitions and variable definitions go on separate lines
 *    when any of them contains a newline (hasMultilineItems).
 * When the inline form is rejected the buffer is truncated back and the
 * child is printed again in the other form. Neither check can nest inside
 * the other (arguments hold only values), so nothing is printed more than
 * twice.
 */
#include "ast.h"

enum { MAX_LINE_LENGTH = 80, BLOCK_STRING_LINE_LENGTH = 70 };

typedef struct printer {
  gql_buf *out;
  uint32_t indent; /* enclosing indent() calls: two spaces each */
} printer;

static void print_node(printer *p, const gql_ast_node *node);
static void print_value(printer *p, const gql_ast_value *v);

/* ---- output helpers */

static void put(printer *p, const char *s) {
  gql_buf_puts(p->out, s);
}

static void putc_(printer *p, char c) {
  gql_buf_putc(p->out, c);
}

static void put_name(printer *p, gql_ast_name n) {
  gql_buf_append(p->out, n.ptr, n.len);
}

/* A newline as it reads after every enclosing indent(). */
static void nl(printer *p) {
  static const char spaces[] = "                                "; /* 32 */
  gql_buf_putc(p->out, '\n');
  size_t n = (size_t)p->indent * 2;
  while (n) {
    size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
    gql_buf_append(p->out, spaces, k);
    n -= k;
  }
}

/* Length of s[0..n) in UTF-16 code units, as JavaScript's String#length:
 * one per code point, two for code points above U+FFFF. */
static size_t utf16_length(const char *s, size_t n) {
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c & 0xC0) != 0x80)
      len += c >= 0xF0 ? 2 : 1;
  }
  return len;
}

static bool has_newline(const gql_buf *b, size_t from) {
  return b->len > from && memchr(b->data + from, '\n', b->len - from) != NULL;
}

static size_t count_newlines(const gql_buf *b, size_t from) {
  size_t n = 0;
  for (size_t i = from; i < b->len; i++)
    n += b->data[i] == '\n';
  return n;
}

static void truncate_to(printer *p, size_t len) {
  if (p->out->len > len)
    p->out->len = len;
}

/* ---- strings */

/* graphql-js printString: escapes C0 and C1 controls, DEL, '"' and '\'. */
static void print_string(printer *p, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  gql_buf *out = p->out;
  gql_buf_putc(out, '"');
  size_t run = 0; /* start of the pending unescaped run */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    unsigned code;
    size_t width = 1;
    if (c < 0x20 || c == '"' || c == '\\' || c == 0x7F) {
      code = c;
    } else if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
               (unsigned char)s[i + 1] <= 0x9F) {
      code = (unsigned char)s[i + 1]; /* U+0080..U+009F */
      width = 2;
    } else {
      continue;
    }
    gql_buf_append(out, s + run, i - run);
    switch (code) {
    case '\b':
      gql_buf_append(out, "\\b", 2);
      break;
    case '\t':
      gql_buf_append(out, "\\t", 2);
      break;
    case '\n':
      gql_buf_append(out, "\\n", 2);
      break;
    case '\f':
      gql_buf_append(out, "\\f", 2);
      break;
    case '\r':
      gql_buf_append(out, "\\r", 2);
      break;
    case '"':
      gql_buf_append(out, "\\\"", 2);
      break;
    case '\\':
      gql_buf_append(out, "\\\\", 2);
      break;
    default: {
      char esc[6] = {'\\', 'u', '0', '0', hex[code >> 4], hex[code & 15]};
      gql_buf_append(out, esc, sizeof esc);
    }
    }
    i += width - 1;
    run = i + 1;
  }
  gql_buf_append(out, s + run, n - run);
  gql_buf_putc(out, '"');
}

static bool is_white_space(char c) {
  return c == ' ' || c == '\t';
}

/* graphql-js 16 printBlockString (without the `minimize` option). The value
 * is written with every `"""` escaped as `\"""`; leading and trailing
 * newlines are added when graphql-js would add them. */
static void print_block_string(printer *p, const char *s, size_t n) {
  /* Where the left-to-right replacement of `"""` last ended. */
  size_t last_escape_end = 0;
  bool escaped_any = false;
  for (size_t i = 0; i + 3 <= n;) {
    if (s[i] == '"' && s[i + 1] == '"' && s[i + 2] == '"') {
      escaped_any = true;
      i += 3;
      last_escape_end = i;
    } else {
      i++;
    }
  }
  /* Lines split on \r\n, \n or \r; escaping never touches line starts in
   * a way that changes whether they begin with white space. */
  size_t lines = 1;
  bool later_lines_indented = true;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '\n' && s[i] != '\r')
      continue;
    if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
      i++;
    lines++;
    if (i + 1 < n && s[i + 1] != '\n' && s[i + 1] != '\r' &&
        !is_white_space(s[i + 1]))
      later_lines_indented = false;
  }
  bool single_line = lines == 1;
  bool force_leading_newline = lines > 1 && later_lines_indented;
  bool trailing_triple_quotes = escaped_any && last_escape_end == n;
  bool trailing_quote = n > 0 && s[n - 1] == '"' && !trailing_triple_quotes;
  bool trailing_slash = n > 0 && s[n - 1] == '\\';
  bool force_trailing_newline = trailing_quote || trailing_slash;
  bool multiple_lines =
      !single_line || utf16_length(s, n) > BLOCK_STRING_LINE_LENGTH ||
      force_trailing_newline || force_leading_newline || trailing_triple_quotes;
  bool skip_leading_newline = single_line && n > 0 && is_white_space(s[0]);

  put(p, "\"\"\"");
  if ((multiple_lines && !skip_leading_newline) || force_leading_newline)
    nl(p);
  size_t run = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] == '\n') {
      gql_buf_append(p->out, s + run, i - run);
      nl(p);
      run = ++i;
    } else if (i + 3 <= n && s[i] == '"' && s[i + 1] == '"' &&
               s[i + 2] == '"') {
      gql_buf_append(p->out, s + run, i - run);
      put(p, "\\\"\"\"");
      i += 3;
      run = i;
    } else {
      i++;
    }
  }
  gql_buf_append(p->out, s + run, n - run);
  if (multiple_lines || force_trailing_newline)
    nl(p);
  put(p, "\"\"\"");
}

/* ---- values and types */

static void print_arguments_inline(printer *p, const gql_ast_arguments *args) {
  for (uint32_t i = 0; i < args->count; i++) {
    if (i)
      put(p, ", ");
    print_node(p, &args->items[i]->h);
  }
}

static void print_value(printer *p, const gql_ast_value *v) {
  switch (v->h.kind) {
  case GQL_AST_VARIABLE:
    putc_(p, '$');
    put_name(p, v->u.name);
    break;
  case GQL_AST_INT_VALUE:
  case GQL_AST_FLOAT_VALUE:
  case GQL_AST_ENUM_VALUE:
    gql_buf_put_str(p->out, v->u.raw);
    break;
  case GQL_AST_STRING_VALUE:
    if (v->u.string.block)
      print_block_string(p, v->u.string.value.ptr, v->u.string.value.len);
    else
      print_string(p, v->u.string.value.ptr, v->u.string.value.len);
    break;
  case GQL_AST_BOOLEAN_VALUE:
    put(p, v->u.boolean ? "true" : "false");
    break;
  case GQL_AST_NULL_VALUE:
    put(p, "null");
    break;
  case GQL_AST_LIST_VALUE:
    putc_(p, '[');
    for (uint32_t i = 0; i < v->u.list.count; i++) {
      if (i)
        put(p, ", ");
      print_value(p, v->u.list.items[i]);
    }
    putc_(p, ']');
    break;
  case GQL_AST_OBJECT_VALUE:
    putc_(p, '{');
    print_arguments_inline(p, &v->u.fields);
    putc_(p, '}');
    break;
  default:
    assert(!"not a value node");
  }
}

static void print_type(printer *p, const gql_ast_type *t) {
  switch (t->h.kind) {
  case GQL_AST_NAMED_TYPE:
    put_name(p, t->name);
    break;
  case GQL_AST_LIST_TYPE:
    putc_(p, '[');
    print_type(p, t->of);
    putc_(p, ']');
    break;
  case GQL_AST_NON_NULL_TYPE:
    print_type(p, t->of);
    putc_(p, '!');
    break;
  default:
    assert(!"not a type node");
  }
}

/* join(directives, ' ') */
static void print_directives(printer *p, const gql_ast_directives *d) {
  for (uint32_t i = 0; i < d->count; i++) {
    if (i)
      putc_(p, ' ');
    const gql_ast_directive *dir = d->items[i];
    putc_(p, '@');
    put_name(p, dir->name);
    if (dir->args.count) {
      putc_(p, '(');
      print_arguments_inline(p, &dir->args);
      putc_(p, ')');
    }
  }
}

/* wrap(' ', join(directives, ' ')) */
static void print_sp_directives(printer *p, const gql_ast_directives *d) {
  if (d->count) {
    putc_(p, ' ');
    print_directives(p, d);
  }
}

/* wrap('', description, '\n') */
static void print_description(printer *p, const gql_ast_value *desc) {
  if (desc) {
    print_value(p, desc);
    nl(p);
  }
}

/* block(items): `{`, each item on its own line one level deeper, `}`. The
 * caller checks that there are items (block of nothing prints nothing). */
static void block_open(printer *p) {
  putc_(p, '{');
  p->indent++;
  nl(p);
}

static void block_close(printer *p) {
  p->indent--;
  nl(p);
  putc_(p, '}');
}

/* ---- executable definitions */

static void print_selection_set(printer *p, const gql_ast_selection_set *set) {
  if (!set || !set->selections.count)
    return;
  block_open(p);
  for (uint32_t i = 0; i < set->selections.count; i++) {
    if (i)
      nl(p);
    print_node(p, &set->selections.items[i]->h);
  }
  block_close(p);
}

static bool selection_set_empty(const gql_ast_selection_set *set) {
  return !set || !set->selections.count;
}

/* graphql-js: `argsLine.length > MAX_LINE_LENGTH`, where argsLine is the
 * text written since `start` as it would read without the enclosing
 * indentation (each newline written since `args_start` carried 2 * indent
 * spaces). */
static bool line_too_long(const printer *p, size_t start, size_t args_start) {
  const gql_buf *b = p->out;
  if (b->failed)
    return false;
  size_t length = utf16_length(b->data + start, b->len - start);
  length -= count_newlines(b, args_start) * 2 * p->indent;
  return length > MAX_LINE_LENGTH;
}

/* graphql-js Field: the arguments go one per line when `alias: name(args)`
 * on one line would be longer than MAX_LINE_LENGTH. */
static void print_field(printer *p, const gql_ast_selection *f) {
  size_t start = p->out->len;
  if (f->alias.len) {
    put_name(p, f->alias);
    put(p, ": ");
  }
  put_name(p, f->name);
  if (f->args.count) {
    size_t args_start = p->out->len;
    putc_(p, '(');
    print_arguments_inline(p, &f->args);
    putc_(p, ')');
    if (line_too_long(p, start, args_start)) {
      truncate_to(p, args_start);
      putc_(p, '(');
      p->indent++;
      for (uint32_t i = 0; i < f->args.count; i++) {
        nl(p);
        print_node(p, &f->args.items[i]->h);
      }
      p->indent--;
      nl(p);
      putc_(p, ')');
    }
  }
  print_sp_directives(p, &f->directives);
  if (!selection_set_empty(f->selection_set)) {
    putc_(p, ' ');
    print_selection_set(p, f->selection_set);
  }
}

static void print_inline_fragment(printer *p, const gql_ast_selection *f) {
  put(p, "...");
  if (f->type_condition) {
    put(p, " on ");
    print_type(p, f->type_condition);
  }
  print_sp_directives(p, &f->directives);
  if (!selection_set_empty(f->selection_set)) {
    putc_(p, ' ');
    print_selection_set(p, f->selection_set);
  }
}

static void print_variable_definition(printer *p,
                                      const gql_ast_variable_definition *v) {
  print_description(p, v->description);
  print_value(p, v->variable);
  put(p, ": ");
  print_type(p, v->type);
  if (v->default_value) {
    put(p, " = ");
    print_value(p, v->default_value);
  }
  print_sp_directives(p, &v->directives);
}

/* Variable definitions: `($a: T, $b: U)`, or one per line (not indented,
 * as graphql-js does) when any of them spans several lines. */
static void print_variable_definitions(printer *p,
                                       const gql_ast_variable_definitions *vs) {
  if (!vs->count)
    return;
  size_t start = p->out->len;
  putc_(p, '(');
  for (uint32_t i = 0; i < vs->count; i++) {
    if (i)
      put(p, ", ");
    print_variable_definition(p, vs->items[i]);
  }
  putc_(p, ')');
  if (!has_newline(p->out, start))
    return;
  truncate_to(p, start);
  putc_(p, '(');
  for (uint32_t i = 0; i < vs->count; i++) {
    nl(p);
    print_variable_definition(p, vs->items[i]);
  }
  nl(p);
  putc_(p, ')');
}

static const char *operation_keyword(gql_operation_type op) {
  switch (op) {
  case GQL_OP_MUTATION:
    return "mutation";
  case GQL_OP_SUBSCRIPTION:
    return "subscription";
  default:
    return "query";
  }
}

/* An anonymous query without description, variables or directives prints
 * as its selection set alone (graphql-js: the prefix is just "query"). */
static void print_operation(printer *p, const gql_ast_operation *op) {
  bool shorthand = !op->description && op->operation == GQL_OP_QUERY &&
                   !op->name.len && !op->variables.count &&
                   !op->directives.count;
  if (!shorthand) {
    print_description(p, op->description);
    put(p, operation_keyword(op->operation));
    if (op->name.len || op->variables.count)
      putc_(p, ' ');
    put_name(p, op->name);
    print_variable_definitions(p, &op->variables);
    print_sp_directives(p, &op->directives);
    putc_(p, ' ');
  }
  print_selection_set(p, op->selection_set);
}

static void print_fragment(printer *p, const gql_ast_fragment *f) {
  print_description(p, f->description);
  put(p, "fragment ");
  put_name(p, f->name);
  put(p, " on ");
  print_type(p, f->type_condition);
  putc_(p, ' ');
  if (f->directives.count) {
    print_directives(p, &f->directives);
    putc_(p, ' ');
  }
  print_selection_set(p, f->selection_set);
}

/* ---- type system definitions */

static void print_input_value_def(printer *p,
                                  const gql_ast_input_value_def *v) {
  print_description(p, v->description);
  put_name(p, v->name);
  put(p, ": ");
  print_type(p, v->type);
  if (v->default_value) {
    put(p, " = ");
    print_value(p, v->default_value);
  }
  print_sp_directives(p, &v->directives);
}

/* Argument definitions of a field or directive: `(a: T, b: U)`, or one per
 * line, indented, when any of them spans several lines. */
static void print_argument_defs(printer *p,
                                const gql_ast_input_value_defs *as) {
  if (!as->count)
    return;
  size_t start = p->out->len;
  putc_(p, '(');
  for (uint32_t i = 0; i < as->count; i++) {
    if (i)
      put(p, ", ");
    print_input_value_def(p, as->items[i]);
  }
  putc_(p, ')');
  if (!has_newline(p->out, start))
    return;
  truncate_to(p, start);
  putc_(p, '(');
  p->indent++;
  for (uint32_t i = 0; i < as->count; i++) {
    nl(p);
    print_input_value_def(p, as->items[i]);
  }
  p->indent--;
  nl(p);
  putc_(p, ')');
}

static void print_field_def(printer *p, const gql_ast_field_def *f) {
  print_description(p, f->description);
  put_name(p, f->name);
  print_argument_defs(p, &f->args);
  put(p, ": ");
  print_type(p, f->type);
  print_sp_directives(p, &f->directives);
}

static void print_enum_value_def(printer *p, const gql_ast_enum_value_def *v) {
  print_description(p, v->description);
  put_name(p, v->name);
  print_sp_directives(p, &v->directives);
}

static void print_named_types(printer *p, const gql_ast_type *const *types,
                              uint32_t count, const char *sep) {
  for (uint32_t i = 0; i < count; i++) {
    if (i)
      put(p, sep);
    print_type(p, types[i]);
  }
}

static const char *type_def_keyword(int kind) {
  switch (kind) {
  case GQL_AST_SCALAR_TYPE_DEFINITION:
    return "scalar";
  case GQL_AST_OBJECT_TYPE_DEFINITION:
    return "type";
  case GQL_AST_INTERFACE_TYPE_DEFINITION:
    return "interface";
  case GQL_AST_UNION_TYPE_DEFINITION:
    return "union";
  case GQL_AST_ENUM_TYPE_DEFINITION:
    return "enum";
  case GQL_AST_INPUT_OBJECT_TYPE_DEFINITION:
    return "input";
  case GQL_AST_SCALAR_TYPE_EXTENSION:
    return "extend scalar";
  case GQL_AST_OBJECT_TYPE_EXTENSION:
    return "extend type";
  case GQL_AST_INTERFACE_TYPE_EXTENSION:
    return "extend interface";
  case GQL_AST_UNION_TYPE_EXTENSION:
    return "extend union";
  case GQL_AST_ENUM_TYPE_EXTENSION:
    return "extend enum";
  case GQL_AST_INPUT_OBJECT_TYPE_EXTENSION:
    return "extend input";
  default:
    return "";
  }
}

/* The definition kind an extension kind extends. */
static int definition_kind(int extension_kind) {
  switch (extension_kind) {
  case GQL_AST_OBJECT_TYPE_EXTENSION:
    return GQL_AST_OBJECT_TYPE_DEFINITION;
  case GQL_AST_INTERFACE_TYPE_EXTENSION:
    return GQL_AST_INTERFACE_TYPE_DEFINITION;
  case GQL_AST_UNION_TYPE_EXTENSION:
    return GQL_AST_UNION_TYPE_DEFINITION;
  case GQL_AST_ENUM_TYPE_EXTENSION:
    return GQL_AST_ENUM_TYPE_DEFINITION;
  case GQL_AST_INPUT_OBJECT_TYPE_EXTENSION:
    return GQL_AST_INPUT_OBJECT_TYPE_DEFINITION;
  default:
    return GQL_AST_SCALAR_TYPE_DEFINITION;
  }
}

/* Every type definition and extension: description, keyword, name, then
 * the parts that apply to the kind, joined by spaces. */
static void print_type_def(printer *p, const gql_ast_type_def *t) {
  int kind = t->h.kind;
  bool ext = gql_ast_is_type_extension(kind);
  int base = ext ? definition_kind(kind) : kind;
  if (!ext)
    print_description(p, t->description);
  put(p, type_def_keyword(kind));
  putc_(p, ' ');
  put_name(p, t->name);
  bool has_fields = base == GQL_AST_OBJECT_TYPE_DEFINITION ||
                    base == GQL_AST_INTERFACE_TYPE_DEFINITION;
  if (has_fields && t->interfaces.count) {
    put(p, " implements ");
    print_named_types(p, (const gql_ast_type *const *)t->interfaces.items,
                      t->interfaces.count, " & ");
  }
  print_sp_directives(p, &t->directives);
  uint32_t n = 0;
  switch (base) {
  case GQL_AST_OBJECT_TYPE_DEFINITION:
  case GQL_AST_INTERFACE_TYPE_DEFINITION:
    n = t->fields.count;
    break;
  case GQL_AST_UNION_TYPE_DEFINITION:
    if (t->members.count) {
      put(p, " = ");
      print_named_types(p, (const gql_ast_type *const *)t->members.items,
                        t->members.count, " | ");
    }
    return;
  case GQL_AST_ENUM_TYPE_DEFINITION:
    n = t->values.count;
    break;
  case GQL_AST_INPUT_OBJECT_TYPE_DEFINITION:
    n = t->input_fields.count;
    break;
  default:
    return;
  }
  if (!n)
    return;
  putc_(p, ' ');
  block_open(p);
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      nl(p);
    if (base == GQL_AST_ENUM_TYPE_DEFINITION)
      print_enum_value_def(p, t->values.items[i]);
    else if (base == GQL_AST_INPUT_OBJECT_TYPE_DEFINITION)
      print_input_value_def(p, t->input_fields.items[i]);
    else
      print_field_def(p, t->fields.items[i]);
  }
  block_close(p);
}

static void print_schema_def(printer *p, const gql_ast_schema_def *s) {
  bool ext = s->h.kind == GQL_AST_SCHEMA_EXTENSION;
  if (!ext)
    print_description(p, s->description);
  put(p, ext ? "extend schema" : "schema");
  print_sp_directives(p, &s->directives);
  if (!s->operation_types.count)
    return;
  putc_(p, ' ');
  block_open(p);
  for (uint32_t i = 0; i < s->operation_types.count; i++) {
    if (i)
      nl(p);
    print_node(p, &s->operation_types.items[i]->h);
  }
  block_close(p);
}

static void print_directive_def(printer *p, const gql_ast_directive_def *d) {
  print_description(p, d->description);
  put(p, "directive @");
  put_name(p, d->name);
  print_argument_defs(p, &d->args);
  if (d->repeatable)
    put(p, " repeatable");
  put(p, " on ");
  for (uint32_t i = 0; i < d->locations.count; i++) {
    if (i)
      put(p, " | ");
    put_name(p, *d->locations.items[i]);
  }
}

/* Type, Type.member, Type.field(arg:), @directive, @directive(arg:). */
static void print_schema_coordinate(printer *p,
                                    const gql_ast_schema_coordinate *c) {
  if (c->directive)
    putc_(p, '@');
  put_name(p, c->name);
  if (!c->directive && c->member.len) {
    putc_(p, '.');
    put_name(p, c->member);
  }
  if (c->argument.len) {
    putc_(p, '(');
    put_name(p, c->argument);
    put(p, ":)");
  }
}

static void print_document(printer *p, const gql_document *doc) {
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    if (i) {
      nl(p);
      nl(p);
    }
    print_node(p, doc->definitions.items[i]);
  }
}

static void print_node(printer *p, const gql_ast_node *node) {
  switch ((gql_ast_kind)node->kind) {
  case GQL_AST_DOCUMENT:
    print_document(p, (const gql_document *)node);
    break;
  case GQL_AST_OPERATION_DEFINITION:
    print_operation(p, (const gql_ast_operation *)node);
    break;
  case GQL_AST_VARIABLE_DEFINITION:
    print_variable_definition(p, (const gql_ast_variable_definition *)node);
    break;
  case GQL_AST_SELECTION_SET:
    print_selection_set(p, (const gql_ast_selection_set *)node);
    break;
  case GQL_AST_FIELD:
    print_field(p, (const gql_ast_selection *)node);
    break;
  case GQL_AST_ARGUMENT:
  case GQL_AST_OBJECT_FIELD: {
    const gql_ast_argument *a = (const gql_ast_argument *)node;
    put_name(p, a->name);
    put(p, ": ");
    print_value(p, a->value);
    break;
  }
  case GQL_AST_FRAGMENT_SPREAD: {
    const gql_ast_selection *s = (const gql_ast_selection *)node;
    put(p, "...");
    put_name(p, s->name);
    print_sp_directives(p, &s->directives);
    break;
  }
  case GQL_AST_INLINE_FRAGMENT:
    print_inline_fragment(p, (const gql_ast_selection *)node);
    break;
  case GQL_AST_FRAGMENT_DEFINITION:
    print_fragment(p, (const gql_ast_fragment *)node);
    break;
  case GQL_AST_VARIABLE:
  case GQL_AST_INT_VALUE:
  case GQL_AST_FLOAT_VALUE:
  case GQL_AST_STRING_VALUE:
  case GQL_AST_BOOLEAN_VALUE:
  case GQL_AST_NULL_VALUE:
  case GQL_AST_ENUM_VALUE:
  case GQL_AST_LIST_VALUE:
  case GQL_AST_OBJECT_VALUE:
    print_value(p, (const gql_ast_value *)node);
    break;
  case GQL_AST_DIRECTIVE: {
    gql_ast_directive *one = (gql_ast_directive *)node;
    gql_ast_directives ds = {&one, 1};
    print_directives(p, &ds);
    break;
  }
  case GQL_AST_NAMED_TYPE:
  case GQL_AST_LIST_TYPE:
  case GQL_AST_NON_NULL_TYPE:
    print_type(p, (const gql_ast_type *)node);
    break;
  case GQL_AST_SCHEMA_DEFINITION:
  case GQL_AST_SCHEMA_EXTENSION:
    print_schema_def(p, (const gql_ast_schema_def *)node);
    break;
  case GQL_AST_OPERATION_TYPE_DEFINITION: {
    const gql_ast_operation_type_def *o =
        (const gql_ast_operation_type_def *)node;
    put(p, operation_keyword(o->operation));
    put(p, ": ");
    print_type(p, o->type);
    break;
  }
  case GQL_AST_FIELD_DEFINITION:
    print_field_def(p, (const gql_ast_field_def *)node);
    break;
  case GQL_AST_INPUT_VALUE_DEFINITION:
    print_input_value_def(p, (const gql_ast_input_value_def *)node);
    break;
  case GQL_AST_ENUM_VALUE_DEFINITION:
    print_enum_value_def(p, (const gql_ast_enum_value_def *)node);
    break;
  case GQL_AST_SCALAR_TYPE_DEFINITION:
  case GQL_AST_OBJECT_TYPE_DEFINITION:
  case GQL_AST_INTERFACE_TYPE_DEFINITION:
  case GQL_AST_UNION_TYPE_DEFINITION:
  case GQL_AST_ENUM_TYPE_DEFINITION:
  case GQL_AST_INPUT_OBJECT_TYPE_DEFINITION:
  case GQL_AST_SCALAR_TYPE_EXTENSION:
  case GQL_AST_OBJECT_TYPE_EXTENSION:
  case GQL_AST_INTERFACE_TYPE_EXTENSION:
  case GQL_AST_UNION_TYPE_EXTENSION:
  case GQL_AST_ENUM_TYPE_EXTENSION:
  case GQL_AST_INPUT_OBJECT_TYPE_EXTENSION:
    print_type_def(p, (const gql_ast_type_def *)node);
    break;
  case GQL_AST_DIRECTIVE_DEFINITION:
    print_directive_def(p, (const gql_ast_directive_def *)node);
    break;
  case GQL_AST_SCHEMA_COORDINATE:
    print_schema_coordinate(p, (const gql_ast_schema_coordinate *)node);
    break;
  case GQL_AST_KIND_COUNT:
    break;
  }
}

/* ---- the pieces declared in ast.h */

void gql_print_value(gql_buf *out, const gql_ast_value *value) {
  printer p = {out, 0};
  print_value(&p, value);
}

void gql_print_type(gql_buf *out, const gql_ast_type *type) {
  printer p = {out, 0};
  print_type(&p, type);
}

void gql_print_node(gql_buf *out, const gql_ast_node *node) {
  printer p = {out, 0};
  print_node(&p, node);
}

void gql_print_string(gql_buf *out, gql_str s) {
  printer p = {out, 0};
  print_string(&p, s.ptr, s.len);
}

void gql_print_block_string(gql_buf *out, gql_str s) {
  printer p = {out, 0};
  print_block_string(&p, s.ptr, s.len);
}

int gql_print(gql_arena *arena, const gql_document *doc, const char **out,
              size_t *len) {
  if (!arena || !doc || !out)
    return GQL_EINVAL;
  gql_buf buf;
  gql_buf_init(&buf, NULL);
  gql_print_node(&buf, &doc->h);
  char *s = buf.failed ? NULL : gql_arena_strndup(arena, buf.data, buf.len);
  size_t n = buf.len;
  gql_buf_free(&buf);
  if (!s)
    return GQL_ENOMEM;
  *out = s;
  if (len)
    *len = n;
  return 0;
}
