/* The persisted-document manifest (see persisted.h): the JSON text is
 * copied into one arena and read with the JSON reader; ids and bodies are
 * slices of it; two maps (id → operation, normalized body → operation)
 * answer lookups and safelist checks. */
#include "language/ast.h"
#include "persisted.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pq_op {
  gql_str id, body, normalized;
} pq_op;

struct gql_pq_manifest {
  gql_arena *arena;
  gql_arena *scratch; /* while reading: each body's parse */
  pq_op *ops;
  uint32_t count;
  gql_strmap by_id;
  gql_strmap by_body; /* normalized body → op index */
};

static int fail(char *err, size_t n, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t n, int rc, const char *fmt, ...) {
  if (err && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
  }
  return rc;
}

static int cmp_defs(const void *a, const void *b) {
  const gql_ast_node *x = *(const gql_ast_node *const *)a;
  const gql_ast_node *y = *(const gql_ast_node *const *)b;
  /* Operations before fragments; then by name (an anonymous operation
   * first), then document order for a stable sort. */
  bool xf = x->kind == GQL_AST_FRAGMENT_DEFINITION;
  bool yf = y->kind == GQL_AST_FRAGMENT_DEFINITION;
  if (xf != yf)
    return xf ? 1 : -1;
  gql_ast_name xn = xf ? ((const gql_ast_fragment *)x)->name
                       : ((const gql_ast_operation *)x)->name;
  gql_ast_name yn = yf ? ((const gql_ast_fragment *)y)->name
                       : ((const gql_ast_operation *)y)->name;
  size_t m = xn.len < yn.len ? xn.len : yn.len;
  int c = m ? memcmp(xn.ptr, yn.ptr, m) : 0;
  if (c)
    return c;
  if (xn.len != yn.len)
    return xn.len < yn.len ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

gql_str gql_pq_normalize(gql_str body, gql_arena *arena) {
  gql_document *doc = NULL;
  gql_syntax_error serr;
  if (gql_parse_syntax(arena, body.ptr, body.len, NULL, &doc, &serr) != 0)
    return body;
  uint32_t n = 0;
  const gql_ast_node **defs =
      gql_arena_alloc(arena, sizeof *defs * (doc->definitions.count + 1));
  if (!defs)
    return body;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (gql_ast_is_executable_definition(d->kind))
      defs[n++] = d;
  }
  qsort(defs, n, sizeof *defs, cmp_defs);
  gql_buf b;
  gql_allocator alc = gql_arena_allocator(arena);
  gql_buf_init(&b, &alc);
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      gql_buf_puts(&b, "\n\n");
    gql_print_node(&b, defs[i]);
  }
  if (b.failed || !b.len)
    return body;
  return (gql_str){b.data, b.len};
}

static bool str_member(const gql_json_value *obj, const char *name,
                       gql_str *out, bool *present) {
  const gql_json_value *v = gql_json_get(obj, gql_cstr(name));
  *present = v != NULL;
  if (!v)
    return true;
  if (v->kind != GQL_JSON_STRING)
    return false;
  *out = v->string;
  return true;
}

static int add_op(gql_pq_manifest *m, gql_str id, gql_str body,
                  const gql_pq_manifest_options *o, const char *where,
                  char *err, size_t n) {
  if (!id.len || id.len > 1024)
    return fail(err, n, GQL_EINVAL,
                "%s: the id must be a non-empty string of at most 1024 bytes",
                where);
  if (body.len > o->max_document_bytes)
    return fail(err, n, GQL_ELIMIT, "%s: the body is over %zu bytes", where,
                o->max_document_bytes);
  uint32_t at;
  if (gql_strmap_get(&m->by_id, id, &at)) {
    if (gql_str_eq(m->ops[at].body, body))
      return 0; /* listed twice, same document: harmless */
    return fail(err, n, GQL_EINVAL,
                "%s: id \"%.*s\" is listed twice with different bodies", where,
                (int)(id.len > 80 ? 80 : id.len), id.ptr);
  }
  pq_op *op = &m->ops[m->count];
  op->id = id;
  op->body = body;
  gql_arena_reset(m->scratch);
  gql_str norm = gql_pq_normalize(body, m->scratch);
  if (norm.ptr != body.ptr &&
      !(norm.ptr = gql_arena_strndup(m->arena, norm.ptr, norm.len)))
    return fail(err, n, GQL_ENOMEM, "out of memory");
  op->normalized = norm;
  if (gql_strmap_put(&m->by_id, id, m->count) < 0 ||
      gql_strmap_put(&m->by_body, op->normalized, m->count) < 0)
    return fail(err, n, GQL_ENOMEM, "out of memory");
  m->count++;
  return 0;
}

static int read_apollo(gql_pq_manifest *m, const gql_json_value *root,
                       const gql_pq_manifest_options *o, char *err, size_t n) {
  const gql_json_value *fmt = gql_json_get(root, GQL_STR("format"));
  if (fmt->kind != GQL_JSON_STRING ||
      !gql_str_eq_cstr(fmt->string, "apollo-persisted-query-manifest"))
    return fail(err, n, GQL_EINVAL,
                "format: expected \"apollo-persisted-query-manifest\"");
  const gql_json_value *ver = gql_json_get(root, GQL_STR("version"));
  if (!ver || ver->kind != GQL_JSON_NUMBER || !ver->is_int ||
      ver->number.i != 1)
    return fail(err, n, GQL_EINVAL, "version: expected 1");
  const gql_json_value *ops = gql_json_get(root, GQL_STR("operations"));
  if (!ops || ops->kind != GQL_JSON_ARRAY)
    return fail(err, n, GQL_EINVAL, "operations: expected an array");
  if (ops->array.count > o->max_operations)
    return fail(err, n, GQL_ELIMIT, "operations: more than %u",
                o->max_operations);
  m->ops = gql_arena_alloc(m->arena, sizeof *m->ops * (ops->array.count + 1));
  if (!m->ops)
    return fail(err, n, GQL_ENOMEM, "out of memory");
  for (size_t i = 0; i < ops->array.count; i++) {
    const gql_json_value *op = &ops->array.items[i];
    char where[48];
    snprintf(where, sizeof where, "operations[%zu]", i);
    if (op->kind != GQL_JSON_OBJECT)
      return fail(err, n, GQL_EINVAL, "%s: expected an object", where);
    gql_str id = {0}, body = {0}, name, type, client;
    bool has_id, has_body, has_name, has_type, has_client;
    if (!str_member(op, "id", &id, &has_id) || !has_id)
      return fail(err, n, GQL_EINVAL, "%s.id: expected a string", where);
    if (!str_member(op, "body", &body, &has_body) || !has_body)
      return fail(err, n, GQL_EINVAL, "%s.body: expected a string", where);
    if (!str_member(op, "name", &name, &has_name))
      return fail(err, n, GQL_EINVAL, "%s.name: expected a string", where);
    if (!str_member(op, "clientName", &client, &has_client))
      return fail(err, n, GQL_EINVAL, "%s.clientName: expected a string",
                  where);
    if (!str_member(op, "type", &type, &has_type) ||
        (has_type && !gql_str_eq_cstr(type, "query") &&
         !gql_str_eq_cstr(type, "mutation") &&
         !gql_str_eq_cstr(type, "subscription")))
      return fail(err, n, GQL_EINVAL,
                  "%s.type: expected query, mutation or subscription", where);
    int rc = add_op(m, id, body, o, where, err, n);
    if (rc < 0)
      return rc;
  }
  return 0;
}

static int read_map(gql_pq_manifest *m, const gql_json_value *root,
                    const gql_pq_manifest_options *o, char *err, size_t n) {
  if (root->object.count > o->max_operations)
    return fail(err, n, GQL_ELIMIT, "more than %u operations",
                o->max_operations);
  m->ops = gql_arena_alloc(m->arena, sizeof *m->ops * (root->object.count + 1));
  if (!m->ops)
    return fail(err, n, GQL_ENOMEM, "out of memory");
  for (size_t i = 0; i < root->object.count; i++) {
    const gql_json_member *mem = &root->object.members[i];
    char where[112];
    snprintf(where, sizeof where, "\"%.*s\"",
             (int)(mem->key.len > 80 ? 80 : mem->key.len), mem->key.ptr);
    if (mem->value.kind != GQL_JSON_STRING)
      return fail(err, n, GQL_EINVAL,
                  "%s: expected a document (string); a manifest is either "
                  "Apollo's {\"format\": \"apollo-persisted-query-manifest\", "
                  "...} or a map of id to document",
                  where);
    int rc = add_op(m, mem->key, mem->value.string, o, where, err, n);
    if (rc < 0)
      return rc;
  }
  return 0;
}

int gql_pq_manifest_parse(const char *json, size_t len,
                          const gql_pq_manifest_options *opt,
                          gql_pq_manifest **out, char *err, size_t n) {
  *out = NULL;
  gql_pq_manifest_options o = opt ? *opt : (gql_pq_manifest_options){0};
  if (!o.max_bytes)
    o.max_bytes = (size_t)64 << 20;
  if (!o.max_operations)
    o.max_operations = 1000000;
  if (!o.max_document_bytes)
    o.max_document_bytes = (size_t)1 << 20;
  if (len > o.max_bytes)
    return fail(err, n, GQL_ELIMIT, "the manifest is over %zu bytes",
                o.max_bytes);
  gql_pq_manifest *m = calloc(1, sizeof *m);
  if (!m || !(m->arena = gql_arena_new(NULL)) ||
      !(m->scratch = gql_arena_new(NULL))) {
    if (m)
      gql_arena_free(m->arena);
    free(m);
    return fail(err, n, GQL_ENOMEM, "out of memory");
  }
  /* JSON values take ~16 arena bytes per byte of text; normalized bodies
   * a few more. */
  gql_arena_set_limit(m->arena, 40 * len + ((size_t)4 << 20));
  gql_strmap_init(&m->by_id, NULL);
  gql_strmap_init(&m->by_body, NULL);
  int rc;
  char *copy = gql_arena_strndup(m->arena, json ? json : "", len);
  gql_json_value *root = NULL;
  gql_json_error jerr;
  if (!copy) {
    rc = fail(err, n, GQL_ENOMEM, "out of memory");
  } else if ((rc = gql_json_parse(m->arena, copy, len, NULL, &root, &jerr)) <
             0) {
    rc = fail(err, n, rc, "%s", jerr.message);
  } else if (root->kind != GQL_JSON_OBJECT) {
    rc = fail(err, n, GQL_EINVAL, "a manifest is a JSON object");
  } else {
    const gql_json_value *fmt = gql_json_get(root, GQL_STR("format"));
    rc = fmt ? read_apollo(m, root, &o, err, n) : read_map(m, root, &o, err, n);
  }
  gql_arena_free(m->scratch);
  m->scratch = NULL;
  if (rc < 0) {
    gql_pq_manifest_free(m);
    return rc == GQL_EJSON || rc == GQL_ELIMIT || rc == GQL_ENOMEM ||
                   rc == GQL_EINVAL
               ? rc
               : GQL_EINVAL;
  }
  *out = m;
  return 0;
}

void gql_pq_manifest_free(gql_pq_manifest *m) {
  if (!m)
    return;
  gql_strmap_free(&m->by_id);
  gql_strmap_free(&m->by_body);
  gql_arena_free(m->arena);
  free(m);
}

uint32_t gql_pq_manifest_count(const gql_pq_manifest *m) {
  return m ? m->count : 0;
}

void gql_pq_manifest_op(const gql_pq_manifest *m, uint32_t i, gql_str *id,
                        gql_str *body) {
  assert(i < m->count);
  *id = m->ops[i].id;
  *body = m->ops[i].body;
}

bool gql_pq_manifest_get(const gql_pq_manifest *m, gql_str id, gql_str *body) {
  uint32_t at;
  if (!m || !gql_strmap_get(&m->by_id, id, &at))
    return false;
  *body = m->ops[at].body;
  return true;
}

bool gql_pq_manifest_allows(const gql_pq_manifest *m, gql_str body,
                            gql_arena *scratch) {
  if (!m || !m->count)
    return false;
  uint32_t at;
  return gql_strmap_get(&m->by_body, gql_pq_normalize(body, scratch), &at);
}
