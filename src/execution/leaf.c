/* Leaf values on the general path: graphql-js's serialize of the built-in
 * scalars (with its coercions and messages), enums by name and custom
 * scalars as they are. */
#include "executor.h"

/* Leaf writes in tree mode are byte ranges. */
static void bytes_begin(gql_out *o) {
  if (o->node)
    o->node->start = o->own.ctx->out->len;
}

static void bytes_end(gql_out *o) {
  if (o->node && o->node->kind == R_EMPTY) {
    o->node->kind = R_BYTES;
    o->node->end = o->own.ctx->out->len;
  }
}

/* JavaScript's Number(string) for the strings a resolver may return; false
 * when it is NaN. */
static bool js_number(gql_str s, double *out) {
  size_t i = 0, n = s.len;
  while (i < n && (s.ptr[i] == ' ' || s.ptr[i] == '\t' || s.ptr[i] == '\n' ||
                   s.ptr[i] == '\r'))
    i++;
  while (n > i && (s.ptr[n - 1] == ' ' || s.ptr[n - 1] == '\t' ||
                   s.ptr[n - 1] == '\n' || s.ptr[n - 1] == '\r'))
    n--;
  if (i == n) {
    *out = 0;
    return true;
  }
  char tmp[64];
  if (n - i >= sizeof tmp)
    return false;
  for (size_t j = i; j < n; j++)
    if (!strchr("0123456789+-.eE", s.ptr[j]))
      return false;
  memcpy(tmp, s.ptr + i, n - i);
  tmp[n - i] = 0;
  char *end;
  *out = strtod(tmp, &end);
  return *end == 0;
}

void gql_exec_serialize_leaf(gql_out *o, const gql_json_value *v) {
  exec_ctx *ctx = o->own.ctx;
  const gql_schema *s = ctx->s;
  uint32_t t = o->type.type;
  const gql_type *ty = &s->types[t];
  gql_buf *b = ctx->out;
  if (ty->kind == GQL_TYPE_ENUM) {
    const gql_enum_value *ev =
        v->kind == GQL_JSON_STRING ? gql_type_enum_value(ty, v->string) : NULL;
    if (!ev) {
      gql_exec_field_errorf(o, "Enum \"%.*s\" cannot represent value: %s",
                            (int)ty->name.len, ty->name.ptr,
                            gql_exec_inspect_str(ctx->arena, v));
      return;
    }
    bytes_begin(o);
    gql_json_write_string(b, ev->name);
    bytes_end(o);
    return;
  }
  bool is_num = v->kind == GQL_JSON_NUMBER;
  double d = is_num ? v->number.d : 0;
  if (t == s->t_int || t == s->t_float) {
    bool ok = true;
    if (v->kind == GQL_JSON_BOOL)
      d = v->boolean;
    else if (v->kind == GQL_JSON_STRING && v->string.len)
      ok = js_number(v->string, &d);
    else if (!is_num)
      ok = false;
    if (t == s->t_int) {
      if (!ok || d != floor(d) || !isfinite(d)) {
        gql_exec_field_errorf(o, "Int cannot represent non-integer value: %s",
                              gql_exec_inspect_str(ctx->arena, v));
        return;
      }
      if (d > 2147483647.0 || d < -2147483648.0) {
        gql_exec_field_errorf(
            o, "Int cannot represent non 32-bit signed integer value: %s",
            gql_exec_inspect_str(ctx->arena, v));
        return;
      }
      bytes_begin(o);
      gql_json_write_int(b, (int64_t)d);
      bytes_end(o);
      return;
    }
    if (!ok || !isfinite(d)) {
      gql_exec_field_errorf(o, "Float cannot represent non numeric value: %s",
                            gql_exec_inspect_str(ctx->arena, v));
      return;
    }
    bytes_begin(o);
    if (is_num && v->is_int)
      gql_json_write_int(b, v->number.i);
    else
      gql_json_write_double(b, d);
    bytes_end(o);
    return;
  }
  if (t == s->t_string || t == s->t_id) {
    bool id = t == s->t_id;
    if (v->kind == GQL_JSON_STRING) {
      bytes_begin(o);
      gql_json_write_string(b, v->string);
      bytes_end(o);
      return;
    }
    if (!id && v->kind == GQL_JSON_BOOL) {
      bytes_begin(o);
      gql_buf_puts(b, v->boolean ? "\"true\"" : "\"false\"");
      bytes_end(o);
      return;
    }
    if (is_num && isfinite(d) && (!id || d == floor(d))) {
      char num[32];
      size_t n = v->is_int ? (size_t)snprintf(num, sizeof num, "%lld",
                                              (long long)v->number.i)
                           : gql_dtoa(d, num);
      bytes_begin(o);
      gql_json_write_string(b, (gql_str){num, n});
      bytes_end(o);
      return;
    }
    gql_exec_field_errorf(o, "%s cannot represent value: %s",
                          id ? "ID" : "String",
                          gql_exec_inspect_str(ctx->arena, v));
    return;
  }
  if (t == s->t_boolean) {
    bool val;
    if (v->kind == GQL_JSON_BOOL)
      val = v->boolean;
    else if (is_num && isfinite(d))
      val = d != 0;
    else {
      gql_exec_field_errorf(o,
                            "Boolean cannot represent a non boolean value: %s",
                            gql_exec_inspect_str(ctx->arena, v));
      return;
    }
    bytes_begin(o);
    gql_buf_puts(b, val ? "true" : "false");
    bytes_end(o);
    return;
  }
  bytes_begin(o); /* custom scalar: serialize is the identity */
  gql_json_write_value(b, v);
  bytes_end(o);
}
