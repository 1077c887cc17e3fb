/* libFuzzer target: graphql-js 17's incremental payloads converted to
 * Apollo's deferSpec=20220824 (src/http/incremental_legacy.c). The bytes
 * are payloads a line; the first byte picks the table's bound (small ones
 * reach its limit). Every answer is one JSON object; a payload converted
 * without error gives valid JSON without graphql-js 17's keys; after an
 * error every payload is the bare {"hasNext":...}; the table never holds
 * more than its bound. */
#include "http/incremental_legacy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An independent JSON check (recursive, depth-bounded): the end of the
 * value at p, or NULL. */
static const char *value(const char *p, const char *e, int depth);

static const char *ws(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

static const char *string(const char *p, const char *e) {
  if (p >= e || *p != '"')
    return NULL;
  for (p++; p < e; p++) {
    if (*p == '"')
      return p + 1;
    if ((unsigned char)*p < 0x20)
      return NULL;
    if (*p == '\\' && ++p >= e)
      return NULL;
  }
  return NULL;
}

static const char *container(const char *p, const char *e, int depth,
                             char close) {
  p = ws(p + 1, e);
  if (p < e && *p == close)
    return p + 1;
  for (;;) {
    if (close == '}') {
      if (!(p = string(p, e)))
        return NULL;
      p = ws(p, e);
      if (p >= e || *p != ':')
        return NULL;
      p = ws(p + 1, e);
    }
    if (!(p = value(p, e, depth + 1)))
      return NULL;
    p = ws(p, e);
    if (p < e && *p == close)
      return p + 1;
    if (p >= e || *p != ',')
      return NULL;
    p = ws(p + 1, e);
  }
}

static const char *value(const char *p, const char *e, int depth) {
  if (p >= e || depth > 5000)
    return NULL;
  if (*p == '{' || *p == '[')
    return container(p, e, depth, *p == '{' ? '}' : ']');
  if (*p == '"')
    return string(p, e);
  const char *s = p;
  while (p < e && strchr("-+.eE0123456789truefalsn", *p))
    p++;
  return p > s ? p : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  gql_http_legacy l = {.max_table = data[0] & 1 ? 256 + data[0] * 16 : 0};
  const char *p = (const char *)data + 1, *e = (const char *)data + size;
  bool failed = false;
  while (p <= e) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    const char *end = nl ? nl : e;
    bool has_next = nl != NULL;
    const char *out;
    size_t n;
    gql_http_legacy_status st =
        gql_http_legacy_convert(&l, p, (size_t)(end - p), has_next, &out, &n);
    if (!n || out[0] != '{' || out[n - 1] != '}' ||
        l.table_bytes > (l.max_table ? l.max_table : GQL_HTTP_LEGACY_MAX_TABLE))
      __builtin_trap();
    if (failed) {
      const char *bare =
          has_next ? "{\"hasNext\":true}" : "{\"hasNext\":false}";
      if (st || n != strlen(bare) || memcmp(out, bare, n) != 0)
        __builtin_trap();
    } else if (!st) {
      if (ws(value(out, out + n, 0), out + n) != out + n)
        __builtin_trap(); /* not one JSON value */
      if (memmem(out, n, "\"pending\":", 10) &&
          !memmem(p, (size_t)(end - p), "\"pending\":", 10))
        __builtin_trap();
    } else if (!*gql_http_legacy_message(st)) {
      __builtin_trap();
    }
    failed = failed || st;
    if (!nl)
      break;
    p = nl + 1;
  }
  gql_http_legacy_free(&l);
  return 0;
}
