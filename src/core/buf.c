#include "core.h"

#include <stdint.h>
#include <stdio.h>

void gql_buf_init(gql_buf *b, const gql_allocator *alc) {
  *b = (gql_buf){.alc = gql_alc_or_default(alc)};
}

void gql_buf_free(gql_buf *b) {
  gql_alc_free(b->alc, b->data, b->cap);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* Room for `extra` more bytes after len in a buffer of cap bytes at *data:
 * doubling from 256. The one growth policy of gql_buf and gql_output. */
static bool grow(const gql_allocator *alc, char **data, size_t len, size_t *cap,
                 size_t extra) {
  if (*cap - len >= extra)
    return true;
  size_t need = len + extra;
  if (need < len)
    return false;
  size_t n = *cap ? *cap : 256;
  while (n < need) {
    if (n > SIZE_MAX / 2) {
      n = need;
      break;
    }
    n *= 2;
  }
  char *p = gql_alc_realloc(alc, *data, *cap, n);
  if (!p)
    return false;
  *data = p;
  *cap = n;
  return true;
}

bool gql_buf_reserve(gql_buf *b, size_t extra) {
  if (b->failed)
    return false;
  if (!grow(b->alc, &b->data, b->len, &b->cap, extra))
    b->failed = true;
  return !b->failed;
}

void gql_buf_append(gql_buf *b, const void *p, size_t n) {
  if (!n || !gql_buf_reserve(b, n))
    return;
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

void gql_buf_printf(gql_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n >= 0 && gql_buf_reserve(b, (size_t)n + 1)) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
  }
  va_end(ap);
}

const char *gql_buf_cstr(gql_buf *b) {
  if (!gql_buf_reserve(b, 1))
    return NULL;
  b->data[b->len] = 0;
  return b->data;
}

int gql_output_reserve(gql_output *o, size_t extra) {
  return grow(o->alc, &o->data, o->len, &o->cap, extra) ? 0 : GQL_ENOMEM;
}

int gql_output_append(gql_output *o, const void *p, size_t n) {
  if (!n)
    return 0;
  if (!grow(o->alc, &o->data, o->len, &o->cap, n))
    return GQL_ENOMEM;
  memcpy(o->data + o->len, p, n);
  o->len += n;
  return 0;
}

void gql_output_free(gql_output *o) {
  if (!o)
    return;
  gql_alc_free(o->alc, o->data, o->cap);
  o->data = NULL;
  o->len = o->cap = 0;
}
