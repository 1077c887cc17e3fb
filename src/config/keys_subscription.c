/* subscription.mode: Apollo Router's passthrough section, which says how
 * `gql gateway` opens a subscription to each subgraph:
 *
 *   subscription:
 *     mode:
 *       passthrough:
 *         all:                  # every subgraph (Router's)
 *           protocol: graphql_ws
 *         subgraphs:
 *           reviews:            # one subgraph, by its supergraph name
 *             protocol: sse     # gql's: graphql-sse (distinct connections)
 *             path: /graphql/stream
 *
 * Router's `graphql_ws` is the graphql-ws library's graphql-transport-ws;
 * Router has no SSE protocol to subgraphs, so `sse` is gql's own value
 * (Hive Router's name for the same transport). Router's
 * `graphql_transport_ws` (the legacy subscriptions-transport-ws) and its
 * `callback` mode are refused with a message saying so. */
#include "keys.h"

#include <stdio.h>
#include <string.h>

static void decode_protocol(cfg_ctx *c, const ynode *v, void *field,
                            const char *what) {
  const char *s = cfg_string(c, v, what);
  if (!s)
    return;
  if (!strcmp(s, "graphql_ws"))
    *(uint8_t *)field = GQL_CFG_SUB_GRAPHQL_WS;
  else if (!strcmp(s, "sse"))
    *(uint8_t *)field = GQL_CFG_SUB_SSE;
  else if (!strcmp(s, "graphql_transport_ws"))
    gql_cfg_error(c, v->loc,
                  "%s: graphql_transport_ws (the legacy "
                  "subscriptions-transport-ws) is not supported by gql; use "
                  "graphql_ws (graphql-transport-ws) or sse (graphql-sse)",
                  what);
  else
    gql_cfg_error(c, v->loc, "%s needs graphql_ws or sse, not '%s'", what, s);
}

/* A path on the subgraph's host: "/...", no spaces or control bytes (it
 * goes on the request line as is). */
static void decode_path(cfg_ctx *c, const ynode *v, void *field,
                        const char *what) {
  const char *s = cfg_string(c, v, what);
  if (!s)
    return;
  bool ok = s[0] == '/';
  for (const char *p = s; ok && *p; p++)
    ok = (unsigned char)*p > ' ' && *p != 0x7f && *p != '#';
  if (!ok) {
    gql_cfg_error(c, v->loc, "%s must be a path such as /graphql", what);
    return;
  }
  *(const char **)field = s;
}

#define PT(f) offsetof(gql_cfg_sub_passthrough, f)
static const cfg_key passthrough_entry_keys[] = {
    {.name = "protocol",
     .type = K_CUSTOM,
     .offset = PT(protocol),
     .fn = decode_protocol},
    {.name = "path", .type = K_CUSTOM, .offset = PT(path), .fn = decode_path},
    {0}};

static void decode_subgraphs(cfg_ctx *c, const ynode *v, void *field,
                             const char *what) {
  gql_cfg_sub_mode *m = field;
  if (v->is_null)
    return;
  if (v->kind != Y_MAP) {
    gql_cfg_error(c, v->loc, "%s needs a map of subgraph names", what);
    return;
  }
  m->subgraphs =
      gql_arena_alloc(c->arena, sizeof *m->subgraphs * (v->len / 2 + 1));
  if (!m->subgraphs)
    return;
  for (uint32_t i = 0; i + 1 < v->len; i += 2) {
    const ynode *k = &v->items[i];
    const char *name = cfg_string(c, k, what);
    for (uint32_t j = 0; name && j < m->nsubgraphs; j++)
      if (!strcmp(m->subgraphs[j].name, name)) {
        gql_cfg_error(c, k->loc, "subgraph '%s' is given twice", name);
        name = NULL;
      }
    if (!name)
      continue;
    gql_cfg_sub_passthrough *e = &m->subgraphs[m->nsubgraphs++];
    *e = (gql_cfg_sub_passthrough){.name = name, .loc = k->loc};
    char w[200];
    snprintf(w, sizeof w, "%s.%s", what, name);
    cfg_decode_map(c, &v->items[i + 1], e, passthrough_entry_keys, w);
  }
}

static void decode_callback(cfg_ctx *c, const ynode *v, void *field,
                            const char *what) {
  (void)field;
  gql_cfg_error(c, v->loc,
                "%s (Router's HTTP callback mode) is not supported by gql; "
                "use passthrough",
                what);
}

#define MODE(f) offsetof(gql_cfg_sub_mode, f)
static const cfg_key passthrough_keys[] = {{.name = "all",
                                            .type = K_SECTION,
                                            .offset = MODE(all),
                                            .sub = passthrough_entry_keys},
                                           {.name = "subgraphs",
                                            .type = K_CUSTOM,
                                            .offset = 0,
                                            .fn = decode_subgraphs},
                                           {0}};

const cfg_key gql_cfg_subscription_mode_keys[] = {
    {.name = "passthrough", .type = K_SECTION, .sub = passthrough_keys},
    {.name = "callback", .type = K_CUSTOM, .fn = decode_callback},
    {0}};

gql_cfg_sub_passthrough
gql_cfg_sub_passthrough_of(const gql_cfg_subscription *s, gql_str name) {
  gql_cfg_sub_passthrough r = s->mode.all;
  for (uint32_t i = 0; i < s->mode.nsubgraphs; i++) {
    const gql_cfg_sub_passthrough *e = &s->mode.subgraphs[i];
    if (!gql_str_eq_cstr(name, e->name))
      continue;
    r.name = e->name;
    r.loc = e->loc;
    if (e->protocol)
      r.protocol = e->protocol;
    if (e->path)
      r.path = e->path;
    break;
  }
  return r;
}
