/* YAML text → a small node tree, from libyaml's events.
 *
 * libyaml rather than libfyaml: fuzz_config found libfyaml 0.7.12 looping
 * forever, leaking and crashing in fy_parser_destroy on malformed input
 * within minutes (the inputs are kept in fuzz/seeds/fuzz_config/); libyaml
 * is the parser PyYAML and Ruby use, fuzzed for years by OSS-Fuzz.
 *
 * Events rather than a document tree, so that every limit is ours:
 * nesting depth, node count and scalar length are checked as the events
 * arrive, aliases are refused (no expansion can multiply the input, the
 * "billion laughs"), and every node keeps its line and column. */
#include "internal.h"

#include <stdlib.h>
#include <yaml.h>

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

static gql_location mark_loc(yaml_mark_t m) {
  return (gql_location){(uint32_t)m.line + 1, (uint32_t)m.column + 1};
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
  if (!GQL_ARRAY_RESERVE(r->c->arena, f->items, f->cap, f->count + 1)) {
    gql_cfg_error(r->c, n->loc, "out of memory");
    return false;
  }
  f->items[f->count++] = *n;
  return true;
}

static bool is_null_text(const char *t, size_t n) {
  return n == 0 || (n == 1 && t[0] == '~') ||
         (n == 4 && (memcmp(t, "null", 4) == 0 || memcmp(t, "Null", 4) == 0 ||
                     memcmp(t, "NULL", 4) == 0));
}

static bool on_scalar(reader *r, yaml_event_t *e, gql_location loc) {
  size_t len = e->data.scalar.length;
  const char *t = (const char *)e->data.scalar.value;
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
  n.quoted = e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
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
static bool plain_node(reader *r, const yaml_char_t *tag, gql_location loc) {
  if (tag) {
    gql_cfg_error(r->c, loc, "YAML tags are not supported here");
    return false;
  }
  return true;
}

static bool on_event(reader *r, yaml_event_t *e) {
  gql_location loc = mark_loc(e->start_mark);
  switch (e->type) {
  case YAML_DOCUMENT_START_EVENT:
    if (++r->documents > 1) {
      gql_cfg_error(r->c, loc, "only one YAML document is allowed");
      return false;
    }
    return true;
  case YAML_ALIAS_EVENT:
    gql_cfg_error(r->c, loc, "YAML aliases (*name) are not supported");
    return false;
  case YAML_SCALAR_EVENT:
    return plain_node(r, e->data.scalar.tag, loc) && on_scalar(r, e, loc);
  case YAML_MAPPING_START_EVENT:
    return plain_node(r, e->data.mapping_start.tag, loc) &&
           on_start(r, Y_MAP, loc);
  case YAML_SEQUENCE_START_EVENT:
    return plain_node(r, e->data.sequence_start.tag, loc) &&
           on_start(r, Y_SEQ, loc);
  case YAML_MAPPING_END_EVENT:
  case YAML_SEQUENCE_END_EVENT:
    return on_end(r);
  default:
    return true;
  }
}

/* Checked before the parser sees the text: UTF-8 throughout (YAML's own
 * rule; libyaml would also take UTF-16), no NUL, and no directive lines
 * (%YAML, %TAG), which a configuration file never needs. */
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
  yaml_parser_t p;
  reader *r = calloc(1, sizeof *r);
  if (!r || !yaml_parser_initialize(&p)) {
    free(r);
    gql_cfg_error(c, (gql_location){0, 0}, "out of memory");
    return false;
  }
  r->c = c;
  yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
  bool ok = true, end = false;
  while (ok && !end) {
    yaml_event_t e;
    if (!yaml_parser_parse(&p, &e)) {
      gql_location at = mark_loc(p.problem_mark);
      if (p.context)
        gql_cfg_error(c, at, "%s %s", p.context,
                      p.problem ? p.problem : "invalid YAML");
      else
        gql_cfg_error(c, at, "%s", p.problem ? p.problem : "invalid YAML");
      ok = false;
      break;
    }
    end = e.type == YAML_STREAM_END_EVENT;
    ok = on_event(r, &e);
    yaml_event_delete(&e);
  }
  if (ok && r->has_root) {
    if ((*root = gql_arena_alloc(c->arena, sizeof(ynode))))
      **root = r->root;
    else
      ok = false;
  }
  free(r);
  yaml_parser_delete(&p);
  return ok;
}
