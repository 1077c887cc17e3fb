/*
 * Recursive-descent parser into the arena AST, after graphql-js 16's
 * parser.ts (with graphql-js 17 / September 2025 descriptions on executable
 * definitions and schema coordinates). The order of checks follows
 * graphql-js so that the first error reported, its message and its offset
 * are the same.
 *
 * Errors unwind with longjmp: every allocation lives in the arena, so
 * nothing needs cleaning up on the way out, and the grammar functions stay
 * free of error plumbing. Recursion happens only through selection sets,
 * list/object values and list types, each guarded by the depth limit.
 */
#include "../core/errors.h"
#include "ast.h"
#include "lexer.h"

#include <setjmp.h>
#include <stdnoreturn.h>

enum { INLINE_STACK = 32 };

typedef struct parser {
  gql_lexer lx;
  gql_token tok;   /* the current token */
  gql_token ahead; /* the next one when has_ahead */
  bool has_ahead;
  /* lx.fast_lim as the lexer set it; lx.fast_lim is 0 (no inline lexer
   * path) while has_ahead and in schema-coordinate mode */
  uint32_t fast_lim;
  uint32_t prev_end; /* end of the last token consumed */
  /* max_tokens + 1 - the tokens counted so far (graphql-js counts every
   * token the parser moves onto, except EOF): one decrement a token */
  uint64_t token_budget;
  uint32_t max_tokens;
  uint32_t depth, max_depth;
  gql_arena *arena;
  void **stack; /* scratch where arrays collect before their arena copy */
  uint32_t sp, cap;
  char *cur, *lim; /* the chunk of arena memory nodes are cut from */
  size_t chunk;
  int rc;
  const char *message;
  uint32_t err_offset;
  jmp_buf jmp;
  /* the first stack (not cleared by start(): only pushed items are read) */
  void *first_stack[INLINE_STACK];
} parser;

/* A slice equals a string literal; the length is known at compile time so
 * the comparison inlines (keywords are compared on every definition). */
#define STR_IS(s, lit)                                                         \
  ((s).len == sizeof(lit) - 1 && memcmp((s).ptr, (lit), sizeof(lit) - 1) == 0)

/* ---- errors */

static noreturn void fail_rc(parser *p, int rc, uint32_t offset,
                             const char *message) {
  p->rc = message ? rc : GQL_ENOMEM;
  p->message = message;
  p->err_offset = offset;
  longjmp(p->jmp, 1);
}

static noreturn void failf(parser *p, int rc, uint32_t offset, const char *fmt,
                           ...) __attribute__((format(printf, 4, 5)));
static noreturn void failf(parser *p, int rc, uint32_t offset, const char *fmt,
                           ...) {
  va_list ap;
  va_start(ap, fmt);
  char *body = gql_arena_vsprintf(p->arena, fmt, ap);
  va_end(ap);
  char *msg =
      body ? gql_arena_sprintf(p->arena, "Syntax Error: %s", body) : NULL;
  fail_rc(p, rc, offset, msg);
}

static noreturn void nomem(parser *p) {
  fail_rc(p, GQL_ENOMEM, p->tok.start, NULL);
}

static bool has_value(const gql_token *t) {
  return t->kind >= GQL_TOK_NAME;
}

/* graphql-js getTokenDesc: `Name "x"`, `"{"`, `<EOF>`. */
static const char *token_desc(parser *p, const gql_token *t) {
  const char *kind = gql_token_kind_desc((gql_token_kind)t->kind);
  if (!has_value(t))
    return kind;
  const char *d = gql_arena_sprintf(p->arena, "%s \"%.*s\"", kind,
                                    (int)t->value.len, t->value.ptr);
  if (!d)
    nomem(p);
  return d;
}

static noreturn void unexpected(parser *p, const gql_token *t) {
  failf(p, GQL_ESYNTAX, t->start, "Unexpected %s.", token_desc(p, t));
}

/* ---- tokens */

static noreturn void lex_failed(parser *p) {
  fail_rc(p, p->lx.err, p->lx.err_offset, p->lx.message);
}

static noreturn void too_many_tokens(parser *p) {
  failf(p, GQL_ELIMIT, p->tok.start,
        "Document contains more than %u tokens. Parsing aborted.",
        p->max_tokens);
}

static inline void count_token(parser *p) {
  /* graphql-js counts every token the parser moves onto, except EOF. */
  if (p->tok.kind != GQL_TOK_EOF && GQL_UNLIKELY(--p->token_budget == 0))
    too_many_tokens(p);
}

static __attribute__((noinline)) void advance_slow(parser *p) {
  if (p->has_ahead) {
    p->prev_end = p->tok.end;
    p->tok = p->ahead;
    p->has_ahead = false;
    p->lx.fast_lim = p->fast_lim;
  } else if (p->lx.pos == p->lx.len && !p->lx.err && !p->lx.coordinate) {
    /* the end, where the inline path stops on every document */
    p->tok =
        (gql_token){.kind = GQL_TOK_EOF, .start = p->lx.len, .end = p->lx.len};
  } else if (GQL_UNLIKELY(gql_lexer_next(&p->lx, &p->tok))) {
    lex_failed(p);
  }
  count_token(p);
}

/* Names and punctuators come from the lexer's inline path; the fast token
 * is never EOF. */
static inline void advance(parser *p) {
  /* where the lexer stands is where the current token ends, except after
   * a lookahead (then advance_slow() sets it) */
  p->prev_end = p->lx.pos;
  if (GQL_LIKELY(gql_lexer_next_fast(&p->lx, &p->tok))) {
    if (GQL_UNLIKELY(--p->token_budget == 0))
      too_many_tokens(p);
    return;
  }
  advance_slow(p);
}

static const gql_token *lookahead(parser *p) {
  if (!p->has_ahead) {
    if (p->tok.kind == GQL_TOK_EOF) {
      p->ahead = p->tok;
    } else if (gql_lexer_next(&p->lx, &p->ahead)) {
      lex_failed(p);
    }
    p->has_ahead = true;
    p->lx.fast_lim = 0;
  }
  return &p->ahead;
}

static inline bool peek(const parser *p, int kind) {
  return p->tok.kind == kind;
}

static noreturn void expected(parser *p, int kind) {
  failf(p, GQL_ESYNTAX, p->tok.start, "Expected %s, found %s.",
        gql_token_kind_desc((gql_token_kind)kind), token_desc(p, &p->tok));
}

static inline void expect(parser *p, int kind) {
  if (GQL_UNLIKELY(p->tok.kind != kind))
    expected(p, kind);
  advance(p);
}

static bool expect_optional(parser *p, int kind) {
  if (p->tok.kind != kind)
    return false;
  advance(p);
  return true;
}

static inline __attribute__((always_inline)) bool is_keyword(const gql_token *t,
                                                             const char *kw) {
  size_t n = strlen(kw); /* folds: kw is always a literal */
  return t->kind == GQL_TOK_NAME && t->value.len == n &&
         memcmp(t->value.ptr, kw, n) == 0;
}

static inline __attribute__((always_inline)) void
expect_keyword(parser *p, const char *kw) {
  if (is_keyword(&p->tok, kw)) {
    advance(p);
    return;
  }
  failf(p, GQL_ESYNTAX, p->tok.start, "Expected \"%s\", found %s.", kw,
        token_desc(p, &p->tok));
}

static inline __attribute__((always_inline)) bool
expect_optional_keyword(parser *p, const char *kw) {
  if (!is_keyword(&p->tok, kw))
    return false;
  advance(p);
  return true;
}

static void enter(parser *p) {
  if (++p->depth > p->max_depth)
    failf(p, GQL_ELIMIT, p->tok.start,
          "Document nesting exceeds the maximum depth of %u.", p->max_depth);
}

static inline void leave(parser *p) {
  p->depth--;
}

/* ---- nodes and arrays */

/* Nodes are cut from arena chunks that grow from 512 bytes to 64 KiB (less
 * for the first chunk of a short text, see refill): one
 * arena call per chunk instead of per node, and a small document still fits
 * in the arena's first block. Chunks are not zeroed as a whole: each node is
 * zeroed as it is cut (a few wide stores of a size known at compile time),
 * so every byte is written once and only bytes in use are touched. */
static __attribute__((noinline)) void refill(parser *p, size_t size) {
  size_t want = p->chunk ? p->chunk * 2 : gql_parse_first_chunk(p->lx.len);
  if (want > 65536)
    want = 65536;
  if (want < size)
    want = size;
  char *c = gql_arena_alloc(p->arena, want);
  if (!c)
    nomem(p);
  p->cur = c;
  p->lim = c + want;
  p->chunk = want;
}

static inline void *alloc(parser *p, size_t size) {
  size = (size + 7) & ~(size_t)7;
  if (GQL_UNLIKELY((size_t)(p->lim - p->cur) < size))
    refill(p, size);
  void *r = p->cur;
  p->cur += size;
  return r;
}

/* Zeroes a node of a compile-time size with 16-byte stores. A memset here
 * compiles to `rep stos` for the larger nodes, whose start-up cost is
 * more than the stores. */
typedef char zero16 __attribute__((vector_size(16), aligned(8), may_alias));
static inline __attribute__((always_inline)) void zero(void *p, size_t size) {
  char *c = p;
  size_t i = 0;
  for (; i + 16 <= size; i += 16)
    *(zero16 *)(c + i) = (zero16){0};
  if (i < size)
    memset(c + i, 0, 8);
}

static inline __attribute__((always_inline)) void *
node(parser *p, size_t size, int kind, uint32_t start) {
  gql_ast_node *n = alloc(p, size);
  zero(n, size);
  n->kind = (uint8_t)kind;
  n->start = start;
  return n;
}

#define NEW(p, T, kind, start) ((T *)node((p), sizeof(T), (kind), (start)))
#define FINISH(p, n) ((n)->h.end = (p)->prev_end)

static __attribute__((noinline)) void grow_stack(parser *p) {
  uint32_t cap = p->cap * 2;
  void **s = gql_arena_grow(p->arena, p->stack, p->sp, cap, sizeof *s);
  if (!s)
    nomem(p);
  p->stack = s;
  p->cap = cap;
}

static inline void push(parser *p, void *item) {
  if (GQL_UNLIKELY(p->sp == p->cap))
    grow_stack(p);
  p->stack[p->sp++] = item;
}

/* Copies the items pushed since `mark` into an arena array and pops them. */
static void *take(parser *p, uint32_t mark) {
  uint32_t n = p->sp - mark;
  if (!n)
    return NULL;
  void **items = alloc(p, n * sizeof *items);
  void **from = p->stack + mark;
  /* most arrays hold a few items: a loop beats a call to memcpy */
  for (uint32_t i = 0; i < n; i++)
    items[i] = from[i];
  p->sp = mark;
  return items;
}

#define TAKE(p, mark, arr)                                                     \
  do {                                                                         \
    (arr).count = (p)->sp - (mark);                                            \
    (arr).items = take((p), (mark));                                           \
  } while (0)

/* graphql-js many(): open, one or more items, close. */
#define MANY(p, open, close, fn, arr)                                          \
  do {                                                                         \
    expect((p), (open));                                                       \
    uint32_t mark_ = (p)->sp;                                                  \
    do                                                                         \
      push((p), fn(p));                                                        \
    while (!expect_optional((p), (close)));                                    \
    TAKE((p), mark_, (arr));                                                   \
  } while (0)

/* optionalMany(): nothing, or many(). */
#define OPTIONAL_MANY(p, open, close, fn, arr)                                 \
  do {                                                                         \
    if (peek((p), (open)))                                                     \
      MANY((p), (open), (close), fn, (arr));                                   \
  } while (0)

/* delimitedMany(): an optional leading delimiter, then items separated by
 * the delimiter. */
#define DELIMITED_MANY(p, delim, fn, arr)                                      \
  do {                                                                         \
    expect_optional((p), (delim));                                             \
    uint32_t mark_ = (p)->sp;                                                  \
    do                                                                         \
      push((p), fn(p));                                                        \
    while (expect_optional((p), (delim)));                                     \
    TAKE((p), mark_, (arr));                                                   \
  } while (0)

/* ---- names, values, types */

static inline __attribute__((always_inline)) gql_ast_name
parse_name(parser *p) {
  if (GQL_UNLIKELY(p->tok.kind != GQL_TOK_NAME))
    expected(p, GQL_TOK_NAME);
  gql_ast_name n = {p->tok.value.ptr, (uint32_t)p->tok.value.len, p->tok.start};
  advance(p);
  return n;
}

/* Tokens are read field by field, never copied whole: the lexer writes
 * them with narrow stores, and a wide load right after would stall. */
static gql_ast_value *parse_string_literal(parser *p) {
  gql_ast_value *v = NEW(p, gql_ast_value, GQL_AST_STRING_VALUE, p->tok.start);
  v->u.string.value = p->tok.value;
  v->u.string.block = p->tok.kind == GQL_TOK_BLOCK_STRING;
  advance(p);
  FINISH(p, v);
  return v;
}

static gql_ast_value *parse_description(parser *p) {
  if (peek(p, GQL_TOK_STRING) || peek(p, GQL_TOK_BLOCK_STRING))
    return parse_string_literal(p);
  return NULL;
}

static gql_ast_value *parse_variable(parser *p) {
  uint32_t start = p->tok.start;
  expect(p, GQL_TOK_DOLLAR);
  gql_ast_value *v = NEW(p, gql_ast_value, GQL_AST_VARIABLE, start);
  v->u.name = parse_name(p);
  FINISH(p, v);
  return v;
}

static gql_ast_value *parse_value(parser *p, bool is_const);

static gql_ast_argument *parse_object_field(parser *p, bool is_const) {
  gql_ast_argument *f =
      NEW(p, gql_ast_argument, GQL_AST_OBJECT_FIELD, p->tok.start);
  f->name = parse_name(p);
  expect(p, GQL_TOK_COLON);
  f->value = parse_value(p, is_const);
  FINISH(p, f);
  return f;
}

static gql_ast_value *parse_list_or_object(parser *p, bool is_const) {
  bool list = peek(p, GQL_TOK_BRACKET_L);
  gql_ast_value *v =
      NEW(p, gql_ast_value, list ? GQL_AST_LIST_VALUE : GQL_AST_OBJECT_VALUE,
          p->tok.start);
  enter(p);
  advance(p);
  uint32_t mark = p->sp;
  if (list) {
    while (!expect_optional(p, GQL_TOK_BRACKET_R))
      push(p, parse_value(p, is_const));
    TAKE(p, mark, v->u.list);
  } else {
    while (!expect_optional(p, GQL_TOK_BRACE_R))
      push(p, parse_object_field(p, is_const));
    TAKE(p, mark, v->u.fields);
  }
  leave(p);
  FINISH(p, v);
  return v;
}

static gql_ast_value *parse_value(parser *p, bool is_const) {
  int kind = p->tok.kind;
  uint32_t start = p->tok.start;
  gql_str value = p->tok.value;
  gql_ast_value *v;
  switch (kind) {
  case GQL_TOK_BRACKET_L:
  case GQL_TOK_BRACE_L:
    return parse_list_or_object(p, is_const);
  case GQL_TOK_INT:
  case GQL_TOK_FLOAT:
    advance(p);
    v = NEW(p, gql_ast_value,
            kind == GQL_TOK_INT ? GQL_AST_INT_VALUE : GQL_AST_FLOAT_VALUE,
            start);
    v->u.raw = value;
    break;
  case GQL_TOK_STRING:
  case GQL_TOK_BLOCK_STRING:
    return parse_string_literal(p);
  case GQL_TOK_NAME:
    advance(p);
    if (STR_IS(value, "true") || STR_IS(value, "false")) {
      v = NEW(p, gql_ast_value, GQL_AST_BOOLEAN_VALUE, start);
      v->u.boolean = value.len == 4;
    } else if (STR_IS(value, "null")) {
      v = NEW(p, gql_ast_value, GQL_AST_NULL_VALUE, start);
    } else {
      v = NEW(p, gql_ast_value, GQL_AST_ENUM_VALUE, start);
      v->u.raw = value;
    }
    break;
  case GQL_TOK_DOLLAR:
    if (is_const) {
      advance(p);
      if (peek(p, GQL_TOK_NAME))
        failf(p, GQL_ESYNTAX, start,
              "Unexpected variable \"$%.*s\" in constant value.",
              (int)p->tok.value.len, p->tok.value.ptr);
      failf(p, GQL_ESYNTAX, start, "Unexpected \"$\".");
    }
    return parse_variable(p);
  default:
    unexpected(p, &p->tok);
  }
  FINISH(p, v);
  return v;
}

static inline __attribute__((always_inline)) gql_ast_type *
parse_named_type(parser *p) {
  gql_ast_type *t = NEW(p, gql_ast_type, GQL_AST_NAMED_TYPE, p->tok.start);
  t->name = parse_name(p);
  FINISH(p, t);
  return t;
}

static gql_ast_type *parse_type_reference(parser *p) {
  uint32_t start = p->tok.start;
  gql_ast_type *type;
  if (peek(p, GQL_TOK_BRACKET_L)) {
    enter(p);
    advance(p);
    gql_ast_type *inner = parse_type_reference(p);
    expect(p, GQL_TOK_BRACKET_R);
    leave(p);
    type = NEW(p, gql_ast_type, GQL_AST_LIST_TYPE, start);
    type->of = inner;
    FINISH(p, type);
  } else {
    type = parse_named_type(p);
  }
  if (expect_optional(p, GQL_TOK_BANG)) {
    gql_ast_type *nn = NEW(p, gql_ast_type, GQL_AST_NON_NULL_TYPE, start);
    nn->of = type;
    FINISH(p, nn);
    return nn;
  }
  return type;
}

/* ---- directives and arguments */

static gql_ast_argument *parse_argument(parser *p, bool is_const) {
  gql_ast_argument *a =
      NEW(p, gql_ast_argument, GQL_AST_ARGUMENT, p->tok.start);
  a->name = parse_name(p);
  expect(p, GQL_TOK_COLON);
  a->value = parse_value(p, is_const);
  FINISH(p, a);
  return a;
}

static gql_ast_arguments parse_argument_list(parser *p, bool is_const) {
  gql_ast_arguments args;
  advance(p); /* ( */
  uint32_t mark = p->sp;
  do
    push(p, parse_argument(p, is_const));
  while (!expect_optional(p, GQL_TOK_PAREN_R));
  TAKE(p, mark, args);
  return args;
}

/* Most fields and directives have no arguments and most nodes no
 * directives: the check inlines, the list parse is a call. */
static inline gql_ast_arguments parse_arguments(parser *p, bool is_const) {
  if (!peek(p, GQL_TOK_PAREN_L))
    return (gql_ast_arguments){0};
  return parse_argument_list(p, is_const);
}

static gql_ast_directive *parse_directive(parser *p, bool is_const) {
  gql_ast_directive *d =
      NEW(p, gql_ast_directive, GQL_AST_DIRECTIVE, p->tok.start);
  expect(p, GQL_TOK_AT);
  d->name = parse_name(p);
  d->args = parse_arguments(p, is_const);
  FINISH(p, d);
  return d;
}

static gql_ast_directives parse_directive_list(parser *p, bool is_const) {
  gql_ast_directives ds;
  uint32_t mark = p->sp;
  do
    push(p, parse_directive(p, is_const));
  while (peek(p, GQL_TOK_AT));
  TAKE(p, mark, ds);
  return ds;
}

static inline gql_ast_directives parse_directives(parser *p, bool is_const) {
  if (!peek(p, GQL_TOK_AT))
    return (gql_ast_directives){0};
  return parse_directive_list(p, is_const);
}

/* ---- executable definitions */

static gql_ast_selection_set *parse_selection_set(parser *p);

static gql_ast_name parse_fragment_name(parser *p) {
  if (has_value(&p->tok) && STR_IS(p->tok.value, "on"))
    unexpected(p, &p->tok);
  return parse_name(p);
}

static gql_ast_selection *parse_fragment(parser *p) {
  uint32_t start = p->tok.start;
  expect(p, GQL_TOK_SPREAD);
  bool has_type_condition = expect_optional_keyword(p, "on");
  gql_ast_selection *s;
  if (!has_type_condition && peek(p, GQL_TOK_NAME)) {
    s = NEW(p, gql_ast_selection, GQL_AST_FRAGMENT_SPREAD, start);
    s->name = parse_fragment_name(p);
    s->directives = parse_directives(p, false);
  } else {
    s = NEW(p, gql_ast_selection, GQL_AST_INLINE_FRAGMENT, start);
    if (has_type_condition)
      s->type_condition = parse_named_type(p);
    s->directives = parse_directives(p, false);
    s->selection_set = parse_selection_set(p);
  }
  FINISH(p, s);
  return s;
}

static gql_ast_selection *parse_field(parser *p) {
  gql_ast_selection *f = NEW(p, gql_ast_selection, GQL_AST_FIELD, p->tok.start);
  gql_ast_name name_or_alias = parse_name(p);
  if (expect_optional(p, GQL_TOK_COLON)) {
    f->alias = name_or_alias;
    f->name = parse_name(p);
  } else {
    f->name = name_or_alias;
  }
  f->args = parse_arguments(p, false);
  f->directives = parse_directives(p, false);
  if (peek(p, GQL_TOK_BRACE_L))
    f->selection_set = parse_selection_set(p);
  FINISH(p, f);
  return f;
}

static gql_ast_selection *parse_selection(parser *p) {
  return peek(p, GQL_TOK_SPREAD) ? parse_fragment(p) : parse_field(p);
}

static gql_ast_selection_set *parse_selection_set(parser *p) {
  gql_ast_selection_set *ss =
      NEW(p, gql_ast_selection_set, GQL_AST_SELECTION_SET, p->tok.start);
  enter(p);
  MANY(p, GQL_TOK_BRACE_L, GQL_TOK_BRACE_R, parse_selection, ss->selections);
  leave(p);
  FINISH(p, ss);
  return ss;
}

static gql_ast_variable_definition *parse_variable_definition(parser *p) {
  gql_ast_variable_definition *vd =
      NEW(p, gql_ast_variable_definition, GQL_AST_VARIABLE_DEFINITION,
          p->tok.start);
  vd->description = parse_description(p);
  vd->variable = parse_variable(p);
  expect(p, GQL_TOK_COLON);
  vd->type = parse_type_reference(p);
  if (expect_optional(p, GQL_TOK_EQUALS))
    vd->default_value = parse_value(p, true);
  vd->directives = parse_directives(p, true);
  FINISH(p, vd);
  return vd;
}

/* graphql-js advances past the Name before it checks the keyword, so a
 * lexer error in the next token wins over an unknown operation type. */
static gql_operation_type parse_operation_type(parser *p) {
  if (GQL_UNLIKELY(p->tok.kind != GQL_TOK_NAME))
    expected(p, GQL_TOK_NAME);
  gql_str v = p->tok.value;
  uint32_t start = p->tok.start;
  advance(p);
  if (STR_IS(v, "query"))
    return GQL_OP_QUERY;
  if (STR_IS(v, "mutation"))
    return GQL_OP_MUTATION;
  if (STR_IS(v, "subscription"))
    return GQL_OP_SUBSCRIPTION;
  failf(p, GQL_ESYNTAX, start, "Unexpected Name \"%.*s\".", (int)v.len, v.ptr);
}

static gql_ast_node *parse_operation_definition(parser *p) {
  gql_ast_operation *op =
      NEW(p, gql_ast_operation, GQL_AST_OPERATION_DEFINITION, p->tok.start);
  if (peek(p, GQL_TOK_BRACE_L)) {
    op->operation = GQL_OP_QUERY;
    op->shorthand = true;
    op->selection_set = parse_selection_set(p);
    FINISH(p, op);
    return &op->h;
  }
  op->description = parse_description(p);
  op->operation = parse_operation_type(p);
  if (peek(p, GQL_TOK_NAME))
    op->name = parse_name(p);
  OPTIONAL_MANY(p, GQL_TOK_PAREN_L, GQL_TOK_PAREN_R, parse_variable_definition,
                op->variables);
  op->directives = parse_directives(p, false);
  op->selection_set = parse_selection_set(p);
  FINISH(p, op);
  return &op->h;
}

static gql_ast_node *parse_fragment_definition(parser *p) {
  gql_ast_fragment *f =
      NEW(p, gql_ast_fragment, GQL_AST_FRAGMENT_DEFINITION, p->tok.start);
  f->description = parse_description(p);
  expect_keyword(p, "fragment");
  f->name = parse_fragment_name(p);
  expect_keyword(p, "on");
  f->type_condition = parse_named_type(p);
  f->directives = parse_directives(p, false);
  f->selection_set = parse_selection_set(p);
  FINISH(p, f);
  return &f->h;
}

/* ---- type system definitions */

static gql_ast_operation_type_def *parse_operation_type_definition(parser *p) {
  gql_ast_operation_type_def *o =
      NEW(p, gql_ast_operation_type_def, GQL_AST_OPERATION_TYPE_DEFINITION,
          p->tok.start);
  o->operation = parse_operation_type(p);
  expect(p, GQL_TOK_COLON);
  o->type = parse_named_type(p);
  FINISH(p, o);
  return o;
}

static gql_ast_node *parse_schema_definition(parser *p) {
  gql_ast_schema_def *s =
      NEW(p, gql_ast_schema_def, GQL_AST_SCHEMA_DEFINITION, p->tok.start);
  s->description = parse_description(p);
  expect_keyword(p, "schema");
  s->directives = parse_directives(p, true);
  MANY(p, GQL_TOK_BRACE_L, GQL_TOK_BRACE_R, parse_operation_type_definition,
       s->operation_types);
  FINISH(p, s);
  return &s->h;
}

static gql_ast_input_value_def *parse_input_value_def(parser *p) {
  gql_ast_input_value_def *iv = NEW(
      p, gql_ast_input_value_def, GQL_AST_INPUT_VALUE_DEFINITION, p->tok.start);
  iv->description = parse_description(p);
  iv->name = parse_name(p);
  expect(p, GQL_TOK_COLON);
  iv->type = parse_type_reference(p);
  if (expect_optional(p, GQL_TOK_EQUALS))
    iv->default_value = parse_value(p, true);
  iv->directives = parse_directives(p, true);
  FINISH(p, iv);
  return iv;
}

static gql_ast_field_def *parse_field_definition(parser *p) {
  gql_ast_field_def *f =
      NEW(p, gql_ast_field_def, GQL_AST_FIELD_DEFINITION, p->tok.start);
  f->description = parse_description(p);
  f->name = parse_name(p);
  OPTIONAL_MANY(p, GQL_TOK_PAREN_L, GQL_TOK_PAREN_R, parse_input_value_def,
                f->args);
  expect(p, GQL_TOK_COLON);
  f->type = parse_type_reference(p);
  f->directives = parse_directives(p, true);
  FINISH(p, f);
  return f;
}

static gql_ast_name parse_enum_value_name(parser *p) {
  const gql_token *t = &p->tok;
  if (has_value(t) && (STR_IS(t->value, "true") || STR_IS(t->value, "false") ||
                       STR_IS(t->value, "null")))
    failf(p, GQL_ESYNTAX, t->start,
          "%s is reserved and cannot be used for an enum value.",
          token_desc(p, t));
  return parse_name(p);
}

static gql_ast_enum_value_def *parse_enum_value_definition(parser *p) {
  gql_ast_enum_value_def *e = NEW(p, gql_ast_enum_value_def,
                                  GQL_AST_ENUM_VALUE_DEFINITION, p->tok.start);
  e->description = parse_description(p);
  e->name = parse_enum_value_name(p);
  e->directives = parse_directives(p, true);
  FINISH(p, e);
  return e;
}

/* The body of a type definition or extension after its name. */
static void parse_type_body(parser *p, gql_ast_type_def *t, int def_kind) {
  switch (def_kind) {
  case GQL_AST_OBJECT_TYPE_DEFINITION:
  case GQL_AST_INTERFACE_TYPE_DEFINITION:
    if (expect_optional_keyword(p, "implements"))
      DELIMITED_MANY(p, GQL_TOK_AMP, parse_named_type, t->interfaces);
    t->directives = parse_directives(p, true);
    OPTIONAL_MANY(p, GQL_TOK_BRACE_L, GQL_TOK_BRACE_R, parse_field_definition,
                  t->fields);
    break;
  case GQL_AST_UNION_TYPE_DEFINITION:
    t->directives = parse_directives(p, true);
    if (expect_optional(p, GQL_TOK_EQUALS))
      DELIMITED_MANY(p, GQL_TOK_PIPE, parse_named_type, t->members);
    break;
  case GQL_AST_ENUM_TYPE_DEFINITION:
    t->directives = parse_directives(p, true);
    OPTIONAL_MANY(p, GQL_TOK_BRACE_L, GQL_TOK_BRACE_R,
                  parse_enum_value_definition, t->values);
    break;
  case GQL_AST_INPUT_OBJECT_TYPE_DEFINITION:
    t->directives = parse_directives(p, true);
    OPTIONAL_MANY(p, GQL_TOK_BRACE_L, GQL_TOK_BRACE_R, parse_input_value_def,
                  t->input_fields);
    break;
  default: /* scalar */
    t->directives = parse_directives(p, true);
    break;
  }
}

/* Called with the keyword (after any description) known to match. */
static gql_ast_node *parse_type_definition(parser *p, int kind) {
  gql_ast_type_def *t = NEW(p, gql_ast_type_def, kind, p->tok.start);
  t->description = parse_description(p);
  advance(p); /* the keyword */
  t->name = parse_name(p);
  parse_type_body(p, t, kind);
  FINISH(p, t);
  return &t->h;
}

static bool is_directive_location(gql_str s) {
#define LOC(lit)                                                               \
  { lit, sizeof(lit) - 1 }
  static const struct {
    const char *name;
    uint8_t len;
  } locations[] = {
      LOC("QUERY"),
      LOC("MUTATION"),
      LOC("SUBSCRIPTION"),
      LOC("FIELD"),
      LOC("FRAGMENT_DEFINITION"),
      LOC("FRAGMENT_SPREAD"),
      LOC("INLINE_FRAGMENT"),
      LOC("VARIABLE_DEFINITION"),
      LOC("SCHEMA"),
      LOC("SCALAR"),
      LOC("OBJECT"),
      LOC("FIELD_DEFINITION"),
      LOC("ARGUMENT_DEFINITION"),
      LOC("INTERFACE"),
      LOC("UNION"),
      LOC("ENUM"),
      LOC("ENUM_VALUE"),
      LOC("INPUT_OBJECT"),
      LOC("INPUT_FIELD_DEFINITION"),
      /* graphql-js 16.15 has it; the September 2025 spec does not */
      LOC("DIRECTIVE_DEFINITION"),
  };
#undef LOC
  for (size_t i = 0; i < GQL_ARRAY_LEN(locations); i++)
    if (s.len == locations[i].len &&
        memcmp(s.ptr, locations[i].name, s.len) == 0)
      return true;
  return false;
}

static gql_ast_name *parse_directive_location(parser *p) {
  gql_token start = p->tok;
  gql_ast_name name = parse_name(p);
  if (!is_directive_location(gql_ast_name_str(name)))
    unexpected(p, &start);
  gql_ast_name *n = alloc(p, sizeof *n);
  *n = name;
  return n;
}

static gql_ast_node *parse_directive_definition(parser *p) {
  gql_ast_directive_def *d =
      NEW(p, gql_ast_directive_def, GQL_AST_DIRECTIVE_DEFINITION, p->tok.start);
  d->description = parse_description(p);
  expect_keyword(p, "directive");
  expect(p, GQL_TOK_AT);
  d->name = parse_name(p);
  OPTIONAL_MANY(p, GQL_TOK_PAREN_L, GQL_TOK_PAREN_R, parse_input_value_def,
                d->args);
  d->repeatable = expect_optional_keyword(p, "repeatable");
  expect_keyword(p, "on");
  DELIMITED_MANY(p, GQL_TOK_PIPE, parse_directive_location, d->locations);
  FINISH(p, d);
  return &d->h;
}

/* ---- extensions */

static gql_ast_node *parse_schema_extension(parser *p) {
  gql_ast_schema_def *s =
      NEW(p, gql_ast_schema_def, GQL_AST_SCHEMA_EXTENSION, p->tok.start);
  expect_keyword(p, "extend");
  expect_keyword(p, "schema");
  s->directives = parse_directives(p, true);
  OPTIONAL_MANY(p, GQL_TOK_BRACE_L, GQL_TOK_BRACE_R,
                parse_operation_type_definition, s->operation_types);
  if (!s->directives.count && !s->operation_types.count)
    unexpected(p, &p->tok);
  FINISH(p, s);
  return &s->h;
}

/* Called with the keyword after `extend` known to match. */
static gql_ast_node *parse_type_extension(parser *p, int def_kind, int kind) {
  gql_ast_type_def *t = NEW(p, gql_ast_type_def, kind, p->tok.start);
  advance(p); /* extend */
  advance(p); /* the keyword */
  t->name = parse_name(p);
  parse_type_body(p, t, def_kind);
  if (!t->interfaces.count && !t->directives.count && !t->fields.count &&
      !t->members.count && !t->values.count && !t->input_fields.count)
    unexpected(p, &p->tok);
  FINISH(p, t);
  return &t->h;
}

static const struct {
  int def_kind, ext_kind;
} type_kinds[] = {
    {GQL_AST_SCALAR_TYPE_DEFINITION, GQL_AST_SCALAR_TYPE_EXTENSION},
    {GQL_AST_OBJECT_TYPE_DEFINITION, GQL_AST_OBJECT_TYPE_EXTENSION},
    {GQL_AST_INTERFACE_TYPE_DEFINITION, GQL_AST_INTERFACE_TYPE_EXTENSION},
    {GQL_AST_UNION_TYPE_DEFINITION, GQL_AST_UNION_TYPE_EXTENSION},
    {GQL_AST_ENUM_TYPE_DEFINITION, GQL_AST_ENUM_TYPE_EXTENSION},
    {GQL_AST_INPUT_OBJECT_TYPE_DEFINITION, GQL_AST_INPUT_OBJECT_TYPE_EXTENSION},
};

/* The index in type_kinds of a type keyword (a Name's value), or -1. */
static int type_keyword(gql_str v) {
  switch (v.ptr[0]) {
  case 's':
    return STR_IS(v, "scalar") ? 0 : -1;
  case 't':
    return STR_IS(v, "type") ? 1 : -1;
  case 'i':
    return STR_IS(v, "interface") ? 2 : STR_IS(v, "input") ? 5 : -1;
  case 'u':
    return STR_IS(v, "union") ? 3 : -1;
  case 'e':
    return STR_IS(v, "enum") ? 4 : -1;
  default:
    return -1;
  }
}

static gql_ast_node *parse_type_system_extension(parser *p) {
  const gql_token *kw = lookahead(p);
  if (kw->kind == GQL_TOK_NAME) {
    if (STR_IS(kw->value, "schema"))
      return parse_schema_extension(p);
    int i = type_keyword(kw->value);
    if (i >= 0)
      return parse_type_extension(p, type_kinds[i].def_kind,
                                  type_kinds[i].ext_kind);
  }
  gql_token t = *kw;
  unexpected(p, &t);
}

/* graphql-js 17 parseDefinition: descriptions are allowed on every
 * definition except the shorthand query and extensions. */
static gql_ast_node *parse_definition(parser *p) {
  if (peek(p, GQL_TOK_BRACE_L))
    return parse_operation_definition(p);
  bool has_description =
      peek(p, GQL_TOK_STRING) || peek(p, GQL_TOK_BLOCK_STRING);
  const gql_token *kw = has_description ? lookahead(p) : &p->tok;
  if (has_description && kw->kind == GQL_TOK_BRACE_L)
    failf(p, GQL_ESYNTAX, p->tok.start,
          "Unexpected description, descriptions are not supported on "
          "shorthand queries.");
  if (kw->kind == GQL_TOK_NAME) {
    if (STR_IS(kw->value, "schema"))
      return parse_schema_definition(p);
    int i = type_keyword(kw->value);
    if (i >= 0)
      return parse_type_definition(p, type_kinds[i].def_kind);
    if (STR_IS(kw->value, "directive"))
      return parse_directive_definition(p);
    if (STR_IS(kw->value, "query") || STR_IS(kw->value, "mutation") ||
        STR_IS(kw->value, "subscription"))
      return parse_operation_definition(p);
    if (STR_IS(kw->value, "fragment"))
      return parse_fragment_definition(p);
    if (has_description)
      failf(p, GQL_ESYNTAX, p->tok.start,
            "Unexpected description, only GraphQL definitions support "
            "descriptions.");
    if (STR_IS(kw->value, "extend"))
      return parse_type_system_extension(p);
  }
  unexpected(p, kw);
}

static gql_document *parse_document(parser *p) {
  gql_document *doc = NEW(p, gql_document, GQL_AST_DOCUMENT, 0);
  MANY(p, GQL_TOK_SOF, GQL_TOK_EOF, parse_definition, doc->definitions);
  FINISH(p, doc);
  return doc;
}

static gql_ast_schema_coordinate *parse_schema_coordinate(parser *p) {
  gql_ast_schema_coordinate *c = NEW(p, gql_ast_schema_coordinate,
                                     GQL_AST_SCHEMA_COORDINATE, p->tok.start);
  c->directive = expect_optional(p, GQL_TOK_AT);
  c->name = parse_name(p);
  if (!c->directive && expect_optional(p, GQL_TOK_DOT))
    c->member = parse_name(p);
  if ((c->directive || c->member.ptr) && expect_optional(p, GQL_TOK_PAREN_L)) {
    c->argument = parse_name(p);
    expect(p, GQL_TOK_COLON);
    expect(p, GQL_TOK_PAREN_R);
  }
  FINISH(p, c);
  return c;
}

/* ---- entry points */

/* Whatever max_depth asks for, recursion stops here: a level costs well
 * under 100 bytes of stack, so this stays under 1 MiB, safe on any thread. */
enum { HARD_MAX_DEPTH = 10000 };

enum { WHAT_DOCUMENT, WHAT_VALUE, WHAT_CONST_VALUE, WHAT_TYPE, WHAT_COORD };

/* Runs one parse under setjmp. Only `p` and `what` are used after the
 * jump, and neither changes, so no local needs to be volatile. */
static void *run(parser *p, int what) {
  if (setjmp(p->jmp))
    return NULL;
  void *result;
  if (what == WHAT_DOCUMENT)
    return parse_document(p);
  expect(p, GQL_TOK_SOF);
  switch (what) {
  case WHAT_VALUE:
  case WHAT_CONST_VALUE:
    result = parse_value(p, what == WHAT_CONST_VALUE);
    break;
  case WHAT_TYPE:
    result = parse_type_reference(p);
    break;
  default:
    result = parse_schema_coordinate(p);
    break;
  }
  expect(p, GQL_TOK_EOF);
  return result;
}

static int start(parser *p, gql_arena *arena, const char *source, size_t len,
                 bool padded, void *chunk, const gql_parse_options *options,
                 const void *out, gql_syntax_error *err) {
  gql_parse_options o = options ? *options : (gql_parse_options){0};
  size_t max_size = o.max_size ? o.max_size : GQL_DEFAULT_MAX_SIZE;
  if (max_size > UINT32_MAX - 1)
    max_size = UINT32_MAX - 1;
  /* every field but the tokens' (only the current kind is read before a
   * token is lexed) and the jump buffer */
  p->tok.kind = GQL_TOK_SOF;
  p->tok.start = p->tok.end = 0;
  p->has_ahead = false;
  p->fast_lim = p->prev_end = 0;
  p->max_tokens = o.max_tokens ? o.max_tokens : GQL_DEFAULT_MAX_TOKENS;
  p->token_budget = (uint64_t)p->max_tokens + 1;
  p->depth = 0;
  p->max_depth = o.max_depth ? o.max_depth : GQL_DEFAULT_MAX_DEPTH;
  if (p->max_depth > HARD_MAX_DEPTH)
    p->max_depth = HARD_MAX_DEPTH;
  p->arena = arena;
  p->stack = p->first_stack;
  p->sp = 0;
  p->cap = INLINE_STACK;
  p->cur = p->lim = NULL;
  p->chunk = 0;
  if (chunk) {
    p->cur = chunk;
    p->chunk = gql_parse_first_chunk(len);
    p->lim = p->cur + p->chunk;
  }
  p->rc = 0;
  p->message = NULL;
  p->err_offset = 0; /* p->lx is set below, when the source is accepted */
  if (!arena || !out || (!source && (len || padded)))
    return GQL_EINVAL;
  if (len > max_size) {
    if (err) {
      err->message = gql_arena_sprintf(
          arena,
          "Syntax Error: Document exceeds the maximum size of %zu bytes.",
          max_size);
      err->offset = 0;
      err->location = (gql_location){1, 1};
    }
    return GQL_ELIMIT;
  }
  if (padded)
    gql_lexer_init_padded(&p->lx, arena, source, (uint32_t)len);
  else
    gql_lexer_init(&p->lx, arena, source ? source : "", (uint32_t)len);
  p->fast_lim = p->lx.fast_lim;
  return 0;
}

static int finish(parser *p, void *result, gql_syntax_error *err) {
  if (result)
    return 0;
  if (err) {
    err->message = p->message ? p->message : "Out of memory.";
    err->offset = p->err_offset;
    err->location = gql_location_of(p->lx.src, p->lx.len, p->err_offset);
  }
  return p->rc ? p->rc : GQL_ENOMEM;
}

static int parse(gql_arena *arena, const char *source, size_t len, bool padded,
                 void *chunk, const gql_parse_options *options,
                 gql_document **out, gql_syntax_error *err) {
  parser p;
  int rc = start(&p, arena, source, len, padded, chunk, options, out, err);
  if (rc)
    return rc;
  gql_document *doc = run(&p, WHAT_DOCUMENT);
  rc = finish(&p, doc, err);
  if (rc)
    return rc;
  doc->source = (gql_str){p.lx.src, len};
  doc->token_count = (uint32_t)((uint64_t)p.max_tokens + 1 - p.token_budget);
  *out = doc;
  return 0;
}

int gql_parse_syntax(gql_arena *arena, const char *source, size_t len,
                     const gql_parse_options *options, gql_document **out,
                     gql_syntax_error *err) {
  return parse(arena, source, len, false, NULL, options, out, err);
}

int gql_parse(gql_arena *arena, const char *source, size_t len,
              const gql_parse_options *options, gql_document **out,
              gql_errors *errors) {
  gql_syntax_error err = {0};
  if (errors)
    errors->items = NULL, errors->count = 0;
  int rc = parse(arena, source, len, false, NULL, options, out, &err);
  if ((rc == GQL_ESYNTAX || rc == GQL_ELIMIT) && errors && errors->arena)
    gql_errors_set_one(errors, err.message, &err.location);
  return rc;
}

int gql_parse_padded(gql_arena *arena, const char *source, size_t len,
                     const gql_parse_options *options, void *chunk,
                     gql_document **out, gql_syntax_error *err) {
  return parse(arena, source, len, true, chunk, options, out, err);
}

int gql_parse_value(gql_arena *arena, const char *source, size_t len,
                    const gql_parse_options *options, bool const_only,
                    gql_ast_value **out, gql_syntax_error *err) {
  parser p;
  int rc = start(&p, arena, source, len, false, NULL, options, out, err);
  if (rc)
    return rc;
  gql_ast_value *v = run(&p, const_only ? WHAT_CONST_VALUE : WHAT_VALUE);
  rc = finish(&p, v, err);
  if (!rc)
    *out = v;
  return rc;
}

int gql_parse_type(gql_arena *arena, const char *source, size_t len,
                   const gql_parse_options *options, gql_ast_type **out,
                   gql_syntax_error *err) {
  parser p;
  int rc = start(&p, arena, source, len, false, NULL, options, out, err);
  if (rc)
    return rc;
  gql_ast_type *t = run(&p, WHAT_TYPE);
  rc = finish(&p, t, err);
  if (!rc)
    *out = t;
  return rc;
}

int gql_parse_schema_coordinate(gql_arena *arena, const char *source,
                                size_t len, gql_ast_schema_coordinate **out,
                                gql_syntax_error *err) {
  parser p;
  int rc = start(&p, arena, source, len, false, NULL, NULL, out, err);
  if (rc)
    return rc;
  p.lx.coordinate = true;
  p.lx.fast_lim = p.fast_lim = 0;
  gql_ast_schema_coordinate *c = run(&p, WHAT_COORD);
  rc = finish(&p, c, err);
  if (!rc)
    *out = c;
  return rc;
}
