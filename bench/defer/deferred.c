/* The deferred texts of the benchmark operations (see deferred.h). */
#include "deferred.h"

#include <stdlib.h>
#include <string.h>

/* Where each operation's deepest selection set opens: the last occurrence
 * of this text (its last character is the selection's "{"). */
static const char *const deepest[OP_COUNT] = {
    [OP_MINIMAL] = "{",
    [OP_FLAT_LIST] = "items {",
    [OP_NESTED_LISTS] = "leaves {",
    [OP_STAR_WARS] = "friends {",
    [OP_FRAGMENTS] = "FriendFields on Character {",
    /* the innermost "ofType {" never runs (no type is wrapped that
     * deep): the selection of every type reference instead */
    [OP_INTROSPECTION] = "fragment TypeRef on __Type {",
    [OP_INTROSPECTION_WITHOUT_ONE_OF] = "fragment TypeRef on __Type {",
};

char *bench_defer_text(const bench_op *op, int op_index, size_t *out_len) {
  const char *q = op->query, *anchor = deepest[op_index], *at = NULL;
  size_t len = op->query_len;
  for (const char *p = q; (p = strstr(p, anchor)); p++)
    at = p;
  if (!at)
    return NULL;
  size_t open = (size_t)(at - q) + strlen(anchor); /* after the "{" */
  size_t close = open;
  for (int depth = 1; close < len; close++) {
    if (q[close] == '{')
      depth++;
    else if (q[close] == '}' && --depth == 0)
      break;
  }
  if (close >= len)
    return NULL; /* unbalanced */
  static const char pre[] = " ... @defer {", post[] = "} ";
  size_t n = len + sizeof pre - 1 + sizeof post - 1;
  char *t = malloc(n + 1);
  if (!t)
    return NULL;
  size_t k = 0;
  memcpy(t + k, q, open), k += open;
  memcpy(t + k, pre, sizeof pre - 1), k += sizeof pre - 1;
  memcpy(t + k, q + open, close - open), k += close - open;
  memcpy(t + k, post, sizeof post - 1), k += sizeof post - 1;
  memcpy(t + k, q + close, len - close), k += len - close;
  t[k] = 0;
  *out_len = k;
  return t;
}
