/* YAML text → a small node tree, from libfyaml's events.
 *
 * Events rather than libfyaml's document tree, so that every limit is ours:
 * nesting depth, node count and scalar length are checked as the events
 * arrive, aliases are refused (no expansion can multiply the input, the
 * "billion laughs"), and every node keeps its line and column. */
#include "internal.h"

#include <libfyaml.h>
#include <stdlib.h>

typedef struct frame {
  ynode node; /* kind and place; items filled at the end */
  ynode *items;
  uint32_t count, cap;
} frame;

typedef struct reader {
  cfg_ctx *c;
  frame stack[GQL_CONFIG_MAX_DEPTH];
  uint32_t depth;
  uint32_t nodes;
  uint32_t documents;
  ynode root;
  bool has_root;
  bool failed;
} reader;

static gql_location mark_loc(const struct fy_mark *m) {
  if (!m)
    return (gql_location){0, 0};
  return (gql_location){(uint32_t)m->line + 1, (uint32_t)m->column + 1};
}

static bool add_node(reader *r, const ynode *n) {
  if (++r->nodes > GQL_CONFIG_MAX_NODES) {
    gql_cfg_error(r->c, n->loc, "more than %u YAML nodes",
                  GQL_CONFIG_MAX_NODES);
    return false;
  }
  if (r->depth == 0) {
    r->root = *n;
    r->has_root = true;
    return true;
  }
  frame *f = &r->stack[r->depth - 1];
  if (f->count == f->cap) {
    uint32_t cap = f->cap ? f->cap * 2 : 8;
    ynode *items =
        gql_arena_grow(r->c->arena, f->items, f->count, cap, sizeof(ynode));
    if (!items) {
      gql_cfg_error(r->c, n->loc, "out of memory");
      return false;
    }
    f->items = items;
    f->cap = cap;
  }
  f->items[f->count++] = *n;
  return true;
}

static bool is_null_text(const char *t, size_t n) {
  return n == 0 || (n == 1 && t[0] == '~') ||
         (n == 4 && (memcmp(t, "null", 4) == 0 || memcmp(t, "Null", 4) == 0 ||
                     memcmp(t, "NULL", 4) == 0));
}

static bool on_scalar(reader *r, struct fy_event *e, gql_location loc) {
  size_t len = 0;
  const char *t = fy_token_get_text(e->scalar.value, &len);
  if (!t) {
    t = "";
    len = 0;
  }
  if (len > GQL_CONFIG_MAX_SCALAR) {
    gql_cfg_error(r->c, loc, "a value longer than %u bytes",
                  GQL_CONFIG_MAX_SCALAR);
    return false;
  }
  ynode n = {.kind = Y_SCALAR, .loc = loc, .len = (uint32_t)len};
  n.quoted = fy_token_scalar_style(e->scalar.value) != FYSS_PLAIN;
  n.is_null = !n.quoted && is_null_text(t, len);
  if (!(n.text = gql_arena_strndup(r->c->arena, t, len))) {
    gql_cfg_error(r->c, loc, "out of memory");
    return false;
  }
  return add_node(r, &n);
}

static bool on_start(reader *r, ynode_kind kind, gql_location loc) {
  if (r->depth == GQL_CONFIG_MAX_DEPTH) {
    gql_cfg_error(r->c, loc, "nested more than %u levels deep",
                  GQL_CONFIG_MAX_DEPTH);
    return false;
  }
  r->stack[r->depth++] = (frame){.node = {.kind = (uint8_t)kind, .loc = loc}};
  return true;
}

static bool on_end(reader *r) {
  assert(r->depth > 0);
  frame f = r->stack[--r->depth];
  if (f.count > 2 * GQL_CONFIG_MAX_ITEMS) {
    gql_cfg_error(r->c, f.node.loc, "more than %u entries",
                  GQL_CONFIG_MAX_ITEMS);
    return false;
  }
  f.node.items = f.items;
  f.node.len = f.count;
  return add_node(r, &f.node);
}

/* The tag and anchor checks shared by scalars, maps and lists. */
static bool plain_node(reader *r, struct fy_token *tag, gql_location loc) {
  if (tag) {
    gql_cfg_error(r->c, loc, "YAML tags are not supported here");
    return false;
  }
  return true;
}

static bool on_event(reader *r, struct fy_event *e) {
  gql_location loc = mark_loc(fy_event_start_mark(e));
  switch (e->type) {
  case FYET_DOCUMENT_START:
    if (++r->documents > 1) {
      gql_cfg_error(r->c, loc, "only one YAML document is allowed");
      return false;
    }
    return true;
  case FYET_ALIAS:
    gql_cfg_error(r->c, loc, "YAML aliases (*name) are not supported");
    return false;
  case FYET_SCALAR:
    return plain_node(r, e->scalar.tag, loc) && on_scalar(r, e, loc);
  case FYET_MAPPING_START:
    return plain_node(r, e->mapping_start.tag, loc) && on_start(r, Y_MAP, loc);
  case FYET_SEQUENCE_START:
    return plain_node(r, e->sequence_start.tag, loc) && on_start(r, Y_SEQ, loc);
  case FYET_MAPPING_END:
  case FYET_SEQUENCE_END:
    return on_end(r);
  default:
    return true;
  }
}

static void report_diag(cfg_ctx *c, struct fy_diag *diag) {
  void *it = NULL;
  struct fy_diag_error *e;
  uint32_t n = 0;
  while ((e = fy_diag_errors_iterate(diag, &it))) {
    if (e->type < FYET_ERROR)
      continue;
    gql_location loc = {e->line > 0 ? (uint32_t)e->line : 0,
                        e->column > 0 ? (uint32_t)e->column : 1};
    gql_cfg_error(c, loc, "%s", e->msg ? e->msg : "invalid YAML");
    n++;
  }
  if (!n)
    gql_cfg_error(c, (gql_location){0, 0}, "invalid YAML");
}

/* Checked before libfyaml sees the text: UTF-8 throughout (YAML's own
 * rule), no NUL, and no directive lines (%YAML, %TAG): libfyaml 0.7.12
 * loops forever on a directive holding invalid UTF-8 (found by
 * fuzz_config), and a configuration file needs no directive. */
static bool plain_text(cfg_ctx *c, const char *text, size_t len) {
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < len;) {
    unsigned char ch = (unsigned char)text[i];
    size_t n = 1;
    uint32_t cp;
    if (col == 1 && ch == '%') {
      gql_cfg_error(c, (gql_location){line, col},
                    "YAML directives (%%YAML, %%TAG) are not supported");
      return false;
    }
    if (ch == 0) {
      gql_cfg_error(c, (gql_location){line, col}, "a NUL byte");
      return false;
    }
    if (ch >= 0x80 && !(n = gql_utf8_decode(text + i, len - i, &cp))) {
      gql_cfg_error(c, (gql_location){line, col}, "not UTF-8");
      return false;
    }
    i += n;
    if (ch == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  return true;
}

bool gql_yaml_read(cfg_ctx *c, const char *text, size_t len, ynode **root) {
  *root = NULL;
  if (len > GQL_CONFIG_MAX_BYTES) {
    gql_cfg_error(c, (gql_location){0, 0}, "larger than %zu bytes",
                  GQL_CONFIG_MAX_BYTES);
    return false;
  }
  if (!plain_text(c, text, len))
    return false;
  struct fy_diag_cfg dc;
  fy_diag_cfg_default(&dc);
  dc.fp = NULL;
  dc.level = FYET_ERROR;
  struct fy_diag *diag = fy_diag_create(&dc);
  if (!diag) {
    gql_cfg_error(c, (gql_location){0, 0}, "out of memory");
    return false;
  }
  fy_diag_set_collect_errors(diag, true);
  struct fy_parse_cfg pc = {.flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG |
                                     FYPCF_DEFAULT_VERSION_1_2 |
                                     FYPCF_JSON_NONE | FYPCF_DISABLE_MMAP_OPT,
                            .diag = diag};
  struct fy_parser *p = fy_parser_create(&pc);
  reader *r = calloc(1, sizeof *r);
  bool ok = p && r && fy_parser_set_string(p, text, len) == 0;
  if (r)
    r->c = c;
  if (!ok)
    gql_cfg_error(c, (gql_location){0, 0}, "out of memory");
  struct fy_event *e;
  while (ok && (e = fy_parser_parse(p))) {
    ok = on_event(r, e);
    fy_parser_event_free(p, e);
  }
  if (ok && fy_parser_get_stream_error(p)) {
    report_diag(c, diag);
    ok = false;
  }
  if (ok && r->has_root) {
    if ((*root = gql_arena_alloc(c->arena, sizeof(ynode))))
      **root = r->root;
    else
      ok = false;
  }
  free(r);
  fy_parser_destroy(p);
  fy_diag_destroy(diag);
  return ok;
}
