#include "core.h"

#include <stdio.h>

void gql_buf_init(gql_buf *b, const gql_allocator *alc) {
  *b = (gql_buf){.alc = gql_alc_or_default(alc)};
}

void gql_buf_free(gql_buf *b) {
  gql_alc_free(b->alc, b->data, b->cap);
  b->data = NULL;
  b->len = b->cap = 0;
}

bool gql_buf_reserve(gql_buf *b, size_t extra) {
  if (b->failed)
    return false;
  if (b->cap - b->len >= extra)
    return true;
  size_t need = b->len + extra;
  if (need < b->len) {
    b->failed = true;
    return false;
  }
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) {
      cap = need;
      break;
    }
    cap *= 2;
  }
  char *p = gql_alc_realloc(b->alc, b->data, b->cap, cap);
  if (!p) {
    b->failed = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
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
