/*
 * A growable list of GraphQL errors ({message, locations}) in an arena, with
 * a cutoff: once `max` errors are held, further ones are dropped and
 * `truncated` is set. Shared by SDL validation, schema validation and the
 * executable-document validation rules.
 */
#ifndef GQL_ERRORS_H
#define GQL_ERRORS_H

#include "core.h"

typedef struct gql_error_list {
  gql_arena *arena; /* where messages, locations and the array live */
  gql_error *items;
  uint32_t count;
  uint32_t cap;
  uint32_t max;   /* 0: no cutoff */
  bool truncated; /* an error was dropped because of max */
  bool nomem;     /* an allocation failed; the list may be incomplete */
} gql_error_list;

/* An empty list allocating from `arena`, keeping at most `max` (0: all). */
void gql_error_list_init(gql_error_list *l, gql_arena *arena, uint32_t max);
/* True when no more errors will be kept (cutoff reached or out of memory). */
bool gql_error_list_full(const gql_error_list *l);
/* Appends an error whose message is already in the arena (or static) and
 * whose `n` locations are copied. Returns 0, GQL_ELIMIT when cut off, or
 * GQL_ENOMEM. */
int gql_error_list_push(gql_error_list *l, const char *message,
                        const gql_location *locs, uint32_t n);
/* Appends an error with a printf-formatted message and the locations of
 * byte offsets offs[0..n) in `source`. Same returns as push. */
int gql_error_list_addf(gql_error_list *l, gql_str source, const uint32_t *offs,
                        uint32_t n, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The public functions' error carrier (gql_errors, include/gql.h): begin
 * clears `errors` (NULL allowed) and returns `l` started in its arena with
 * a cutoff of `max` (0: none), or NULL when the errors are not kept; end
 * hands the list's errors out (l NULL: nothing). */
gql_error_list *gql_errors_begin(gql_error_list *l, gql_errors *errors,
                                 uint32_t max);
void gql_errors_end(const gql_error_list *l, gql_errors *errors);
/* `errors` set to the one error `message` (copied into errors->arena) at
 * `loc` (NULL: no location), when kept. 0 or GQL_ENOMEM. */
int gql_errors_set_one(gql_errors *errors, const char *message,
                       const gql_location *loc);

#endif
