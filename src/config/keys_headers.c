/* headers: Apollo Router's header rules for subgraph requests.
 *
 *   headers:
 *     all:
 *       request:
 *         - propagate: {named: x-a, rename: x-b, default: v}
 *         - propagate: {matching: "^x-trace-.*"}
 *         - insert: {name: x-c, value: v}
 *         - insert: {name: x-user, from_claim: sub}        # gql's
 *         - insert: {name: x-op, path: .operationName}     # Router's body
 *         - remove: {named: x-d}
 *         - remove: {matching: "^x-internal-.*"}
 *     subgraphs:
 *       products:
 *         request: [...]                                  # after "all"
 */
#include "headers.h"
#include "keys.h"

#include <stdio.h>

static bool token_char(unsigned char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || strchr("!#$%&'*+-.^_`|~", ch);
}

const char *cfg_header_name(cfg_ctx *c, const ynode *n, const char *what) {
  const char *s = cfg_string(c, n, what);
  if (!s)
    return NULL;
  size_t len = strlen(s);
  bool ok = len > 0 && len <= 256;
  for (size_t i = 0; ok && i < len; i++)
    ok = token_char((unsigned char)s[i]);
  if (!ok) {
    gql_cfg_error(c, n->loc, "%s: '%s' is not a header name", what, s);
    return NULL;
  }
  char *lower = gql_arena_strndup(c->arena, s, len);
  for (size_t i = 0; lower && i < len; i++)
    if (lower[i] >= 'A' && lower[i] <= 'Z')
      lower[i] = (char)(lower[i] | 0x20);
  return lower;
}

const char *cfg_header_value(cfg_ctx *c, const ynode *n, const char *what) {
  const char *s = cfg_string(c, n, what);
  if (!s)
    return NULL;
  for (const char *p = s; *p; p++)
    if ((unsigned char)*p < 0x20 && *p != '\t') {
      gql_cfg_error(c, n->loc,
                    "%s: a header value cannot hold control "
                    "characters or line breaks",
                    what);
      return NULL;
    }
  if (strlen(s) != n->len && !strstr(n->text, "${env.")) {
    gql_cfg_error(c, n->loc, "%s: a header value cannot hold NUL", what);
    return NULL;
  }
  return s;
}

/* A name gql sends itself or that means nothing past one hop. */
static bool refuse_reserved(cfg_ctx *c, const ynode *n, const char *name,
                            const char *what) {
  if (!gql_header_reserved(name, strlen(name)))
    return false;
  gql_cfg_error(c, n->loc,
                "%s: gql never sends '%s' from a rule (hop-by-hop, or set by "
                "the gateway itself)",
                what, name);
  return true;
}

static const char *regex_field(cfg_ctx *c, const ynode *n, const char *what) {
  const char *s = cfg_string(c, n, what);
  char why[200];
  if (s && !gql_cfg_regex_ok(s, why, sizeof why)) {
    gql_cfg_error(c, n->loc, "%s: bad regex '%s': %s", what, s, why);
    return NULL;
  }
  return s;
}

/* The value of key `name` in map n, or NULL. */
static const ynode *get(const ynode *n, const char *name) {
  for (uint32_t i = 0; n->kind == Y_MAP && i + 1 < n->len; i += 2)
    if (n->items[i].kind == Y_SCALAR && !strcmp(n->items[i].text, name))
      return &n->items[i + 1];
  return NULL;
}

/* Refuses keys of map n outside `allowed` (NULL-terminated). */
static bool only_keys(cfg_ctx *c, const ynode *n, const char *const *allowed,
                      const char *what) {
  if (n->kind != Y_MAP) {
    gql_cfg_error(c, n->loc, "%s needs a map", what);
    return false;
  }
  bool ok = true;
  for (uint32_t i = 0; i + 1 < n->len; i += 2) {
    const ynode *k = &n->items[i];
    const char *const *a = allowed;
    while (*a && (k->kind != Y_SCALAR || strcmp(*a, k->text)))
      a++;
    if (!*a) {
      gql_cfg_error(c, k->loc, "unknown key '%s' in %s",
                    k->kind == Y_SCALAR ? k->text : "?", what);
      ok = false;
    }
    for (uint32_t j = 0; *a && j < i; j += 2)
      if (n->items[j].kind == Y_SCALAR && !strcmp(n->items[j].text, k->text)) {
        gql_cfg_error(c, k->loc, "'%s' is given twice", k->text);
        ok = false;
      }
  }
  return ok;
}

static bool decode_propagate(cfg_ctx *c, const ynode *n,
                             gql_cfg_header_rule *r) {
  static const char *const keys[] = {"named", "rename", "default", "matching",
                                     NULL};
  if (!only_keys(c, n, keys, "propagate"))
    return false;
  const ynode *named = get(n, "named"), *matching = get(n, "matching");
  const ynode *rename = get(n, "rename"), *def = get(n, "default");
  if (!named == !matching) {
    gql_cfg_error(c, n->loc, "propagate needs either named or matching");
    return false;
  }
  if (matching) {
    if (rename || def) {
      gql_cfg_error(c, n->loc,
                    "propagate: rename and default go with named only");
      return false;
    }
    r->kind = GQL_HDR_PROPAGATE_MATCHING;
    return (r->pattern = regex_field(c, matching, "propagate.matching"));
  }
  r->kind = GQL_HDR_PROPAGATE_NAMED;
  if (!(r->name = cfg_header_name(c, named, "propagate.named")))
    return false;
  if (rename && !(r->rename = cfg_header_name(c, rename, "propagate.rename")))
    return false;
  if (def && !(r->value = cfg_header_value(c, def, "propagate.default")))
    return false;
  const char *target = r->rename ? r->rename : r->name;
  return !refuse_reserved(c, rename ? rename : named, target, "propagate");
}

static bool decode_insert(cfg_ctx *c, const ynode *n, gql_cfg_header_rule *r) {
  static const char *const keys[] = {
      "name", "value", "from_claim", "path", "default", "from_context", NULL};
  if (!only_keys(c, n, keys, "insert"))
    return false;
  const ynode *name = get(n, "name"), *value = get(n, "value");
  const ynode *claim = get(n, "from_claim"), *path = get(n, "path");
  const ynode *def = get(n, "default"), *ctx = get(n, "from_context");
  if (ctx) {
    gql_cfg_error(c, ctx->loc,
                  "insert.from_context is not supported; use from_claim to "
                  "send a claim of the verified JWT");
    return false;
  }
  if (!name) {
    gql_cfg_error(c, n->loc, "insert needs a name");
    return false;
  }
  if ((value != NULL) + (claim != NULL) + (path != NULL) != 1) {
    gql_cfg_error(c, n->loc,
                  "insert needs one of value, from_claim or path (request "
                  "body)");
    return false;
  }
  if (value && def) {
    gql_cfg_error(c, def->loc, "insert: default goes with from_claim or path");
    return false;
  }
  if (!(r->name = cfg_header_name(c, name, "insert.name")) ||
      refuse_reserved(c, name, r->name, "insert"))
    return false;
  if (def && !(r->value = cfg_header_value(c, def, "insert.default")))
    return false;
  if (value) {
    r->kind = GQL_HDR_INSERT_VALUE;
    return (r->value = cfg_header_value(c, value, "insert.value"));
  }
  if (claim) {
    r->kind = GQL_HDR_INSERT_FROM_CLAIM;
    return (r->pattern = cfg_string(c, claim, "insert.from_claim"));
  }
  r->kind = GQL_HDR_INSERT_FROM_BODY;
  const char *p = cfg_string(c, path, "insert.path");
  const char *norm = p ? gql_header_body_path(p) : NULL;
  if (p && !norm)
    gql_cfg_error(c, path->loc,
                  "insert.path '%s': gql takes a path of names such as "
                  "$.operationName or .extensions.client",
                  p);
  return (r->pattern = norm);
}

static bool decode_remove(cfg_ctx *c, const ynode *n, gql_cfg_header_rule *r) {
  static const char *const keys[] = {"named", "matching", NULL};
  if (!only_keys(c, n, keys, "remove"))
    return false;
  const ynode *named = get(n, "named"), *matching = get(n, "matching");
  if (!named == !matching) {
    gql_cfg_error(c, n->loc, "remove needs either named or matching");
    return false;
  }
  if (named) {
    r->kind = GQL_HDR_REMOVE_NAMED;
    return (r->name = cfg_header_name(c, named, "remove.named"));
  }
  r->kind = GQL_HDR_REMOVE_MATCHING;
  return (r->pattern = regex_field(c, matching, "remove.matching"));
}

static void decode_rules(cfg_ctx *c, const ynode *n, gql_cfg_header_rules *out,
                         const char *what) {
  if (n->kind == Y_MAP) { /* Router's newer {operations: [...]} form */
    static const char *const keys[] = {"operations", NULL};
    const ynode *ops = get(n, "operations");
    if (!only_keys(c, n, keys, what))
      return;
    if (!ops)
      return;
    n = ops;
  }
  if (n->is_null)
    return;
  if (n->kind != Y_SEQ) {
    gql_cfg_error(c, n->loc, "%s needs a list of rules", what);
    return;
  }
  out->items = gql_arena_alloc(c->arena, sizeof(gql_cfg_header_rule) *
                                             (n->len ? n->len : 1));
  if (!out->items)
    return;
  for (uint32_t i = 0; i < n->len; i++) {
    const ynode *item = &n->items[i];
    gql_cfg_header_rule r = {.loc = item->loc};
    if (item->kind != Y_MAP || item->len != 2 ||
        item->items[0].kind != Y_SCALAR) {
      gql_cfg_error(c, item->loc,
                    "a header rule is a map with one key: propagate, insert "
                    "or remove");
      continue;
    }
    const char *k = item->items[0].text;
    const ynode *body = &item->items[1];
    bool ok;
    if (!strcmp(k, "propagate"))
      ok = decode_propagate(c, body, &r);
    else if (!strcmp(k, "insert"))
      ok = decode_insert(c, body, &r);
    else if (!strcmp(k, "remove"))
      ok = decode_remove(c, body, &r);
    else {
      gql_cfg_error(c, item->items[0].loc,
                    "unknown header rule '%s'; expected propagate, insert or "
                    "remove",
                    k);
      continue;
    }
    if (ok)
      out->items[out->count++] = r;
  }
}

static void decode_location(cfg_ctx *c, const ynode *n,
                            gql_cfg_header_rules *out, const char *what) {
  static const char *const keys[] = {"request", NULL};
  if (n->is_null)
    return;
  if (!only_keys(c, n, keys, what))
    return;
  const ynode *req = get(n, "request");
  if (req)
    decode_rules(c, req, out, what);
}

void gql_cfg_decode_headers(cfg_ctx *c, const ynode *v, void *field,
                            const char *what) {
  gql_cfg_headers *h = field;
  static const char *const keys[] = {"all", "subgraphs", NULL};
  if (v->is_null || !only_keys(c, v, keys, what))
    return;
  const ynode *all = get(v, "all"), *subs = get(v, "subgraphs");
  if (all)
    decode_location(c, all, &h->all, "headers.all");
  if (!subs || subs->is_null)
    return;
  if (subs->kind != Y_MAP) {
    gql_cfg_error(c, subs->loc,
                  "headers.subgraphs needs a map of subgraph "
                  "names");
    return;
  }
  h->subgraphs = gql_arena_alloc(c->arena, sizeof(gql_cfg_subgraph_headers) *
                                               (subs->len / 2 + 1));
  if (!h->subgraphs)
    return;
  for (uint32_t i = 0; i + 1 < subs->len; i += 2) {
    const ynode *k = &subs->items[i];
    const char *name = cfg_string(c, k, "headers.subgraphs");
    if (!name)
      continue;
    for (uint32_t j = 0; j < h->nsubgraphs; j++)
      if (!strcmp(h->subgraphs[j].name, name)) {
        gql_cfg_error(c, k->loc, "subgraph '%s' is given twice", name);
        name = NULL;
        break;
      }
    if (!name)
      continue;
    gql_cfg_subgraph_headers *s = &h->subgraphs[h->nsubgraphs++];
    *s = (gql_cfg_subgraph_headers){.name = name, .loc = k->loc};
    char w[200];
    snprintf(w, sizeof w, "headers.subgraphs.%s", name);
    decode_location(c, &subs->items[i + 1], &s->request, w);
  }
}
