/* The schemas of the recorded graphql-js executions whose result is an
 * introspection: type order, kinds, fields, interfaces, possible types and
 * directives must be what graphql-js's __schema answered. */
#include "helpers.h"
#include "json/json.h"

static const gql_json_value *get(const gql_json_value *o, const char *k) {
  return gql_json_get(o, gql_cstr(k));
}

static bool is_str(const gql_json_value *v, gql_str s) {
  return v && v->kind == GQL_JSON_STRING && gql_str_eq(v->string, s);
}

/* Compares one named list (fields / interfaces / possibleTypes ...) of
 * names; returns false and says why on a mismatch. */
static bool same_names(const char *what, const gql_type *t,
                       const gql_json_value *list, const gql_str *names,
                       uint32_t n) {
  if (!list || list->kind != GQL_JSON_ARRAY)
    return true; /* not asked for */
  if (list->array.count != n) {
    cr_log_error("%s.%s: %zu in graphql-js, %u here", t->name.ptr, what,
                 list->array.count, n);
    return false;
  }
  for (uint32_t i = 0; i < n; i++)
    if (!is_str(get(&list->array.items[i], "name"), names[i])) {
      cr_log_error("%s.%s[%u] differs (%s here)", t->name.ptr, what, i,
                   names[i].ptr);
      return false;
    }
  return true;
}

static bool check_type(const gql_schema *s, const gql_type *t,
                       const gql_json_value *jt) {
  gql_str names[512];
  uint32_t n;
  if (!is_str(get(jt, "kind"), gql_cstr(gql_type_kind_name(t->kind)))) {
    cr_log_error("%s: kind differs", t->name.ptr);
    return false;
  }
  const gql_json_value *fields = get(jt, "fields");
  bool all_fields = true; /* a query may leave deprecated fields out */
  for (uint32_t i = 0; i < t->nfields; i++)
    all_fields &= t->fields[i].deprecation_reason.ptr == NULL;
  if (fields && fields->kind == GQL_JSON_ARRAY &&
      (all_fields || fields->array.count == t->nfields)) {
    for (n = 0; n < t->nfields && n < 512; n++)
      names[n] = t->fields[n].name;
    if (!same_names("fields", t, fields, names, n))
      return false;
  }
  for (n = 0; n < t->ninterfaces && n < 512; n++)
    names[n] = s->types[t->interfaces[n]].name;
  if (!same_names("interfaces", t, get(jt, "interfaces"), names, n))
    return false;
  for (n = 0; n < t->npossible && n < 512; n++)
    names[n] = s->types[t->possible[n]].name;
  if (t->kind == GQL_TYPE_UNION || t->kind == GQL_TYPE_INTERFACE)
    if (!same_names("possibleTypes", t, get(jt, "possibleTypes"), names, n))
      return false;
  for (n = 0; n < t->ninput_fields && n < 512; n++)
    names[n] = t->input_fields[n].name;
  if (!same_names("inputFields", t, get(jt, "inputFields"), names, n))
    return false;
  return true;
}

Test(introspection_shape, recorded_schemas_have_graphql_js_shape) {
  FILE *f = fopen(GQL_SOURCE_DIR "/../shared/conformance/graphql-js/"
                                 "execution-replayable.jsonl",
                  "rb");
  if (!f)
    cr_skip_test("no conformance data");
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int checked = 0, failed = 0;
  while ((len = getline(&line, &cap, f)) > 0) {
    gql_arena *a = gql_arena_new(NULL);
    gql_json_value *rec;
    if (gql_json_parse(a, line, (size_t)len, NULL, &rec, NULL) != 0) {
      gql_arena_free(a);
      continue;
    }
    const gql_json_value *data = get(get(rec, "result"), "data");
    const gql_json_value *js = get(data, "__schema");
    const gql_json_value *types = get(js, "types");
    const gql_json_value *sdl = get(rec, "schema");
    if (!types || types->kind != GQL_JSON_ARRAY || !sdl ||
        sdl->kind != GQL_JSON_STRING) {
      gql_arena_free(a);
      continue;
    }
    gql_schema_build_options o = {.skip_type_validation = true};
    gql_schema *s = NULL;
    int rc =
        gql_schema_build(sdl->string.ptr, sdl->string.len, NULL, &o, &s, NULL);
    cr_expect_eq(rc, 0, "cannot build %s", get(rec, "test")->string.ptr);
    bool ok = rc == 0 && types->array.count == s->ntypes;
    if (rc == 0 && !ok)
      cr_log_error("%u types here, %zu in graphql-js", s->ntypes,
                   types->array.count);
    for (uint32_t i = 0; ok && i < s->ntypes; i++) {
      const gql_json_value *jt = &types->array.items[i];
      ok = is_str(get(jt, "name"), s->types[i].name);
      if (!ok)
        cr_log_error("type %u is %s here", i, s->types[i].name.ptr);
      ok = ok && check_type(s, &s->types[i], jt);
    }
    const gql_json_value *dirs = get(js, "directives");
    if (ok && dirs && dirs->kind == GQL_JSON_ARRAY) {
      ok = dirs->array.count == s->ndirectives;
      for (uint32_t i = 0; ok && i < s->ndirectives; i++)
        ok = is_str(get(&dirs->array.items[i], "name"), s->directives[i].name);
      if (!ok)
        cr_log_error("directives differ");
    }
    if (!ok) {
      failed++;
      cr_log_error("in: %s", get(rec, "test")->string.ptr);
    }
    checked++;
    gql_schema_free(s);
    gql_arena_free(a);
  }
  free(line);
  fclose(f);
  cr_log_info("%d recorded introspections checked", checked);
  cr_assert_gt(checked, 30);
  cr_assert_eq(failed, 0, "%d of %d recorded introspections differ", failed,
               checked);
}
