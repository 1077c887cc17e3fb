/* @authenticated and @requiresScopes: whether a request may see a field
 * (the projection nulls one it may not; the planner does not fetch it). */
#include "gateway.h"

#include <string.h>

/* Whether `scopes` (space-separated) holds `want`. */
static bool has_scope(gql_str scopes, gql_str want) {
  size_t i = 0;
  while (i < scopes.len) {
    while (i < scopes.len && scopes.ptr[i] == ' ')
      i++;
    size_t j = i;
    while (j < scopes.len && scopes.ptr[j] != ' ')
      j++;
    if (j - i == want.len && memcmp(scopes.ptr + i, want.ptr, want.len) == 0)
      return true;
    i = j;
  }
  return false;
}

static bool access_ok(const gql_gw_who *who, const gql_gw_access *a) {
  if ((a->authenticated || a->nscope_sets) && !who->authenticated)
    return false;
  if (!a->nscope_sets)
    return true;
  for (uint32_t s = 0; s < a->nscope_sets; s++) { /* one set held whole */
    bool all = true;
    for (uint32_t k = 0; all && k < a->scope_set_sizes[s]; k++)
      all = has_scope(who->scopes, a->scope_sets[s][k]);
    if (all)
      return true;
  }
  return false;
}

bool gql_gw_allowed(const gql_gw_who *who, const gql_gw_field *f) {
  static const gql_gw_who anonymous = {false, {"", 0}};
  if (!f->guarded)
    return true;
  if (!who)
    who = &anonymous;
  return access_ok(who, &f->access) &&
         (!f->named || access_ok(who, &f->named->access)) &&
         (!f->parent || access_ok(who, &f->parent->access));
}
