/* The settings' references to subgraphs by name, checked against a
 * supergraph's (config.h, gql_cfg_unknown_subgraphs). The file is loaded
 * without the supergraph (gql config check has none; a reload may change
 * either), so this runs where both are known: gql gateway's start and each
 * reload. An entry naming no subgraph applies to none. It is a warning,
 * not a refusal, for both kinds of entry alike (headers.subgraphs was
 * ignored silently before, as passthrough's was): a subgraph renamed or
 * removed by a supergraph update must not fail a reload whose
 * configuration did not change. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

static bool known(const gql_str *names, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (gql_str_eq_cstr(names[i], name))
      return true;
  return false;
}

static void line(gql_buf *b, const gql_settings *st, const char *key,
                 const char *name, gql_location loc, const gql_str *names,
                 uint32_t n) {
  gql_buf_printf(b, "%s:%u:%u: %s.%s names no subgraph of the supergraph (",
                 st->file ? st->file : "<config>", loc.line, loc.column, key,
                 name);
  for (uint32_t i = 0; i < n; i++)
    gql_buf_printf(b, "%s%.*s", i ? ", " : "", (int)names[i].len, names[i].ptr);
  gql_buf_puts(b,
               n ? "): it applies to none\n" : "none): it applies to none\n");
}

int gql_cfg_unknown_subgraphs(const gql_settings *st, const gql_str *names,
                              uint32_t n, char **out) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  int count = 0;
  const gql_cfg_sub_mode *m = &st->subscription.mode;
  for (uint32_t i = 0; i < m->nsubgraphs; i++)
    if (!known(names, n, m->subgraphs[i].name)) {
      line(&b, st, "subscription.mode.passthrough.subgraphs",
           m->subgraphs[i].name, m->subgraphs[i].loc, names, n);
      count++;
    }
  const gql_cfg_headers *h = &st->headers;
  for (uint32_t i = 0; i < h->nsubgraphs; i++)
    if (!known(names, n, h->subgraphs[i].name)) {
      line(&b, st, "headers.subgraphs", h->subgraphs[i].name,
           h->subgraphs[i].loc, names, n);
      count++;
    }
  *out = NULL;
  if (!count) {
    gql_buf_free(&b);
    return 0;
  }
  if (!gql_buf_cstr(&b)) {
    gql_buf_free(&b);
    return GQL_ENOMEM;
  }
  *out = strdup(b.data);
  gql_buf_free(&b);
  return *out ? count : GQL_ENOMEM;
}
