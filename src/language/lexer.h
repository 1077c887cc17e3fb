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
  /* 1 + the offset of the last byte before the final one that is neither
   * ignored nor part of a name (0 when there is none): the stopper of the
   * scans of gql_lexer_next_fast(), which works below it. */
  uint32_t fast_lim;
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

/* The same for a source followed by two readable bytes, the first NUL
 * (see gql_parse_padded): that NUL is the inline path's stopper. */
static inline void gql_lexer_init_padded(gql_lexer *lx, gql_arena *arena,
                                         const char *src, uint32_t len) {
  assert(src[len] == '\0');
  *lx = (gql_lexer){.src = src, .len = len, .fast_lim = len, .arena = arena};
}

/* Reads the next token into *tok. Returns 0, or GQL_ESYNTAX with
 * lx->message and lx->err_offset set, or GQL_ENOMEM. After EOF it keeps
 * returning EOF. */
int gql_lexer_next(gql_lexer *lx, gql_token *tok);

/* graphql-js dedentBlockStringLines() over the raw lines of a block string
 * body (escapes already resolved), joined with '\n'. The result lives in
 * the arena, or is a slice of `raw` when nothing changes. */
int gql_block_string_value(gql_arena *arena, gql_str raw, gql_str *out);

/* ---- the hot path, inlined into the parser */

/* Hidden: libgql is built position-independent, and a default-visibility
 * table would be reached through the GOT, one more load per use. */
#define GQL_LEX_TABLE extern __attribute__((visibility("hidden"))) const uint8_t

/* 1: NameStart, 2: digit (NameContinue is either). */
GQL_LEX_TABLE gql_lex_char_class[256];
/* 1: whitespace, line terminators and commas. */
GQL_LEX_TABLE gql_lex_ignored[256];
/* The token kind of a one-character punctuator, else 0. */
GQL_LEX_TABLE gql_lex_punct[256];
/* All three for the first byte of a token: a punctuator's token kind in
 * the low bits, or one of these flags. */
enum {
  GQL_LEX_KIND_MASK = 0x1F,
  GQL_LEX_DOT = 0x20,
  GQL_LEX_NAME_START = 0x40,
  GQL_LEX_IGNORED = 0x80
};
GQL_LEX_TABLE gql_lex_first[256];

/* The indentation after a newline, eight bytes at a time where the byte
 * order allows: a byte of x ^ 0x20.. is zero exactly where s has a space. */
static inline uint32_t gql_lex_skip_spaces(const unsigned char *s, uint32_t pos,
                                           uint32_t len) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (pos + 8 <= len) {
    uint64_t x;
    memcpy(&x, s + pos, 8);
    x ^= 0x2020202020202020ull;
    uint64_t nonzero =
        (((x & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | x) &
        0x8080808080808080ull;
    if (nonzero)
      return pos + ((uint32_t)__builtin_ctzll(nonzero) >> 3);
    pos += 8;
  }
#endif
  while (pos < len && s[pos] == ' ')
    pos++;
  return pos;
}

/* The common tokens (names and one-character punctuators after ignored
 * bytes) without a call: scans need no bounds check because they run only
 * below lx->fast_lim, and a byte at or past it that neither scan accepts
 * stops them (see gql_lexer_init). Returns false, with lx->pos past the
 * ignored bytes, for everything else; gql_lexer_next then takes over. Does
 * not set the value of punctuators, nor check lx->err or lx->coordinate. */
static inline bool gql_lexer_next_fast(gql_lexer *lx, gql_token *tok) {
  const unsigned char *s = (const unsigned char *)lx->src;
  if (GQL_UNLIKELY(lx->pos >= lx->fast_lim))
    return false;
  /* Pointers, not 32-bit offsets, in the byte loops: no zero-extension
   * and address add per byte. */
  const unsigned char *q = s + lx->pos;
  while (gql_lex_ignored[*q]) {
    q++;
    /* indentation two spaces a compare (the byte after the stopper
     * exists, see gql_lexer_init) */
    uint16_t two;
    while ((memcpy(&two, q, 2), two == 0x2020))
      q += 2;
  }
  uint32_t pos = (uint32_t)(q - s);
  unsigned k = gql_lex_first[*q];
  if (k & GQL_LEX_KIND_MASK) {
    tok->kind = (uint8_t)k;
    tok->start = pos;
    tok->end = pos + 1;
    lx->pos = pos + 1;
    return true;
  }
  if (k & GQL_LEX_NAME_START) {
    const unsigned char *e = q + 1;
    for (;;) {
      if (!gql_lex_char_class[e[0]])
        break;
      if (!gql_lex_char_class[e[1]]) {
        e += 1;
        break;
      }
      if (!gql_lex_char_class[e[2]]) {
        e += 2;
        break;
      }
      if (!gql_lex_char_class[e[3]]) {
        e += 3;
        break;
      }
      e += 4;
    }
    uint32_t end = (uint32_t)(e - s);
    tok->kind = GQL_TOK_NAME;
    tok->start = pos;
    tok->end = end;
    tok->value = (gql_str){(const char *)q, end - pos};
    lx->pos = end;
    return true;
  }
  /* '.' from the table: the byte itself is not kept live through the
   * ignored-byte loop (one register move a byte). */
  if ((k & GQL_LEX_DOT) && pos + 2 < lx->len && q[1] == '.' && q[2] == '.') {
    tok->kind = GQL_TOK_SPREAD;
    tok->start = pos;
    tok->end = pos + 3;
    lx->pos = pos + 3;
    return true;
  }
  lx->pos = pos;
  return false;
}

#endif
