/*
 * JSON: a strict RFC 8259 reader into arena values and a writer that
 * prints exactly what JavaScript's JSON.stringify prints.
 *
 * The reader makes one pass over the text with an explicit stack (no
 * recursion), allocates only from the arena (plus one scratch stack that
 * is reused for the whole document), and keeps strings without escapes as
 * slices of the source, which must then outlive the values.
 *
 * Memory: a value takes 32 bytes of arena and a member 48, so a document
 * such as [0,0,0,...] costs about 16 arena bytes per byte of text, plus a
 * transient scratch stack of up to 24 per byte. Bound both with max_size
 * and gql_arena_set_limit (an exhausted arena gives GQL_ENOMEM).
 */
#ifndef GQL_JSON_H
#define GQL_JSON_H

#include "../core/core.h"

typedef enum gql_json_kind {
  GQL_JSON_NULL,
  GQL_JSON_BOOL,
  GQL_JSON_NUMBER,
  GQL_JSON_STRING,
  GQL_JSON_ARRAY,
  GQL_JSON_OBJECT
} gql_json_kind;

typedef struct gql_json_value gql_json_value;
typedef struct gql_json_member gql_json_member;
/* A hash index over an object's members (see gql_json_get). */
typedef struct gql_json_index gql_json_index;

struct gql_json_value {
  uint8_t kind; /* gql_json_kind */
  /* NUMBER: the value is an integer (as Number.isInteger says) that fits
   * int64, and `number.i` holds it. For an integer literal such as
   * 9007199254740993, `i` is exact while `d` is the nearest double. */
  bool is_int;
  /* STRING: the text is a slice of the parsed source without escapes, so
   * valid UTF-8 holding nothing that JSON.stringify escapes: written back
   * as `"` + the bytes + `"`. False for built values. */
  bool verbatim;
  union {
    bool boolean;
    struct {
      double d;
      int64_t i; /* valid when is_int */
    } number;
    gql_str string; /* UTF-8, may contain NUL bytes (from \u0000) */
    struct {
      gql_json_value *items;
      size_t count;
    } array;
    struct {
      gql_json_member *members; /* in document order, duplicates kept */
      size_t count;
      const gql_json_index *index; /* NULL: lookups scan */
    } object;
  };
};

struct gql_json_member {
  gql_str key;
  gql_json_value value;
};

/* ------------------------------------------------------------- reader */

#define GQL_JSON_DEFAULT_MAX_DEPTH 512u
#define GQL_JSON_DEFAULT_MAX_SIZE ((size_t)64 << 20)

/* Zero in a field means the default. */
typedef struct gql_json_options {
  uint32_t max_depth; /* nesting of arrays and objects; default 512 */
  size_t max_size;    /* bytes of text; default 64 MiB */
  /* Allocator for the parser's scratch stack (NULL: libc). Values always
   * go to the arena. Small documents need no scratch allocation. */
  const gql_allocator *alc;
} gql_json_options;

/* `message` reads like "Unexpected character '}' at line 1, column 7";
 * `offset` is the byte offset of the offending character and `location`
 * its line and column (columns in UTF-16 units, as gql_location_of). */
typedef struct gql_json_error {
  char message[160];
  size_t offset;
  gql_location location;
} gql_json_error;

/* Parses one JSON text (any value at the root, surrounded by optional
 * whitespace). Returns 0 and sets *out, or GQL_EJSON (syntax), GQL_ELIMIT
 * (depth or size) or GQL_ENOMEM, with *err filled when not NULL. */
int gql_json_parse(gql_arena *arena, const char *src, size_t len,
                   const gql_json_options *options, gql_json_value **out,
                   gql_json_error *err);

/* The member value named `key` in object `obj` (the last one when the key
 * repeats, as JSON.parse), or NULL when absent or `obj` is not an object.
 * Parsed objects with more than 16 members carry a hash index; others are
 * scanned. */
const gql_json_value *gql_json_get(const gql_json_value *obj, gql_str key);

/* Builds the hash index of an object made by hand (a parsed object already
 * has one when it is big enough). 0 or GQL_ENOMEM. */
int gql_json_object_index(gql_arena *arena, gql_json_value *obj);

/* Structural equality: same kinds, numbers equal as doubles, same strings,
 * same members in the same order. */
bool gql_json_equal(const gql_json_value *a, const gql_json_value *b);
/* The same JSON value as a reader of it sees it: objects as sets of keys
 * (in any order, the last of a repeated key), arrays in order, numbers by
 * value (two integers exactly). Recursive: for values no deeper than the
 * parser's limits (gql_json_options.max_depth). */
bool gql_json_same(const gql_json_value *a, const gql_json_value *b);

/* ------------------------------------------------------------- writer */

/* The writers append to `buf`; a failed allocation sets buf->failed and
 * drops what follows, so a caller checks once at the end. */

/* A JSON string in quotes, escaped as JSON.stringify does: \" \\ \b \f \n
 * \r \t, other control characters as \u00xx, everything else (U+2028 and
 * U+2029 included) as is. Invalid UTF-8 becomes U+FFFD. */
void gql_json_write_string(gql_buf *buf, gql_str s);
/* `"key":`, a response key as a JSON member prefix, in `arena`: a GraphQL
 * name is copied as it is checked, anything else goes through
 * gql_json_write_string. {NULL, 0} when out of memory. */
gql_str gql_json_key(gql_arena *arena, gql_str key);
/* "S" for a string known to need no escape (a GraphQL name, a checked
 * string): the quotes and one copy, inline. */
static inline void gql_json_write_plain(gql_buf *b, gql_str s) {
  if (GQL_UNLIKELY(b->cap - b->len < s.len + 2) &&
      !gql_buf_reserve(b, s.len + 2))
    return;
  char *d = b->data + b->len;
  d[0] = '"';
  gql_copy_short(d + 1, s.ptr, s.len);
  d[s.len + 1] = '"';
  b->len += s.len + 2;
}
/* A number as JavaScript's Number#toString: shortest round-trip digits,
 * 1e+21, 5e-7, -0 as 0. NaN and infinities print null (JSON.stringify). */
void gql_json_write_double(gql_buf *buf, double d);
/* An integer in decimal. */
void gql_json_write_int(gql_buf *buf, int64_t i);
/* ,"locations":[{"line":L,"column":C},...] when n > 0, nothing otherwise
 * (graphql-js's toJSON leaves "locations" out when there are none). */
void gql_json_write_locations(gql_buf *buf, const gql_location *locs,
                              uint32_t n);
/* [{"message":...,"locations":[...]},...]: GraphQL errors as graphql-js's
 * toJSON writes them. */
void gql_json_write_errors(gql_buf *buf, const gql_error *items, uint32_t n);
/* A whole value, compact as JSON.stringify(v). Iterative. 0, or GQL_ENOMEM
 * when the buffer failed. Members are written as stored: in document order
 * and with repeated keys kept (JSON.stringify(JSON.parse(t)) would keep one
 * per key), which a last-wins reader reads back as the same object. */
int gql_json_write_value(gql_buf *buf, const gql_json_value *v);
/* As JSON.stringify(v, null, indent) with indent spaces (1..10). */
int gql_json_write_value_pretty(gql_buf *buf, const gql_json_value *v,
                                int indent);

/* ---- integers' digits (the writer's, shared with the executor's paths
 * and ids) */

/* "00" to "99", two characters each. */
extern const char gql_json_digit_pairs[201];

/* The number of decimal digits of u. */
static inline size_t gql_json_count_digits(uint64_t u) {
  size_t n = 1;
  for (;;) {
    if (u < 10)
      return n;
    if (u < 100)
      return n + 1;
    if (u < 1000)
      return n + 2;
    if (u < 10000)
      return n + 3;
    u /= 10000;
    n += 4;
  }
}

/* Writes the decimal digits of u ending at `end`, two at a time; returns
 * the start. */
static inline char *gql_json_utoa_back(char *end, uint64_t u) {
  char *p = end;
  while (u >= 100) {
    unsigned r = (unsigned)(u % 100);
    u /= 100;
    p -= 2;
    memcpy(p, gql_json_digit_pairs + 2 * r, 2);
  }
  if (u >= 10) {
    p -= 2;
    memcpy(p, gql_json_digit_pairs + 2 * u, 2);
  } else {
    *--p = (char)('0' + u);
  }
  return p;
}

#endif
