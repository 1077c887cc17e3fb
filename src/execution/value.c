/* The public face of JSON values (gql_value) and graphql-js inspect(). */
#include "exec.h"

const gql_json_value gql_exec_null_value = {.kind = GQL_JSON_NULL};

int gql_value_parse(gql_arena *arena, const char *json, size_t len,
                    const gql_value **out) {
  gql_json_value *v = NULL;
  int rc = gql_json_parse(arena, json, len, NULL, &v, NULL);
  *out = v;
  return rc;
}

gql_value_kind gql_value_kind_of(const gql_value *v) {
  return v ? (gql_value_kind)v->kind : GQL_VALUE_NULL;
}

bool gql_value_bool(const gql_value *v) {
  return v && v->kind == GQL_JSON_BOOL && v->boolean;
}

double gql_value_number(const gql_value *v) {
  return v && v->kind == GQL_JSON_NUMBER ? v->number.d : 0;
}

bool gql_value_int(const gql_value *v, int64_t *out) {
  if (!v || v->kind != GQL_JSON_NUMBER || !v->is_int)
    return false;
  *out = v->number.i;
  return true;
}

gql_str gql_value_string(const gql_value *v) {
  return v && v->kind == GQL_JSON_STRING ? v->string : (gql_str){"", 0};
}

size_t gql_value_count(const gql_value *v) {
  if (!v)
    return 0;
  if (v->kind == GQL_JSON_ARRAY)
    return v->array.count;
  if (v->kind == GQL_JSON_OBJECT)
    return v->object.count;
  return 0;
}

const gql_value *gql_value_item(const gql_value *v, size_t i) {
  if (!v || i >= gql_value_count(v))
    return NULL;
  return v->kind == GQL_JSON_ARRAY ? &v->array.items[i]
                                   : &v->object.members[i].value;
}

gql_str gql_value_key(const gql_value *v, size_t i) {
  if (!v || v->kind != GQL_JSON_OBJECT || i >= v->object.count)
    return (gql_str){"", 0};
  return v->object.members[i].key;
}

const gql_value *gql_value_get(const gql_value *v, const char *name,
                               size_t len) {
  return gql_json_get(v, (gql_str){name, len});
}

/* graphql-js inspect(): JSON strings, `{ a: 1 }`, `[1, 2]`, nesting cut at
 * depth 2 and lists at 10 items. */
int gql_value_print(gql_arena *arena, const gql_value *v, gql_str *out) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_json_write_value(&b, v ? v : &gql_exec_null_value);
  const char *text = gql_buf_cstr(&b);
  char *copy = text ? gql_arena_strndup(arena, text, b.len) : NULL;
  *out = (gql_str){copy, copy ? b.len : 0};
  gql_buf_free(&b);
  return copy ? 0 : GQL_ENOMEM;
}

int gql_output_json_string(gql_output *o, const char *s, size_t len) {
  /* The writer's buffer over the output's memory, handed back after. */
  size_t was = o->len;
  gql_buf b = {.data = o->data, .len = o->len, .cap = o->cap, .alc = o->alc};
  gql_json_write_string(&b, (gql_str){s, len});
  o->data = b.data;
  o->cap = b.cap;
  o->len = b.failed ? was : b.len;
  return b.failed ? GQL_ENOMEM : 0;
}

static void inspect_at(gql_buf *out, const gql_json_value *v, int depth) {
  switch (v->kind) {
  case GQL_JSON_NULL:
    gql_buf_puts(out, "null");
    return;
  case GQL_JSON_BOOL:
    gql_buf_puts(out, v->boolean ? "true" : "false");
    return;
  case GQL_JSON_NUMBER:
    if (v->is_int)
      gql_json_write_int(out, v->number.i);
    else if (v->number.d != v->number.d)
      gql_buf_puts(out, "NaN");
    else if (v->number.d == 1.0 / 0.0)
      gql_buf_puts(out, "Infinity");
    else if (v->number.d == -1.0 / 0.0)
      gql_buf_puts(out, "-Infinity");
    else
      gql_json_write_double(out, v->number.d);
    return;
  case GQL_JSON_STRING:
    gql_json_write_string(out, v->string);
    return;
  case GQL_JSON_ARRAY:
    if (v->array.count == 0) {
      gql_buf_puts(out, "[]");
      return;
    }
    if (depth >= 2) {
      gql_buf_puts(out, "[Array]");
      return;
    }
    gql_buf_putc(out, '[');
    for (size_t i = 0; i < v->array.count && i < 10; i++) {
      if (i)
        gql_buf_puts(out, ", ");
      inspect_at(out, &v->array.items[i], depth + 1);
    }
    if (v->array.count > 10) {
      size_t rest = v->array.count - 10;
      gql_buf_printf(out, ", ... %zu more item%s", rest, rest > 1 ? "s" : "");
    }
    gql_buf_putc(out, ']');
    return;
  case GQL_JSON_OBJECT:
    if (v->object.count == 0) {
      gql_buf_puts(out, "{}");
      return;
    }
    if (depth >= 2) {
      gql_buf_puts(out, "[Object]");
      return;
    }
    gql_buf_puts(out, "{ ");
    for (size_t i = 0; i < v->object.count; i++) {
      if (i)
        gql_buf_puts(out, ", ");
      gql_buf_put_str(out, v->object.members[i].key);
      gql_buf_puts(out, ": ");
      inspect_at(out, &v->object.members[i].value, depth + 1);
    }
    gql_buf_puts(out, " }");
    return;
  }
}

void gql_exec_inspect(gql_buf *out, const gql_json_value *v) {
  inspect_at(out, v ? v : &gql_exec_null_value, 0);
}

char *gql_exec_inspect_str(gql_arena *a, const gql_json_value *v) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_exec_inspect(&b, v);
  const char *s = gql_buf_cstr(&b);
  char *r = gql_arena_strndup(a, s ? s : "", s ? b.len : 0);
  gql_buf_free(&b);
  return r ? r : "";
}
