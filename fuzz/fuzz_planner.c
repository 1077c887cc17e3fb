/* libFuzzer target: operations planned over a fixed supergraph
 * (fuzz/fuzz_planner.graphql: entities keyed in several subgraphs with
 * composite keys, interfaces, unions, @requires, @provides, @shareable;
 * made by bench/gateway-scale/gen.py and Apollo's composition, see
 * scripts/fuzz.sh).
 *
 * The first byte picks the mode. Text (even): the rest of the bytes are
 * the operation. Structured (odd): the bytes steer a walk over the API
 * schema's types that writes an operation (fields with their required
 * arguments, aliases, __typename, inline fragments on possible types,
 * named fragments, @skip / @include on literals and variables, @defer on
 * inline fragments with labels and conditions), so that
 * most inputs are valid and reach the planner's deep paths.
 *
 * Either way the operation is parsed, validated against the API schema
 * and, when valid, planned through a small plan cache (evicting as it
 * goes) and printed, then planned for two requesters who may see more of
 * the supergraph's guarded fields (@authenticated, @requiresScopes) than
 * the cached plan's anonymous one. Invariants: a refusal carries a
 * message; a plan's requests are ordered by wave and name known
 * subgraphs. */
#include "gateway/gateway.h"
#include "schema/schema.h"
#include "validation/validation.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct bytes {
  const uint8_t *p;
  size_t n;
} bytes;

static unsigned take(bytes *b) {
  if (!b->n)
    return 0;
  b->n--;
  return *b->p++;
}

typedef struct writer {
  const gql_schema *s;
  bytes in;
  gql_buf out;
  unsigned fields; /* written so far (bounded) */
  unsigned aliases;
  unsigned labels; /* @defer labels (unique) */
  bool uses_var;
  uint32_t frag_type; /* a type for the one named fragment, or NO_TYPE */
  bool in_fragment;   /* writing it: no spread of itself */
} writer;

static void write_value(writer *w, gql_type_ref ref, unsigned depth);

static void write_named_value(writer *w, uint32_t t, unsigned depth) {
  const gql_schema *s = w->s;
  const gql_type *type = gql_schema_type_at(s, t);
  unsigned pick = take(&w->in);
  if (type->kind == GQL_TYPE_ENUM) {
    const gql_enum_value *v = &type->values[pick % type->nvalues];
    gql_buf_put(&w->out, v->name.ptr, v->name.len);
  } else if (type->kind == GQL_TYPE_INPUT_OBJECT) {
    gql_buf_putc(&w->out, '{');
    for (uint32_t i = 0; i < type->ninput_fields && depth < 4; i++) {
      const gql_input_value *f = &type->input_fields[i];
      if (!gql_type_ref_is_non_null(f->type) && !(take(&w->in) & 1))
        continue;
      gql_buf_put(&w->out, f->name.ptr, f->name.len);
      gql_buf_putc(&w->out, ':');
      write_value(w, f->type, depth + 1);
      gql_buf_putc(&w->out, ' ');
    }
    gql_buf_putc(&w->out, '}');
  } else if (t == s->t_int) {
    gql_buf_printf(&w->out, "%u", pick);
  } else if (t == s->t_float) {
    gql_buf_printf(&w->out, "%u.5", pick);
  } else if (t == s->t_boolean) {
    gql_buf_puts(&w->out, pick & 1 ? "true" : "false");
  } else {
    gql_buf_printf(&w->out, "\"%u\"", pick); /* String, ID, custom */
  }
}

static void write_value(writer *w, gql_type_ref ref, unsigned depth) {
  uint32_t i = 0;
  while (i < ref.nmods && ref.mods[i] == '!')
    i++;
  if (i < ref.nmods) { /* a list: one item, or the item alone (coerced) */
    gql_type_ref inner = {ref.type, ref.nmods - i - 1, ref.mods + i + 1};
    bool bracket = take(&w->in) & 1;
    if (bracket)
      gql_buf_putc(&w->out, '[');
    write_value(w, inner, depth + 1);
    if (bracket)
      gql_buf_putc(&w->out, ']');
    return;
  }
  write_named_value(w, ref.type, depth);
}

static void write_directive(writer *w) {
  unsigned pick = take(&w->in);
  if ((pick & 7) != 1)
    return;
  const char *name = pick & 8 ? "skip" : "include";
  if (pick & 16) {
    w->uses_var = true;
    gql_buf_printf(&w->out, " @%s(if: $v)", name);
  } else {
    gql_buf_printf(&w->out, " @%s(if: %s)", name, pick & 32 ? "true" : "false");
  }
}

/* A fragment's directives: maybe @skip / @include, maybe @defer. */
static void write_fragment_directives(writer *w) {
  write_directive(w);
  unsigned pick = take(&w->in);
  if ((pick & 3) != 1)
    return;
  if (pick & 4) {
    w->uses_var = true;
    gql_buf_puts(&w->out, " @defer(if: $v)");
  } else if (pick & 8) {
    gql_buf_printf(&w->out, " @defer(label: \"l%u\")", w->labels++);
  } else {
    gql_buf_puts(&w->out, pick & 16 ? " @defer(if: false)" : " @defer");
  }
}

static void write_selection(writer *w, uint32_t t, unsigned depth);

static void write_field(writer *w, const gql_type *type, unsigned depth) {
  const gql_field *f = &type->fields[take(&w->in) % type->nfields];
  w->fields++;
  if ((take(&w->in) & 3) == 0)
    gql_buf_printf(&w->out, "a%u: ", w->aliases++);
  gql_buf_put(&w->out, f->name.ptr, f->name.len);
  bool open = false;
  for (uint32_t i = 0; i < f->nargs; i++) {
    const gql_input_value *a = &f->args[i];
    bool required = gql_type_ref_is_non_null(a->type) && !a->default_value;
    if (!required && !(take(&w->in) & 1))
      continue;
    gql_buf_puts(&w->out, open ? ", " : "(");
    open = true;
    gql_buf_put(&w->out, a->name.ptr, a->name.len);
    gql_buf_puts(&w->out, ": ");
    write_value(w, a->type, 0);
  }
  if (open)
    gql_buf_putc(&w->out, ')');
  write_directive(w);
  if (gql_schema_is_composite(w->s, f->type.type)) {
    gql_buf_puts(&w->out, " { ");
    write_selection(w, f->type.type, depth + 1);
    gql_buf_puts(&w->out, " }");
  }
}

/* A selection set on type t: 1-4 selections. */
static void write_selection(writer *w, uint32_t t, unsigned depth) {
  const gql_schema *s = w->s;
  const gql_type *type = gql_schema_type_at(s, t);
  unsigned n = 1 + take(&w->in) % 4;
  for (unsigned i = 0; i < n; i++) {
    if (i)
      gql_buf_putc(&w->out, ' ');
    unsigned pick = take(&w->in) % 10;
    bool deep = depth < 6 && w->fields < 200 && w->in.n;
    if (!deep || pick == 0 || type->nfields == 0 ||
        type->kind == GQL_TYPE_UNION) {
      if (deep && type->npossible && pick != 0) {
        uint32_t p = type->possible[take(&w->in) % type->npossible];
        const gql_type *pt = gql_schema_type_at(s, p);
        gql_buf_printf(&w->out, "... on %.*s", (int)pt->name.len, pt->name.ptr);
        write_fragment_directives(w);
        gql_buf_puts(&w->out, " { ");
        write_selection(w, p, depth + 1);
        gql_buf_puts(&w->out, " }");
      } else {
        gql_buf_puts(&w->out, "__typename");
      }
    } else if (pick == 1 && type->npossible) {
      uint32_t p = type->possible[take(&w->in) % type->npossible];
      const gql_type *pt = gql_schema_type_at(s, p);
      gql_buf_printf(&w->out, "... on %.*s { ", (int)pt->name.len,
                     pt->name.ptr);
      write_selection(w, p, depth + 1);
      gql_buf_puts(&w->out, " }");
    } else if (pick == 2 && depth > 0 && !w->in_fragment) {
      /* a spread of the one named fragment, on this type */
      if (w->frag_type == GQL_NO_TYPE)
        w->frag_type = t;
      if (w->frag_type == t)
        gql_buf_puts(&w->out, "...F");
      else
        gql_buf_puts(&w->out, "__typename");
    } else if (pick == 3) {
      gql_buf_puts(&w->out, "...");
      write_fragment_directives(w);
      gql_buf_puts(&w->out, " { ");
      write_selection(w, t, depth + 1);
      gql_buf_puts(&w->out, " }");
    } else {
      write_field(w, type, depth);
    }
  }
}

/* Writes an operation from the bytes into w->out. */
static void write_operation(writer *w) {
  const gql_schema *s = w->s;
  gql_buf body;
  gql_buf_init(&body, NULL);
  gql_buf swap = w->out;
  w->out = body;
  gql_buf_puts(&w->out, "{ ");
  write_selection(w, s->query, 0);
  gql_buf_puts(&w->out, " }");
  if (w->frag_type != GQL_NO_TYPE) {
    const gql_type *ft = gql_schema_type_at(s, w->frag_type);
    gql_buf_printf(&w->out, "\nfragment F on %.*s { ", (int)ft->name.len,
                   ft->name.ptr);
    w->in_fragment = true;
    write_selection(w, w->frag_type, 5);
    gql_buf_puts(&w->out, " }");
  }
  body = w->out;
  w->out = swap;
  gql_buf_puts(&w->out, "query Q");
  if (w->uses_var)
    gql_buf_puts(&w->out, "($v: Boolean!)");
  gql_buf_putc(&w->out, ' ');
  gql_buf_put(&w->out, body.data, body.len);
  gql_buf_free(&body);
}

static const gql_supergraph *fixed(void) {
  static gql_supergraph *sg;
  if (sg)
    return sg;
  const char *path = GQL_SOURCE_DIR "/fuzz/fuzz_planner.graphql";
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "fuzz_planner: cannot open %s\n", path);
    abort();
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *sdl = malloc((size_t)n + 1);
  if (!sdl || fread(sdl, 1, (size_t)n, f) != (size_t)n)
    abort();
  fclose(f);
  const char *err = NULL;
  if (gql_supergraph_load(sdl, (size_t)n, &sg, NULL, &err)) {
    fprintf(stderr, "fuzz_planner: %s: %s\n", path, err ? err : "?");
    abort();
  }
  free(sdl);
  return sg;
}

static void check_plan(const gql_supergraph *sg, const gql_gw_plan *plan) {
  uint32_t level = 0;
  for (uint32_t i = 0; i < plan->nbatches; i++) {
    const gql_gw_batch *b = &plan->batches[i];
    if (b->graph >= sg->ngraphs || b->level < level || b->level == 0 ||
        b->level > plan->nlevels || !b->operation.len)
      __builtin_trap();
    level = b->level;
  }
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_gw_plan_print(plan, &out);
  if (!out.failed && out.len == 0)
    __builtin_trap();
  gql_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const gql_supergraph *sg = fixed();
  /* small: plans are evicted (and freed) all along the run */
  static gql_gw_plan_cache *cache;
  if (!cache)
    cache = gql_gw_plan_cache_new(sg, 256 << 10);
  if (size == 0)
    return 0;
  writer w = {.s = sg->api, .in = {data + 1, size - 1}};
  w.frag_type = GQL_NO_TYPE;
  gql_buf_init(&w.out, NULL);
  if (data[0] & 1)
    write_operation(&w);
  else if (size > 1) /* (nothing put in a buffer never allocated) */
    gql_buf_put(&w.out, data + 1, size - 1);
  if (w.out.failed) {
    gql_buf_free(&w.out);
    return 0;
  }
  gql_arena *arena = gql_arena_new(NULL);
  gql_arena_set_limit(arena, 256u << 20);
  gql_parse_options o = {
      .max_tokens = 8000, .max_depth = 64, .max_size = 1 << 17};
  gql_document *doc = NULL;
  gql_syntax_error se;
  const char *text = w.out.data ? w.out.data : "";
  if (gql_parse_syntax(arena, text, w.out.len, &o, &doc, &se) == 0) {
    gql_error_list errors;
    gql_error_list_init(&errors, arena, 0);
    int rc = gql_validate_document(sg->api, doc, NULL, 0, NULL, &errors);
    if (rc == 0 && errors.count == 0) {
      /* every operation of the document, by name (or the only one) */
      for (uint32_t i = 0; i < doc->definitions.count; i++) {
        const gql_ast_node *n = doc->definitions.items[i];
        if (n->kind != GQL_AST_OPERATION_DEFINITION)
          continue;
        const gql_ast_operation *op = (const gql_ast_operation *)n;
        gql_str nm = gql_ast_name_str(op->name);
        char *name = nm.len ? gql_arena_strndup(arena, nm.ptr, nm.len) : NULL;
        const gql_gw_plan *plan = NULL;
        gql_gw_plan_ref *ref = NULL;
        const char *err = NULL;
        rc = gql_gw_plan_cache_get(cache, text, w.out.len, name, &plan, &ref,
                                   &err);
        if (rc != 0 && rc != GQL_ENOMEM && (!err || !*err))
          __builtin_trap(); /* a refusal says why */
        if (rc == 0)
          check_plan(sg, plan);
        /* the variants of requesters who may see more: authenticated,
         * then with a scope (the supergraph's guarded fields) */
        static const gql_gw_who who[2] = {{true, {"", 0}}, {true, {"a", 1}}};
        for (int k = 0; rc == 0 && k < 2; k++) {
          const gql_gw_plan *v = NULL;
          err = NULL;
          int vr = gql_gw_plan_for(plan, NULL, 0, &who[k], arena, &v, &err);
          if (vr == 0)
            check_plan(sg, v);
          else if (vr != GQL_ENOMEM && (!err || !*err))
            __builtin_trap();
        }
        gql_gw_plan_cache_release(ref);
      }
    }
  }
  gql_arena_free(arena);
  gql_buf_free(&w.out);
  return 0;
}
