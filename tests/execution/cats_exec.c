/* The graphql-cats execution helper: runs one scenario's query against its
 * schema and test data with the directive-driven resolvers of the cats
 * (@resolveString, @resolveError, @resolvePromise..., abstract types from a
 * `type` field, {"$ref": name} links between data objects) and prints the
 * response. Promises are pending fields completed after the walk, in order.
 *
 * Usage: cats_exec SCHEMA DATA.json QUERY [--test-value NAME]
 *        [--operation NAME] [--variables VARS.json] [--validate yes|no]
 * DATA.json is the scenario's whole test-data object (a YAML → JSON copy). */
#include "execution/exec.h"
#include "schema/internal.h"

#include <stdio.h>
#include <stdlib.h>

enum kind {
  K_DEFAULT,
  K_STRING,
  K_ERROR,
  K_ERROR_LIST,
  K_EMPTY_OBJECT,
  K_ARGS_JSON,
  K_PROMISE,
  K_PROMISE_STRING,
  K_PROMISE_REJECT,
  K_PROMISE_REJECT_LIST
};

typedef struct field_conf {
  enum kind kind;
  const gql_ast_directive *dir;
} field_conf;

typedef struct job {
  gql_pending *p;
  const field_conf *conf;
  const gql_resolve_info *info; /* not kept: copied fields below */
  const gql_json_value *value;
  const gql_ast_directive *dir;
} job;

typedef struct cats {
  const gql_json_value *data; /* the whole test-data object */
  gql_arena *arena;
  job jobs[256];
  size_t head, tail;
} cats;

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b)
    b[n] = 0;
  *len = (size_t)n;
  return b;
}

static const gql_json_value *deref(const cats *c, const gql_json_value *v) {
  if (v && v->kind == GQL_JSON_OBJECT) {
    const gql_json_value *r = gql_json_get(v, GQL_STR("$ref"));
    if (r && r->kind == GQL_JSON_STRING)
      return gql_json_get(c->data, r->string);
  }
  return v;
}

static const gql_ast_value *dir_arg(const gql_ast_directive *d,
                                    const char *name) {
  const gql_ast_argument *a = gql_ast_find_argument(&d->args, name);
  return a ? a->value : NULL;
}

/* "Pic of size: $size" with the field's arguments substituted. */
static void write_string(const gql_resolve_info *info,
                         const gql_ast_directive *d, gql_out *out) {
  const gql_ast_value *v = dir_arg(d, "value");
  gql_str s = v ? v->u.string.value : (gql_str){"", 0};
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (size_t i = 0; i < s.len; i++) {
    if (s.ptr[i] != '$') {
      gql_buf_putc(&b, s.ptr[i]);
      continue;
    }
    size_t j = i + 1;
    while (j < s.len &&
           (s.ptr[j] == '_' || (s.ptr[j] >= 'a' && s.ptr[j] <= 'z') ||
            (s.ptr[j] >= 'A' && s.ptr[j] <= 'Z') ||
            (s.ptr[j] >= '0' && s.ptr[j] <= '9')))
      j++;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(j - i - 1), s.ptr + i + 1);
    const gql_value *a = gql_arg(info, name);
    if (a)
      gql_json_write_value(&b, a);
    else
      gql_buf_puts(&b, "undefined");
    i = j - 1;
  }
  gql_out_string(out, b.data ? b.data : "", b.len);
  gql_buf_free(&b);
}

typedef struct str_list {
  const gql_ast_value *values;
} str_list;

static void value_item(const void *list, size_t i, gql_out *out) {
  const gql_ast_value *l = list;
  const gql_ast_value *v = l->u.list.items[i];
  gql_out_string(out, v->u.string.value.ptr, v->u.string.value.len);
}

static void error_list(const gql_resolve_info *info, const gql_ast_directive *d,
                       gql_out *out) {
  const gql_ast_value *values = dir_arg(d, "values");
  const gql_ast_value *messages = dir_arg(d, "messages");
  for (uint32_t i = 0; messages && i < messages->u.list.count; i++) {
    gql_str m = messages->u.list.items[i]->u.string.value;
    char *msg = gql_arena_strndup(gql_info_arena(info), m.ptr, m.len);
    gql_info_error(info, msg);
  }
  gql_out_list(out, values, values ? values->u.list.count : 0, value_item);
}

static void error_message(const gql_resolve_info *info,
                          const gql_ast_directive *d, gql_out *out) {
  const gql_ast_value *m = dir_arg(d, "message");
  gql_str s = m ? m->u.string.value : (gql_str){"", 0};
  gql_out_error(out, gql_arena_strndup(gql_info_arena(info), s.ptr, s.len));
}

static void property(const cats *c, const gql_resolve_info *info,
                     const void *parent, gql_out *out) {
  const gql_json_value *p = deref(c, parent);
  if (!p || p->kind != GQL_JSON_OBJECT) {
    gql_out_null(out);
    return;
  }
  gql_str name = gql_info_field_name(info);
  const gql_json_value *v = deref(c, gql_json_get(p, name));
  gql_out_json(out, v);
}

static void resolve(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  const field_conf *conf = gql_info_data(info);
  cats *c = gql_info_context(info);
  switch (conf->kind) {
  case K_STRING:
    write_string(info, conf->dir, out);
    return;
  case K_ERROR:
    error_message(info, conf->dir, out);
    return;
  case K_ERROR_LIST:
    error_list(info, conf->dir, out);
    return;
  case K_EMPTY_OBJECT: {
    static const gql_json_value empty = {.kind = GQL_JSON_OBJECT};
    gql_out_json(out, &empty);
    return;
  }
  case K_ARGS_JSON: {
    gql_buf b;
    gql_buf_init(&b, NULL);
    const gql_value *args = gql_info_args(info);
    if (args)
      gql_json_write_value(&b, args);
    gql_out_string(out, b.data ? b.data : "{}", b.data ? b.len : 2);
    gql_buf_free(&b);
    return;
  }
  case K_DEFAULT:
    property(c, info, parent, out);
    return;
  default:
    break;
  }
  /* Promises: complete after the walk. Resolve what is needed now. */
  if (c->tail - c->head >= 256) {
    gql_out_error(out, "too many promises");
    return;
  }
  job *j = &c->jobs[c->tail++ % 256];
  *j = (job){.conf = conf, .dir = conf->dir};
  if (conf->kind == K_PROMISE) {
    const gql_json_value *p = deref(c, parent);
    j->value = p && p->kind == GQL_JSON_OBJECT
                   ? deref(c, gql_json_get(p, gql_info_field_name(info)))
                   : NULL;
  } else if (conf->kind == K_PROMISE_REJECT_LIST) {
    const gql_ast_value *messages = dir_arg(conf->dir, "messages");
    for (uint32_t i = 0; messages && i < messages->u.list.count; i++) {
      gql_str m = messages->u.list.items[i]->u.string.value;
      gql_info_error(info,
                     gql_arena_strndup(gql_info_arena(info), m.ptr, m.len));
    }
  }
  j->p = gql_out_pending(out);
}

static void run_job(job *j) {
  gql_out *out = gql_pending_out(j->p);
  if (!out)
    return;
  switch (j->conf->kind) {
  case K_PROMISE:
    gql_out_json(out, j->value);
    return;
  case K_PROMISE_STRING: {
    const gql_ast_value *v = dir_arg(j->dir, "value");
    gql_str s = v ? v->u.string.value : (gql_str){"", 0};
    gql_out_string(out, s.ptr, s.len);
    return;
  }
  case K_PROMISE_REJECT: {
    const gql_ast_value *m = dir_arg(j->dir, "message");
    gql_str s = m ? m->u.string.value : (gql_str){"", 0};
    char msg[512];
    snprintf(msg, sizeof msg, "%.*s", (int)s.len, s.ptr);
    gql_out_error(out, msg);
    return;
  }
  case K_PROMISE_REJECT_LIST: {
    const gql_ast_value *values = dir_arg(j->dir, "values");
    gql_out_list(out, values, values ? values->u.list.count : 0, value_item);
    return;
  }
  default:
    gql_out_null(out);
  }
}

static int64_t resolve_type(const gql_resolve_info *info, const void *value) {
  cats *c = gql_info_context(info);
  const gql_json_value *v = deref(c, value);
  const gql_json_value *t =
      v && v->kind == GQL_JSON_OBJECT ? gql_json_get(v, GQL_STR("type")) : NULL;
  if (!t || t->kind != GQL_JSON_STRING)
    return -1;
  return gql_schema_type_by_name(gql_exec_info_schema(info), t->string.ptr,
                                 t->string.len);
}

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  fwrite(json, 1, len, stdout);
  fputc('\n', stdout);
}

static const struct {
  const char *name;
  enum kind kind;
} directives[] = {
    {"resolveString", K_STRING},
    {"resolveError", K_ERROR},
    {"resolveErrorList", K_ERROR_LIST},
    {"resolveEmptyObject", K_EMPTY_OBJECT},
    {"argumentsJson", K_ARGS_JSON},
    {"resolvePromise", K_PROMISE},
    {"resolvePromiseString", K_PROMISE_STRING},
    {"resolvePromiseReject", K_PROMISE_REJECT},
    {"resolvePromiseRejectList", K_PROMISE_REJECT_LIST},
};

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: cats_exec SCHEMA DATA QUERY [--test-value NAME] "
                    "[--operation NAME] [--variables FILE] [--validate yes|no]"
                    "\n");
    return 2;
  }
  const char *test_value = NULL, *op = NULL, *vars_path = NULL;
  bool validate = true; /* the scenarios' validate-query defaults to true */
  for (int i = 4; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--test-value") == 0)
      test_value = argv[i + 1];
    else if (strcmp(argv[i], "--operation") == 0)
      op = argv[i + 1];
    else if (strcmp(argv[i], "--variables") == 0)
      vars_path = argv[i + 1];
    else if (strcmp(argv[i], "--validate") == 0)
      validate = strcmp(argv[i + 1], "no") != 0;
  }
  size_t slen, dlen, qlen, vlen = 0;
  char *sdl = read_all(argv[1], &slen), *data = read_all(argv[2], &dlen),
       *query = read_all(argv[3], &qlen);
  char *vars = vars_path ? read_all(vars_path, &vlen) : NULL;
  if (!sdl || !data || !query) {
    fprintf(stderr, "cats_exec: cannot read the inputs\n");
    return 2;
  }
  gql_schema *s;
  gql_arena *arena = gql_arena_new(NULL);
  if (gql_schema_from_sdl(sdl, slen, NULL, &s, NULL) < 0) {
    /* The cats schemas use directives they do not declare: build without
     * the SDL rules. */
    gql_error_list el;
    gql_error_list_init(&el, arena, 0);
    gql_schema_build_options bo = {.skip_sdl_validation = true};
    if (gql_schema_build(sdl, slen, NULL, &bo, &s, &el) < 0) {
      fprintf(stderr, "cats_exec: bad schema: %s\n",
              el.count ? el.items[0].message : "?");
      return 2;
    }
  }
  cats c = {.arena = arena};
  gql_json_value *all;
  if (gql_json_parse(arena, data, dlen, NULL, &all, NULL) < 0) {
    fprintf(stderr, "cats_exec: the data is not JSON\n");
    return 2;
  }
  c.data = all;
  for (uint32_t t = 0; t < s->ntypes; t++) {
    gql_type *ty = &s->types[t];
    if (ty->builtin)
      continue;
    if (ty->kind == GQL_TYPE_INTERFACE || ty->kind == GQL_TYPE_UNION)
      gql_schema_set_resolve_type(s, ty->name.ptr, resolve_type);
    if (ty->kind != GQL_TYPE_OBJECT)
      continue;
    for (uint32_t i = 0; i < ty->nfields; i++) {
      field_conf *conf = gql_arena_alloc(arena, sizeof *conf);
      *conf = (field_conf){K_DEFAULT, NULL};
      const gql_ast_field_def *fd = ty->fields[i].ast;
      for (size_t k = 0; fd && k < GQL_ARRAY_LEN(directives); k++) {
        const gql_ast_directive *d =
            gql_ast_find_directive(&fd->directives, directives[k].name);
        if (d)
          *conf = (field_conf){directives[k].kind, d};
      }
      gql_schema_set_resolver(s, ty->name.ptr, ty->fields[i].name.ptr, resolve,
                              conf,
                              conf->kind >= K_PROMISE ? 0 : GQL_RESOLVER_SYNC);
    }
  }
  gql_prepared *p;
  gql_errors errs = {.arena = arena};
  gql_prepare_options po = {.no_validate = !validate};
  int status = 0;
  if (gql_prepare(s, query, qlen, op, &po, &p, &errs) < 0) {
    gql_str errors = {0};
    if (errs.count)
      gql_errors_response(&errs, NULL, arena, &errors);
    printf("%.*s\n", (int)errors.len, errors.ptr ? errors.ptr : "");
    status = 1;
    goto done;
  }
  const gql_json_value *root =
      gql_json_get(all, gql_cstr(test_value ? test_value : "data"));
  gql_execute_params params = {.root_value = root,
                               .context = &c,
                               .arena = arena,
                               .variables_json = vars,
                               .variables_len = vlen,
                               .on_done = on_done,
                               /* graphql-cats expects graphql-js
                                  execute(): a subscription runs once */
                               .subscription_once = true};
  int rc = gql_execute(p, &params);
  while (rc == 0 && c.head < c.tail)
    run_job(&c.jobs[c.head++ % 256]);
  gql_prepared_free(p);
done:
  gql_schema_free(s);
  gql_arena_free(arena);
  free(sdl);
  free(data);
  free(query);
  free(vars);
  return status;
}
