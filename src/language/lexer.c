/*
 * The lexer follows graphql-js 16's lexer.ts token for token so that error
 * messages and their offsets match: the same checks happen in the same
 * order. Positions are byte offsets; the source is UTF-8 and code points are
 * decoded only where a non-ASCII byte appears.
 */
#include "lexer.h"

#include <stdio.h>

static const char *const kind_desc[] = {
#define X(e, d, p) d,
    GQL_TOKEN_KINDS(X)
#undef X
};
static const bool kind_punct[] = {
#define X(e, d, p) p,
    GQL_TOKEN_KINDS(X)
#undef X
};

const char *gql_token_kind_desc(gql_token_kind kind) {
  static const char *const quoted[] = {
#define X(e, d, p) "\"" d "\"",
      GQL_TOKEN_KINDS(X)
#undef X
  };
  if ((unsigned)kind >= GQL_TOK_KIND_COUNT)
    return "?";
  return kind_punct[kind] ? quoted[kind] : kind_desc[kind];
}

/* 1: NameStart, 2: digit (NameContinue is either). */
const uint8_t gql_lex_char_class[256] = {
    ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2,
    ['7'] = 2, ['8'] = 2, ['9'] = 2, ['_'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1,
    ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1,
    ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1,
    ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
    ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1,
    ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

/* Keeps the hot path (names, punctuators) free of the register pressure of
 * the rarer token kinds and of error formatting. */
#define COLD __attribute__((noinline, cold))
#define NOINLINE __attribute__((noinline))

/* Whitespace, line terminators and commas. */
const uint8_t gql_lex_ignored[256] = {
    [' '] = 1, ['\t'] = 1, [','] = 1, ['\n'] = 1, ['\r'] = 1};

/* The one-character punctuators (0: not one). */
const uint8_t gql_lex_punct[256] = {
    ['!'] = GQL_TOK_BANG,      ['$'] = GQL_TOK_DOLLAR,
    ['&'] = GQL_TOK_AMP,       ['('] = GQL_TOK_PAREN_L,
    [')'] = GQL_TOK_PAREN_R,   [':'] = GQL_TOK_COLON,
    ['='] = GQL_TOK_EQUALS,    ['@'] = GQL_TOK_AT,
    ['['] = GQL_TOK_BRACKET_L, [']'] = GQL_TOK_BRACKET_R,
    ['{'] = GQL_TOK_BRACE_L,   ['|'] = GQL_TOK_PIPE,
    ['}'] = GQL_TOK_BRACE_R,
};

/* The first byte of a token, for the inline path: ignored, a punctuator
 * (its token kind) or a NameStart. */
/* clang-format off */
#define LETTERS(X)                                                             \
  X('A') X('B') X('C') X('D') X('E') X('F') X('G') X('H') X('I') X('J')        \
  X('K') X('L') X('M') X('N') X('O') X('P') X('Q') X('R') X('S') X('T')        \
  X('U') X('V') X('W') X('X') X('Y') X('Z') X('a') X('b') X('c') X('d')        \
  X('e') X('f') X('g') X('h') X('i') X('j') X('k') X('l') X('m') X('n')        \
  X('o') X('p') X('q') X('r') X('s') X('t') X('u') X('v') X('w') X('x')        \
  X('y') X('z')
#define NAME_START_(c) [c] = GQL_LEX_NAME_START,
const uint8_t gql_lex_first[256] = {
    LETTERS(NAME_START_)
    ['_'] = GQL_LEX_NAME_START,
    [' '] = GQL_LEX_IGNORED, ['\t'] = GQL_LEX_IGNORED, [','] = GQL_LEX_IGNORED,
    ['\n'] = GQL_LEX_IGNORED, ['\r'] = GQL_LEX_IGNORED,
    ['!'] = GQL_TOK_BANG, ['$'] = GQL_TOK_DOLLAR, ['&'] = GQL_TOK_AMP,
    ['('] = GQL_TOK_PAREN_L, [')'] = GQL_TOK_PAREN_R, [':'] = GQL_TOK_COLON,
    ['='] = GQL_TOK_EQUALS, ['@'] = GQL_TOK_AT, ['['] = GQL_TOK_BRACKET_L,
    [']'] = GQL_TOK_BRACKET_R, ['{'] = GQL_TOK_BRACE_L, ['|'] = GQL_TOK_PIPE,
    ['}'] = GQL_TOK_BRACE_R, ['.'] = GQL_LEX_DOT,
};
#undef NAME_START_
#undef LETTERS
/* clang-format on */

/* Bytes a string scan must stop at: bit 0 in a "string" ('"', '\\', line
 * terminators, non-ASCII), bit 1 in a block string ('"', '\\', non-ASCII).
 * Everything else is taken as is. */
static const uint8_t stop_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
};

/* SWAR over 8 bytes where the byte order allows: a mask with the high bit
 * of each byte set where the byte equals c. Bits above the lowest match
 * may be false positives (borrows), so only the lowest set bit is used. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR 1
static inline uint64_t swar_eq(uint64_t x, unsigned c) {
  uint64_t v = x ^ (0x0101010101010101ull * c);
  return (v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull;
}
#endif

/* The first byte at or after pos that a string scan stops at: '"', '\\',
 * non-ASCII and, in a "string", line terminators. */
static inline uint32_t scan_string(const unsigned char *s, uint32_t pos,
                                   uint32_t len, bool block) {
#ifdef SWAR
  while (pos + 8 <= len) {
    uint64_t x;
    memcpy(&x, s + pos, 8);
    uint64_t m =
        (x & 0x8080808080808080ull) | swar_eq(x, '"') | swar_eq(x, '\\');
    if (!block)
      m |= swar_eq(x, '\n') | swar_eq(x, '\r');
    if (m)
      return pos + ((uint32_t)__builtin_ctzll(m) >> 3);
    pos += 8;
  }
#endif
  uint8_t bit = block ? 2 : 1;
  while (pos < len && !(stop_class[s[pos]] & bit))
    pos++;
  return pos;
}

void gql_lexer_init(gql_lexer *lx, gql_arena *arena, const char *src,
                    uint32_t len) {
  const unsigned char *s = (const unsigned char *)src;
  /* the stopper is never the last byte: the inline path may read one byte
   * past it */
  uint32_t lim = len ? len - 1 : 0;
  while (lim > 0 &&
         (gql_lex_ignored[s[lim - 1]] || gql_lex_char_class[s[lim - 1]]))
    lim--;
  *lx = (gql_lexer){.src = src, .len = len, .fast_lim = lim, .arena = arena};
}

/* ---- code points */

enum { CP_EOF, CP_OK, CP_SURROGATE, CP_BAD };

/* Decodes the character at pos. A UTF-8-encoded surrogate (ED A0..BF xx)
 * is reported as CP_SURROGATE with its value so that messages name it as
 * graphql-js names a lone surrogate; any other malformed byte is CP_BAD. */
static int decode_at(const gql_lexer *lx, uint32_t pos, uint32_t *cp,
                     uint32_t *size) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t n = lx->len - pos;
  if (pos >= lx->len)
    return CP_EOF;
  unsigned c = s[pos];
  *cp = c;
  *size = 1;
  if (c < 0x80)
    return CP_OK;
  unsigned lo = 0x80, hi = 0xBF, need;
  uint32_t v;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1, v = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2, v = c & 0x0F;
    if (c == 0xE0)
      lo = 0xA0;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3, v = c & 0x07;
    if (c == 0xF0)
      lo = 0x90;
    if (c == 0xF4)
      hi = 0x8F;
  } else {
    return CP_BAD;
  }
  if (n <= need)
    return CP_BAD;
  if (s[pos + 1] < lo || s[pos + 1] > hi)
    return CP_BAD;
  for (unsigned i = 1; i <= need; i++) {
    if ((s[pos + i] & 0xC0) != 0x80)
      return CP_BAD;
    v = (v << 6) | (s[pos + i] & 0x3F);
  }
  *cp = v;
  *size = need + 1;
  return v >= 0xD800 && v <= 0xDFFF ? CP_SURROGATE : CP_OK;
}

/* ---- errors */

static COLD int failv(gql_lexer *lx, uint32_t offset, const char *fmt,
                      va_list ap) {
  char body[256];
  vsnprintf(body, sizeof body, fmt, ap);
  lx->err_offset = offset;
  lx->message = gql_arena_sprintf(lx->arena, "Syntax Error: %s", body);
  lx->err = lx->message ? GQL_ESYNTAX : GQL_ENOMEM;
  return lx->err;
}

static int fail(gql_lexer *lx, uint32_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static COLD int fail(gql_lexer *lx, uint32_t offset, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = failv(lx, offset, fmt, ap);
  va_end(ap);
  return rc;
}

/* graphql-js printCodePointAt: <EOF>, "c" for printable ASCII ('"' for a
 * double quote), else U+XXXX.
 * A malformed UTF-8 byte has no code point: the message then names the
 * byte instead, whatever the context. */
static COLD int fail_char(gql_lexer *lx, uint32_t pos, const char *prefix) {
  uint32_t cp, size;
  switch (decode_at(lx, pos, &cp, &size)) {
  case CP_EOF:
    return fail(lx, pos, "%s<EOF>.", prefix);
  case CP_BAD:
    return fail(lx, pos, "Invalid UTF-8 byte 0x%02X.", (unsigned)cp);
  default:
    if (cp == '"')
      return fail(lx, pos, "%s'\"'.", prefix);
    if (cp >= 0x20 && cp <= 0x7E)
      return fail(lx, pos, "%s\"%c\".", prefix, (char)cp);
    return fail(lx, pos, "%sU+%04X.", prefix, (unsigned)cp);
  }
}

/* A character inside a string that is not a source character. */
static COLD int fail_in_string(gql_lexer *lx, uint32_t pos) {
  return fail_char(lx, pos, "Invalid character within String: ");
}

/* src[pos .. pos + chars characters), clamped to the source, for messages
 * that quote a slice as graphql-js body.slice() does. */
static COLD int fail_escape(gql_lexer *lx, uint32_t pos, uint32_t chars,
                            const char *what) {
  uint32_t end = pos, cp, size;
  for (uint32_t i = 0; i < chars && end < lx->len; i++) {
    decode_at(lx, end, &cp, &size);
    end += size;
  }
  return fail(lx, pos, "%s: \"%.*s\".", what, (int)(end - pos), lx->src + pos);
}

/* ---- tokens */

static inline int make(gql_lexer *lx, gql_token *tok, int kind, uint32_t start,
                       uint32_t end) {
  tok->kind = (uint8_t)kind;
  tok->start = start;
  tok->end = end;
  tok->value = (gql_str){NULL, 0};
  lx->pos = end;
  return 0;
}

static int lex_name(gql_lexer *lx, gql_token *tok, uint32_t start) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t pos = start + 1, len = lx->len;
  while (pos < len && gql_lex_char_class[s[pos]])
    pos++;
  make(lx, tok, GQL_TOK_NAME, start, pos);
  tok->value = (gql_str){lx->src + start, pos - start};
  return 0;
}

/* Digits at pos, at least one (graphql-js readDigits). */
static int read_digits(gql_lexer *lx, uint32_t *pos) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t p = *pos;
  if (p >= lx->len || !gql_is_digit(s[p]))
    return fail_char(lx, p, "Invalid number, expected digit but got: ");
  p++;
  while (p < lx->len && gql_is_digit(s[p]))
    p++;
  *pos = p;
  return 0;
}

static NOINLINE int lex_number(gql_lexer *lx, gql_token *tok, uint32_t start) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t pos = start, len = lx->len;
  bool is_float = false;
  int rc;
  if (s[pos] == '-')
    pos++;
  if (pos < len && s[pos] == '0') {
    pos++;
    if (pos < len && gql_is_digit(s[pos]))
      return fail_char(lx, pos, "Invalid number, unexpected digit after 0: ");
  } else if ((rc = read_digits(lx, &pos))) {
    return rc;
  }
  if (pos < len && s[pos] == '.') {
    is_float = true;
    pos++;
    if ((rc = read_digits(lx, &pos)))
      return rc;
  }
  if (pos < len && (s[pos] == 'e' || s[pos] == 'E')) {
    is_float = true;
    pos++;
    if (pos < len && (s[pos] == '+' || s[pos] == '-'))
      pos++;
    if ((rc = read_digits(lx, &pos)))
      return rc;
  }
  if (pos < len && (s[pos] == '.' || gql_lex_char_class[s[pos]] == 1))
    return fail_char(lx, pos, "Invalid number, expected digit but got: ");
  make(lx, tok, is_float ? GQL_TOK_FLOAT : GQL_TOK_INT, start, pos);
  tok->value = (gql_str){lx->src + start, pos - start};
  return 0;
}

static int hex_digit(const gql_lexer *lx, uint32_t pos) {
  if (pos >= lx->len)
    return -1;
  unsigned c = (unsigned char)lx->src[pos];
  if (c - '0' < 10)
    return (int)(c - '0');
  if (c - 'A' < 6)
    return (int)(c - 'A' + 10);
  if (c - 'a' < 6)
    return (int)(c - 'a' + 10);
  return -1;
}

/* Four hex digits at pos, or -1. */
static int32_t hex16(const gql_lexer *lx, uint32_t pos) {
  int a = hex_digit(lx, pos), b = hex_digit(lx, pos + 1);
  int c = hex_digit(lx, pos + 2), d = hex_digit(lx, pos + 3);
  if ((a | b | c | d) < 0)
    return -1;
  return (a << 12) | (b << 8) | (c << 4) | d;
}

static inline bool is_scalar(int64_t cp) {
  return (cp >= 0 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0x10FFFF);
}

/* Decodes the escape sequence at pos (a backslash) into out; sets *size to
 * the bytes of source consumed and returns the bytes written. */
static int read_escape(gql_lexer *lx, uint32_t pos, char *out, uint32_t *size,
                       uint32_t *written) {
  const char *s = lx->src;
  char next = pos + 1 < lx->len ? s[pos + 1] : 0;
  if (next == 'u' && pos + 2 < lx->len && s[pos + 2] == '{') {
    /* \u{...}: at most 12 characters (\u{00000000}). */
    uint32_t point = 0, n = 3;
    while (n < 12) {
      uint32_t at = pos + n++;
      if (at < lx->len && s[at] == '}') {
        if (n < 5 || !is_scalar(point))
          break;
        *size = n;
        *written = (uint32_t)gql_utf8_encode(point, out);
        return 0;
      }
      int d = hex_digit(lx, at);
      point = (point << 4) | (uint32_t)d;
      if (d < 0 || (int32_t)point < 0)
        break;
    }
    return fail_escape(lx, pos, n, "Invalid Unicode escape sequence");
  }
  if (next == 'u') {
    int32_t code = hex16(lx, pos + 2);
    if (code >= 0 && is_scalar(code)) {
      *size = 6;
      *written = (uint32_t)gql_utf8_encode((uint32_t)code, out);
      return 0;
    }
    if (code >= 0xD800 && code <= 0xDBFF && pos + 7 < lx->len &&
        s[pos + 6] == '\\' && s[pos + 7] == 'u') {
      int32_t trail = hex16(lx, pos + 8);
      if (trail >= 0xDC00 && trail <= 0xDFFF) {
        uint32_t cp = 0x10000 + (((uint32_t)code - 0xD800) << 10) +
                      ((uint32_t)trail - 0xDC00);
        *size = 12;
        *written = (uint32_t)gql_utf8_encode(cp, out);
        return 0;
      }
    }
    return fail_escape(lx, pos, 6, "Invalid Unicode escape sequence");
  }
  char c;
  switch (next) {
  case '"':
    c = '"';
    break;
  case '\\':
    c = '\\';
    break;
  case '/':
    c = '/';
    break;
  case 'b':
    c = '\b';
    break;
  case 'f':
    c = '\f';
    break;
  case 'n':
    c = '\n';
    break;
  case 'r':
    c = '\r';
    break;
  case 't':
    c = '\t';
    break;
  default:
    return fail_escape(lx, pos, 2, "Invalid character escape sequence");
  }
  *out = c;
  *size = 2;
  *written = 1;
  return 0;
}

/* A string with escapes: a first pass finds where it can end (escapes
 * skipped), so that the decoded copy is allocated once with a bound; the
 * second pass decodes and reports errors in source order. */
static NOINLINE int lex_escaped_string(gql_lexer *lx, gql_token *tok,
                                       uint32_t start, uint32_t pos) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t len = lx->len, bound = pos;
  while (bound < len) {
    unsigned c = s[bound];
    if (c == '"' || c == '\n' || c == '\r')
      break;
    bound += c == '\\' ? 2 : 1;
  }
  if (bound > len)
    bound = len;
  char *out = gql_arena_alloc(lx->arena, bound - start + 4);
  if (!out)
    return lx->err = GQL_ENOMEM;
  uint32_t o = 0, p = start + 1, cp, size = 0, written = 0;
  while (p < bound) {
    unsigned c = s[p];
    if (c == '\\') {
      int rc = read_escape(lx, p, out + o, &size, &written);
      if (rc)
        return rc;
      p += size;
      o += written;
    } else if (c < 0x80) {
      out[o++] = (char)c;
      p++;
    } else if (decode_at(lx, p, &cp, &size) == CP_OK) {
      memcpy(out + o, s + p, size);
      o += size;
      p += size;
    } else {
      return fail_in_string(lx, p);
    }
  }
  /* An escape may have run past a bound that was not a quote. */
  if (p > bound)
    bound = p;
  if (bound >= len || s[bound] != '"')
    return fail(lx, bound, "Unterminated string.");
  make(lx, tok, GQL_TOK_STRING, start, bound + 1);
  tok->value = (gql_str){out, o};
  return 0;
}

static NOINLINE int lex_string(gql_lexer *lx, gql_token *tok, uint32_t start) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t pos = start + 1, len = lx->len, cp, size;
  for (;;) {
    pos = scan_string(s, pos, len, false);
    if (GQL_UNLIKELY(pos >= len))
      return fail(lx, pos, "Unterminated string.");
    unsigned c = s[pos];
    if (c == '"')
      break;
    if (c == '\\')
      return lex_escaped_string(lx, tok, start, pos);
    if (c == '\n' || c == '\r')
      return fail(lx, pos, "Unterminated string.");
    /* the other stops are the non-ASCII bytes */
    if (decode_at(lx, pos, &cp, &size) != CP_OK)
      return fail_in_string(lx, pos);
    pos += size;
  }
  make(lx, tok, GQL_TOK_STRING, start, pos + 1);
  tok->value = (gql_str){lx->src + start + 1, pos - start - 1};
  return 0;
}

static inline bool is_triple_quote(const gql_lexer *lx, uint32_t pos) {
  return pos + 2 < lx->len && lx->src[pos] == '"' && lx->src[pos + 1] == '"' &&
         lx->src[pos + 2] == '"';
}

static NOINLINE int lex_block_string(gql_lexer *lx, gql_token *tok,
                                     uint32_t start) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t pos = start + 3, len = lx->len, cp, size;
  bool escaped = false;
  for (;;) {
    pos = scan_string(s, pos, len, true);
    if (pos >= len)
      return fail(lx, pos, "Unterminated string.");
    unsigned c = s[pos];
    if (c == '"' && is_triple_quote(lx, pos))
      break;
    if (c == '\\' && is_triple_quote(lx, pos + 1)) {
      escaped = true;
      pos += 4;
    } else if (c < 0x80) {
      pos++;
    } else if (decode_at(lx, pos, &cp, &size) == CP_OK) {
      pos += size;
    } else {
      return fail_in_string(lx, pos);
    }
  }
  gql_str raw = {lx->src + start + 3, pos - start - 3};
  if (escaped) {
    char *copy = gql_arena_alloc(lx->arena, raw.len + 1);
    if (!copy)
      return lx->err = GQL_ENOMEM;
    size_t o = 0;
    for (size_t i = 0; i < raw.len; i++) {
      if (raw.ptr[i] == '\\' && i + 3 < raw.len && raw.ptr[i + 1] == '"' &&
          raw.ptr[i + 2] == '"' && raw.ptr[i + 3] == '"') {
        memcpy(copy + o, "\"\"\"", 3);
        o += 3;
        i += 3;
      } else {
        copy[o++] = raw.ptr[i];
      }
    }
    raw = (gql_str){copy, o};
  }
  make(lx, tok, GQL_TOK_BLOCK_STRING, start, pos + 3);
  if (gql_block_string_value(lx->arena, raw, &tok->value))
    return lx->err = GQL_ENOMEM;
  return 0;
}

/* The end of the line starting at i, and where the next one starts. */
/* The first line terminator at or after i, or n. */
static inline size_t find_eol(const char *p, size_t i, size_t n) {
#ifdef SWAR
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, p + i, 8);
    uint64_t m = swar_eq(x, '\n') | swar_eq(x, '\r');
    if (m)
      return i + ((size_t)__builtin_ctzll(m) >> 3);
  }
#endif
  while (i < n && p[i] != '\n' && p[i] != '\r')
    i++;
  return i;
}

static inline size_t line_end(gql_str s, size_t i, size_t *next) {
  i = find_eol(s.ptr, i, s.len);
  if (i + 1 < s.len && s.ptr[i] == '\r' && s.ptr[i + 1] == '\n')
    *next = i + 2;
  else
    *next = i + 1;
  return i;
}

static size_t leading_ws(gql_str s, size_t i, size_t end) {
  size_t n = 0;
  while (i + n < end && (s.ptr[i + n] == ' ' || s.ptr[i + n] == '\t'))
    n++;
  return n;
}

/* The bounds of the first lines, kept by the first pass so that the copy
 * does not scan them again. */
enum { KEPT_LINES = 64 };

int gql_block_string_value(gql_arena *arena, gql_str raw, gql_str *out) {
  size_t common = SIZE_MAX, first = SIZE_MAX, last = 0, line = 0, next;
  uint32_t starts[KEPT_LINES], ends[KEPT_LINES], nexts[KEPT_LINES];
  bool any = false, multi = false;
  for (size_t i = 0; i <= raw.len; i = next, line++) {
    size_t end = line_end(raw, i, &next);
    if (line < KEPT_LINES) {
      starts[line] = (uint32_t)i;
      ends[line] = (uint32_t)end;
      nexts[line] = (uint32_t)next;
    }
    if (end < raw.len)
      multi = true;
    size_t indent = leading_ws(raw, i, end);
    if (indent != end - i) {
      if (!any)
        first = line;
      any = true;
      last = line;
      if (line != 0 && indent < common)
        common = indent;
    }
  }
  if (!any) {
    *out = (gql_str){raw.ptr, 0};
    return 0;
  }
  if (!multi) {
    *out = raw;
    return 0;
  }
  if (first == last && first < KEPT_LINES) {
    /* one line of text (a description between lines of its own): the
     * value is a slice of the source */
    size_t i = starts[first], end = ends[first], from = i;
    if (first != 0)
      from = end - i < common ? end : i + common;
    *out = (gql_str){raw.ptr + from, end - from};
    return 0;
  }
  char *buf = gql_arena_alloc(arena, raw.len + 1);
  if (!buf)
    return GQL_ENOMEM;
  size_t o = 0;
  line = first;
  size_t i = first < KEPT_LINES ? starts[first] : 0;
  if (first >= KEPT_LINES) /* find the first line again */
    for (size_t l = 0; l < first; l++, i = next)
      line_end(raw, i, &next);
  for (; line <= last; i = next, line++) {
    size_t end;
    if (line < KEPT_LINES) {
      end = ends[line];
      next = nexts[line];
    } else {
      end = line_end(raw, i, &next);
    }
    if (line > first)
      buf[o++] = '\n';
    size_t from = i;
    if (line != 0)
      from = end - i < common ? end : i + common;
    memcpy(buf + o, raw.ptr + from, end - from);
    o += end - from;
  }
  *out = (gql_str){buf, o};
  return 0;
}

static NOINLINE int lex_comment(gql_lexer *lx, gql_token *tok, uint32_t start) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t pos = start + 1, len = lx->len, cp, size;
  while (pos < len) {
    unsigned c = s[pos];
    if (c == '\n' || c == '\r')
      break;
    if (c < 0x80)
      pos++;
    else if (decode_at(lx, pos, &cp, &size) == CP_OK)
      pos += size;
    else
      break;
  }
  make(lx, tok, GQL_TOK_COMMENT, start, pos);
  tok->value = (gql_str){lx->src + start + 1, pos - start - 1};
  return 0;
}

static NOINLINE int unexpected_char(gql_lexer *lx, uint32_t pos) {
  uint32_t cp, size;
  if (lx->src[pos] == '\'')
    return fail(lx, pos,
                "Unexpected single quote character ('), did you mean to use "
                "a double quote (\")?");
  if (decode_at(lx, pos, &cp, &size) == CP_SURROGATE)
    return fail_char(lx, pos, "Invalid character: ");
  return fail_char(lx, pos, "Unexpected character: ");
}

/* Schema coordinates allow no ignored tokens (graphql-js 17
 * SchemaCoordinateLexer). */
static NOINLINE int next_coordinate(gql_lexer *lx, gql_token *tok) {
  uint32_t pos = lx->pos;
  if (pos >= lx->len)
    return make(lx, tok, GQL_TOK_EOF, lx->len, lx->len);
  unsigned char c = (unsigned char)lx->src[pos];
  switch (c) {
  case '.':
    return make(lx, tok, GQL_TOK_DOT, pos, pos + 1);
  case '(':
    return make(lx, tok, GQL_TOK_PAREN_L, pos, pos + 1);
  case ')':
    return make(lx, tok, GQL_TOK_PAREN_R, pos, pos + 1);
  case ':':
    return make(lx, tok, GQL_TOK_COLON, pos, pos + 1);
  case '@':
    return make(lx, tok, GQL_TOK_AT, pos, pos + 1);
  }
  if (gql_lex_char_class[c] == 1)
    return lex_name(lx, tok, pos);
  return fail_char(lx, pos, "Invalid character: ");
}

/* Every token kind, after ignored tokens from pos. */
static int lex_general(gql_lexer *lx, gql_token *tok, uint32_t pos) {
  const unsigned char *s = (const unsigned char *)lx->src;
  uint32_t len = lx->len;
  for (;;) {
    while (pos < len && gql_lex_ignored[s[pos]]) {
      if (s[pos++] == '\n')
        pos = gql_lex_skip_spaces(s, pos, len);
    }
    if (pos >= len)
      return make(lx, tok, GQL_TOK_EOF, len, len);
    unsigned c = s[pos];
    /* Names and one-character punctuators are most tokens: a table lookup
     * and a name scan inline, everything else through the switch. */
    if (gql_lex_char_class[c] == 1) {
      uint32_t end = pos + 1;
      while (end < len && gql_lex_char_class[s[end]])
        end++;
      make(lx, tok, GQL_TOK_NAME, pos, end);
      tok->value = (gql_str){lx->src + pos, end - pos};
      return 0;
    }
    if (gql_lex_punct[c])
      return make(lx, tok, gql_lex_punct[c], pos, pos + 1);
    switch (c) {
    case 0xEF:
      if (pos + 2 < len && s[pos + 1] == 0xBB && s[pos + 2] == 0xBF) {
        pos += 3;
        continue;
      }
      break;
    case '#':
      lex_comment(lx, tok, pos);
      if (lx->comments)
        return 0;
      pos = tok->end;
      continue;
    case '.':
      if (pos + 2 < len && s[pos + 1] == '.' && s[pos + 2] == '.')
        return make(lx, tok, GQL_TOK_SPREAD, pos, pos + 3);
      break;
    case '"':
      if (is_triple_quote(lx, pos))
        return lex_block_string(lx, tok, pos);
      return lex_string(lx, tok, pos);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
      return lex_number(lx, tok, pos);
    default:
      break;
    }
    lx->pos = pos;
    return unexpected_char(lx, pos);
  }
}

/* The parser lexes names and punctuators inline (gql_lexer_next_fast);
 * this is the rest of its tokens and the whole of the public lexer. */
int gql_lexer_next(gql_lexer *lx, gql_token *tok) {
  if (GQL_UNLIKELY(lx->err))
    return lx->err;
  if (GQL_UNLIKELY(lx->coordinate))
    return next_coordinate(lx, tok);
  return lex_general(lx, tok, lx->pos);
}
