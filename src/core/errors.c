#include "errors.h"

#include <stdio.h>

void gql_error_list_init(gql_error_list *l, gql_arena *arena, uint32_t max) {
  *l = (gql_error_list){.arena = arena, .max = max};
}

bool gql_error_list_full(const gql_error_list *l) {
  return l->nomem || (l->max && l->count >= l->max);
}

int gql_error_list_push(gql_error_list *l, const char *message,
                        const gql_location *locs, uint32_t n) {
  if (l->nomem)
    return GQL_ENOMEM;
  if (l->max && l->count >= l->max) {
    l->truncated = true;
    return GQL_ELIMIT;
  }
  if (!GQL_ARRAY_RESERVE(l->arena, l->items, l->cap, l->count + 1))
    goto nomem;
  gql_location *copy = NULL;
  if (n) {
    copy = gql_arena_alloc(l->arena, (size_t)n * sizeof *copy);
    if (!copy)
      goto nomem;
    memcpy(copy, locs, (size_t)n * sizeof *copy);
  }
  l->items[l->count++] = (gql_error){message, copy, n};
  return 0;
nomem:
  l->nomem = true;
  return GQL_ENOMEM;
}

int gql_error_list_addf(gql_error_list *l, gql_str source, const uint32_t *offs,
                        uint32_t n, const char *fmt, ...) {
  if (gql_error_list_full(l)) {
    if (!l->nomem)
      l->truncated = true;
    return l->nomem ? GQL_ENOMEM : GQL_ELIMIT;
  }
  va_list ap;
  va_start(ap, fmt);
  char *msg = gql_arena_vsprintf(l->arena, fmt, ap);
  va_end(ap);
  if (!msg) {
    l->nomem = true;
    return GQL_ENOMEM;
  }
  gql_location small[4];
  gql_location *locs = small;
  if (n > GQL_ARRAY_LEN(small)) {
    locs = gql_arena_alloc(l->arena, (size_t)n * sizeof *locs);
    if (!locs) {
      l->nomem = true;
      return GQL_ENOMEM;
    }
  }
  for (uint32_t i = 0; i < n; i++)
    locs[i] = gql_location_of(source.ptr, source.len, offs[i]);
  return gql_error_list_push(l, msg, locs, n);
}

gql_error_list *gql_errors_begin(gql_error_list *l, gql_errors *errors,
                                 uint32_t max) {
  if (!errors)
    return NULL;
  errors->items = NULL;
  errors->count = 0;
  if (!errors->arena)
    return NULL;
  gql_error_list_init(l, errors->arena, max);
  return l;
}

void gql_errors_end(const gql_error_list *l, gql_errors *errors) {
  if (!l || !errors)
    return;
  errors->items = l->items;
  errors->count = l->count;
}

int gql_errors_set_one(gql_errors *errors, const char *message,
                       const gql_location *loc) {
  gql_error_list l;
  if (!gql_errors_begin(&l, errors, 0))
    return 0;
  char *copy = gql_arena_strndup(errors->arena, message, strlen(message));
  int rc = copy ? gql_error_list_push(&l, copy, loc, loc ? 1 : 0) : GQL_ENOMEM;
  gql_errors_end(&l, errors);
  return rc;
}
