/*
 * The GraphQL lexer (September 2025 spec, graphql-js 16 behaviour and
 * messages). It reads UTF-8 bytes and hands out one significant token at a
 * time; whitespace, commas, the BOM and comments are skipped. Names and
 * numbers are slices of the source; string values are slices when they hold
 * no escape, else decoded copies in the arena.
 */
#ifndef GQL_LEXER_H
#define GQL_LEXER_H

#include "../core/core.h"

/* X(ENUM_SUFFIX, graphql-js getTokenKindDesc text, is punctuator). */
#define GQL_TOKEN_KINDS(X)                                                     \
  X(SOF, "<SOF>", 0)                                                           \
  X(EOF, "<EOF>", 0)                                                           \
  X(BANG, "!", 1)                                                              \
  X(DOLLAR, "$", 1)                                                            \
  X(AMP, "&", 1)                                                               \
  X(PAREN_L, "(", 1)                                                           \
  X(PAREN_R, ")", 1)                                                           \
  X(DOT, ".", 1)                                                               \
  X(SPREAD, "...", 1)                                                          \
  X(COLON, ":", 1)                                                             \
  X(EQUALS, "=", 1)                                                            \
  X(AT, "@", 1)                                                                \
  X(BRACKET_L, "[", 1)                                                         \
  X(BRACKET_R, "]", 1)                                                         \
  X(BRACE_L, "{", 1)                                                           \
  X(PIPE, "|", 1)                                                              \
  X(BRACE_R, "}", 1)                                                           \
  X(NAME, "Name", 0)                                                           \
  X(INT, "Int", 0)                                                             \
  X(FLOAT, "Float", 0)                                                         \
  X(STRING, "String", 0)                                                       \
  X(BLOCK_STRING, "BlockString", 0)                                            \
  X(COMMENT, "Comment", 0)

typedef enum gql_token_kind {
#define GQL_TOKEN_ENUM_(e, d, p) GQL_TOK_##e,
  GQL_TOKEN_KINDS(GQL_TOKEN_ENUM_)
#undef GQL_TOKEN_ENUM_
      GQL_TOK_KIND_COUNT
} gql_token_kind;

typedef struct gql_token {
  uint8_t kind;   /* gql_token_kind */
  uint32_t start; /* byte offset of the first byte */
  uint32_t end;   /* byte offset just past the token */
  /* NAME, INT, FLOAT: the text; STRING, BLOCK_STRING: the decoded value;
   * COMMENT: the text after '#'; punctuators: empty. */
  gql_str value;
} gql_token;

typedef struct gql_lexer {
  const char *src;
  /* pos is written at the end of every token and read at the start of the
   * next: it does not share 8 bytes with len, or a wide load of len would
   * stall on the narrow store to pos. */
  uint32_t pos; /* where the next token is read from */
  uint32_t pad_;
  uint32_t len;
  bool coordinate;     /* schema-coordinate mode: no ignored tokens, '.' */
  bool comments;       /* hand out COMMENT tokens instead of skipping */
  gql_arena *arena;    /* decoded strings and error messages */
  const char *message; /* on error: "Syntax Error: ..." in the arena */
  uint32_t err_offset;
  int err; /* GQL_ESYNTAX or GQL_ENOMEM once failed */
} gql_lexer;

/* "Name", "\"{\"", "<EOF>" as graphql-js getTokenKindDesc. */
const char *gql_token_kind_desc(gql_token_kind kind);

/* Starts lexing src[0..len) (len must fit in 32 bits). */
void gql_lexer_init(gql_lexer *lx, gql_arena *arena, const char *src,
                    uint32_t len);

/* Reads the next token into *tok. Returns 0, or GQL_ESYNTAX with
 * lx->message and lx->err_offset set, or GQL_ENOMEM. After EOF it keeps
 * returning EOF. */
int gql_lexer_next(gql_lexer *lx, gql_token *tok);

/* graphql-js dedentBlockStringLines() over the raw lines of a block string
 * body (escapes already resolved), joined with '\n'. The result lives in
 * the arena, or is a slice of `raw` when nothing changes. */
int gql_block_string_value(gql_arena *arena, gql_str raw, gql_str *out);

#endif
