#include "core.h"

#include <stdlib.h>

static void *libc_malloc(void *ctx, size_t size) {
  (void)ctx;
  return malloc(size);
}

static void *libc_realloc(void *ctx, void *ptr, size_t old_size,
                          size_t new_size) {
  (void)ctx;
  (void)old_size;
  return realloc(ptr, new_size);
}

static void libc_free(void *ctx, void *ptr, size_t size) {
  (void)ctx;
  (void)size;
  free(ptr);
}

static const gql_allocator libc_allocator = {libc_malloc, libc_realloc,
                                             libc_free, NULL};

const gql_allocator *gql_default_allocator(void) {
  return &libc_allocator;
}

const gql_allocator *gql_alc_or_default(const gql_allocator *alc) {
  return alc ? alc : &libc_allocator;
}

void *gql_alc_malloc(const gql_allocator *alc, size_t size) {
  alc = gql_alc_or_default(alc);
  return alc->malloc(alc->ctx, size);
}

void *gql_alc_realloc(const gql_allocator *alc, void *p, size_t old_size,
                      size_t new_size) {
  alc = gql_alc_or_default(alc);
  if (!p)
    return alc->malloc(alc->ctx, new_size);
  return alc->realloc(alc->ctx, p, old_size, new_size);
}

void gql_alc_free(const gql_allocator *alc, void *p, size_t size) {
  if (!p)
    return;
  alc = gql_alc_or_default(alc);
  alc->free(alc->ctx, p, size);
}
