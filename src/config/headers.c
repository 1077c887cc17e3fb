#include "headers.h"
#include "regex.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

typedef struct rule {
  const gql_cfg_header_rule *cfg;
  gql_regex *re; /* the *_MATCHING kinds */
} rule;

struct gql_header_rules {
  rule *items;
  uint32_t count;
  gql_str name; /* the subgraph's; empty for "all" */
};

struct gql_header_policy {
  gql_header_rules all;
  gql_header_rules *subgraphs;
  uint32_t nsubgraphs;
};

bool gql_header_reserved(const char *name, size_t len) {
  static const char *const names[] = {"connection",
                                      "keep-alive",
                                      "proxy-authenticate",
                                      "proxy-authorization",
                                      "te",
                                      "trailer",
                                      "transfer-encoding",
                                      "upgrade",
                                      "host",
                                      "content-length",
                                      "content-type",
                                      "content-encoding",
                                      "accept",
                                      "accept-encoding",
                                      "proxy-connection"};
  for (size_t i = 0; i < GQL_ARRAY_LEN(names); i++)
    if (strlen(names[i]) == len && strncasecmp(names[i], name, len) == 0)
      return true;
  return false;
}

const char *gql_header_body_path(const char *path) {
  const char *p = path;
  if (p[0] == '$')
    p++;
  if (p[0] == '.')
    p++;
  if (!*p)
    return NULL;
  bool name_start = true;
  for (const char *q = p; *q; q++) {
    char ch = *q;
    bool name_char = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                     (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
    if (ch == '.' && !name_start)
      name_start = true;
    else if (name_char)
      name_start = false;
    else
      return NULL;
  }
  return name_start ? NULL : p;
}

static void rules_free(gql_header_rules *r) {
  for (uint32_t i = 0; i < r->count; i++)
    gql_regex_free(r->items[i].re);
  free(r->items);
}

void gql_header_policy_free(gql_header_policy *p) {
  if (!p)
    return;
  rules_free(&p->all);
  for (uint32_t i = 0; i < p->nsubgraphs; i++)
    rules_free(&p->subgraphs[i]);
  free(p->subgraphs);
  free(p);
}

/* Compiles `a` then `b` (either may be NULL) into r. */
static int rules_build(gql_header_rules *r, const gql_cfg_header_rules *a,
                       const gql_cfg_header_rules *b, char *why, size_t n) {
  uint32_t na = a ? a->count : 0, nb = b ? b->count : 0;
  r->items = calloc(na + nb + 1, sizeof(rule));
  if (!r->items)
    return GQL_ENOMEM;
  for (uint32_t i = 0; i < na + nb; i++) {
    const gql_cfg_header_rule *cfg = i < na ? &a->items[i] : &b->items[i - na];
    rule *x = &r->items[r->count++];
    x->cfg = cfg;
    if (cfg->kind == GQL_HDR_PROPAGATE_MATCHING ||
        cfg->kind == GQL_HDR_REMOVE_MATCHING) {
      char msg[200];
      if (!(x->re = gql_regex_compile(cfg->pattern, msg, sizeof msg))) {
        snprintf(why, n, "bad regex '%s': %s", cfg->pattern, msg);
        return GQL_EINVAL;
      }
    }
  }
  return 0;
}

int gql_header_policy_build(const gql_cfg_headers *cfg, gql_header_policy **out,
                            char *why, size_t n) {
  *out = NULL;
  gql_header_policy *p = calloc(1, sizeof *p);
  if (!p)
    return GQL_ENOMEM;
  p->subgraphs = calloc(cfg->nsubgraphs + 1, sizeof(gql_header_rules));
  int rc =
      p->subgraphs ? rules_build(&p->all, &cfg->all, NULL, why, n) : GQL_ENOMEM;
  for (uint32_t i = 0; rc == 0 && i < cfg->nsubgraphs; i++) {
    gql_header_rules *s = &p->subgraphs[p->nsubgraphs++];
    s->name = gql_cstr(cfg->subgraphs[i].name);
    rc = rules_build(s, &cfg->all, &cfg->subgraphs[i].request, why, n);
  }
  if (rc) {
    gql_header_policy_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

gql_header_rules *gql_header_policy_for(gql_header_policy *p, gql_str name) {
  if (!p)
    return NULL;
  for (uint32_t i = 0; i < p->nsubgraphs; i++)
    if (gql_str_eq(p->subgraphs[i].name, name))
      return &p->subgraphs[i];
  return &p->all;
}

bool gql_header_policy_names(const gql_header_policy *p, gql_str name) {
  for (uint32_t i = 0; p && i < p->nsubgraphs; i++)
    if (gql_str_eq(p->subgraphs[i].name, name))
      return true;
  return false;
}

/* ------------------------------------------------------------ applying */

static bool name_eq(gql_str a, gql_str b) {
  return a.len == b.len && strncasecmp(a.ptr, b.ptr, a.len) == 0;
}

int gql_header_list_add(gql_header_list *l, gql_arena *arena, gql_str name,
                        gql_str value) {
  if (!GQL_ARRAY_RESERVE_FIRST(arena, l->items, l->cap, l->count + 1, 16))
    return GQL_ENOMEM;
  l->items[l->count++] = (gql_header){name, value};
  return 0;
}

/* Router's patterns see header names in lower case (Rust's http crate
 * keeps them so): match the lower-cased name. Names beyond 256 bytes
 * never match. */
static bool name_matches(gql_regex *re, gql_str n) {
  char lower[256];
  if (n.len > sizeof lower)
    return false;
  for (size_t i = 0; i < n.len; i++)
    lower[i] =
        (char)(n.ptr[i] >= 'A' && n.ptr[i] <= 'Z' ? n.ptr[i] | 0x20 : n.ptr[i]);
  return gql_regex_match(re, lower, n.len);
}

static void list_remove(gql_header_list *l, gql_str name, gql_regex *re) {
  uint32_t w = 0;
  for (uint32_t i = 0; i < l->count; i++) {
    gql_str n = l->items[i].name;
    bool drop = re ? !gql_header_reserved(n.ptr, n.len) && name_matches(re, n)
                   : name_eq(n, name);
    if (!drop)
      l->items[w++] = l->items[i];
  }
  l->count = w;
}

/* The names propagated so far: a target is propagated once. */
typedef struct done_set {
  gql_str *names;
  uint32_t count, cap;
} done_set;

static bool done_has(const done_set *d, gql_str name) {
  for (uint32_t i = 0; i < d->count; i++)
    if (name_eq(d->names[i], name))
      return true;
  return false;
}

static int done_add(done_set *d, gql_arena *arena, gql_str name) {
  if (!GQL_ARRAY_RESERVE(arena, d->names, d->cap, d->count + 1))
    return GQL_ENOMEM;
  d->names[d->count++] = name;
  return 0;
}

static bool safe_value(gql_str v) {
  for (size_t i = 0; i < v.len; i++)
    if ((unsigned char)v.ptr[i] < 0x20 && v.ptr[i] != '\t')
      return false;
  return true;
}

/* A JSON value as a header value: strings as they are, other scalars and
 * containers as compact JSON. Empty (no header) for null or unsafe text. */
static gql_str json_header_value(const gql_json_value *v, gql_arena *arena) {
  if (!v || v->kind == GQL_JSON_NULL)
    return (gql_str){NULL, 0};
  if (v->kind == GQL_JSON_STRING)
    return safe_value(v->string) ? v->string : (gql_str){NULL, 0};
  gql_allocator alc = gql_arena_allocator(arena);
  gql_buf b;
  gql_buf_init(&b, &alc);
  if (gql_json_write_value(&b, v) < 0 || !safe_value((gql_str){b.data, b.len}))
    return (gql_str){NULL, 0};
  return (gql_str){b.data, b.len};
}

static const gql_json_value *body_get(const gql_json_value *v,
                                      const char *path) {
  while (v && *path) {
    const char *dot = strchr(path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    v = gql_json_get(v, (gql_str){path, len});
    path += len + (dot != NULL);
  }
  return v;
}

static int insert(gql_header_list *out, gql_arena *arena, gql_str name,
                  gql_str value) {
  list_remove(out, name, NULL);
  return gql_header_list_add(out, arena, name, value);
}

static int propagate_named(const gql_cfg_header_rule *c,
                           const gql_header_input *in, gql_header_list *out,
                           done_set *done, gql_arena *arena) {
  gql_str from = gql_cstr(c->name);
  gql_str to = gql_cstr(c->rename ? c->rename : c->name);
  if (done_has(done, to))
    return 0;
  bool any = false;
  for (uint32_t i = 0; i < in->nheaders; i++)
    if (name_eq(in->headers[i].name, from)) {
      if (!any)
        list_remove(out, to, NULL); /* the client's values replace */
      any = true;
      if (gql_header_list_add(out, arena, to, in->headers[i].value))
        return GQL_ENOMEM;
    }
  if (!any && c->value) {
    list_remove(out, to, NULL);
    any = true;
    if (gql_header_list_add(out, arena, to, gql_cstr(c->value)))
      return GQL_ENOMEM;
  }
  return any ? done_add(done, arena, to) : 0;
}

static int propagate_matching(gql_regex *re, const gql_header_input *in,
                              gql_header_list *out, done_set *done,
                              gql_arena *arena) {
  uint32_t first = done->count; /* the names this rule added */
  for (uint32_t i = 0; i < in->nheaders; i++) {
    gql_str n = in->headers[i].name;
    if (gql_header_reserved(n.ptr, n.len) || !name_matches(re, n))
      continue;
    bool mine = false;
    for (uint32_t j = first; j < done->count; j++)
      mine = mine || name_eq(done->names[j], n);
    if (!mine) {
      if (done_has(done, n))
        continue; /* an earlier rule propagated it */
      list_remove(out, n, NULL);
      if (done_add(done, arena, n))
        return GQL_ENOMEM;
    }
    if (gql_header_list_add(out, arena, n, in->headers[i].value))
      return GQL_ENOMEM;
  }
  return 0;
}

int gql_header_rules_apply(gql_header_rules *r, const gql_header_input *in,
                           gql_header_list *out, gql_arena *arena) {
  done_set done = {0};
  for (uint32_t i = 0; r && i < r->count; i++) {
    const gql_cfg_header_rule *c = r->items[i].cfg;
    gql_str name = gql_cstr(c->name), v;
    int rc = 0;
    switch (c->kind) {
    case GQL_HDR_PROPAGATE_NAMED:
      rc = propagate_named(c, in, out, &done, arena);
      break;
    case GQL_HDR_PROPAGATE_MATCHING:
      rc = propagate_matching(r->items[i].re, in, out, &done, arena);
      break;
    case GQL_HDR_INSERT_VALUE:
      rc = insert(out, arena, name, gql_cstr(c->value));
      break;
    case GQL_HDR_INSERT_FROM_CLAIM:
    case GQL_HDR_INSERT_FROM_BODY:
      v = c->kind == GQL_HDR_INSERT_FROM_CLAIM
              ? json_header_value(
                    in->claims ? gql_json_get(in->claims, gql_cstr(c->pattern))
                               : NULL,
                    arena)
              : json_header_value(body_get(in->body, c->pattern), arena);
      if (!v.ptr && c->value)
        v = gql_cstr(c->value);
      if (v.ptr)
        rc = insert(out, arena, name, v);
      break;
    case GQL_HDR_REMOVE_NAMED:
      list_remove(out, name, NULL);
      break;
    case GQL_HDR_REMOVE_MATCHING:
      list_remove(out, name, r->items[i].re);
      break;
    default:
      assert(!"unknown header rule");
    }
    if (rc)
      return rc;
  }
  return 0;
}
