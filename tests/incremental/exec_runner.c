/*
 * Runs one execution case of the incremental corpus (cases/exec/NAME.json)
 * through gql_execute_incremental and prints each payload as a line of
 * compact JSON, for run.py to check against what graphql-js 17.1 answered.
 *
 * Usage: incremental_exec CASE.json
 *
 * Every field resolves as graphql-js's default resolver does (the parent's
 * property of the field's name), with the corpus's markers (README.md):
 * {"$error": M} fails the field or item with M; {"$async": V, "$delay": N}
 * makes it pending (gql_out_pending) and completes it with V N ticks after
 * its resolver ran. A tick is one turn of this program's loop: the due
 * completions of a tick run in the order their resolvers ran.
 */
#include "gql.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct due {
  gql_pending *p;
  const gql_value *v;
  long tick;
} due;

static due *queue;
static size_t nqueue, qcap;
static long now;

static void write_value(gql_out *out, const gql_value *v);

static void write_item(const void *list, size_t i, gql_out *out) {
  write_value(out, gql_value_item(list, i));
}

static const gql_value *member(const gql_value *v, const char *name) {
  return gql_value_kind_of(v) == GQL_VALUE_OBJECT
             ? gql_value_get(v, name, strlen(name))
             : NULL;
}

static void write_value(gql_out *out, const gql_value *v) {
  if (!v || gql_value_kind_of(v) == GQL_VALUE_NULL) {
    gql_out_null(out);
    return;
  }
  const gql_value *m;
  if ((m = member(v, "$error"))) {
    gql_str s = gql_value_string(m);
    char *msg = strndup(s.ptr ? s.ptr : "", s.len);
    gql_out_error(out, msg ? msg : "error");
    free(msg);
    return;
  }
  if ((m = member(v, "$async"))) {
    const gql_value *d = member(v, "$delay");
    int64_t delay = 1;
    if (d)
      gql_value_int(d, &delay);
    gql_pending *p = gql_out_pending(out);
    if (!p)
      return;
    if (nqueue == qcap) {
      qcap = qcap ? qcap * 2 : 16;
      queue = realloc(queue, qcap * sizeof *queue);
      if (!queue)
        abort();
    }
    queue[nqueue++] = (due){p, m, now + delay};
    return;
  }
  if (gql_value_kind_of(v) == GQL_VALUE_LIST) {
    gql_out_list(out, v, gql_value_count(v), write_item);
    return;
  }
  gql_out_json(out, v);
}

static void resolve(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  gql_str name = gql_info_field_name(info);
  const gql_value *pv = parent;
  write_value(out, gql_value_kind_of(pv) == GQL_VALUE_OBJECT
                       ? gql_value_get(pv, name.ptr, name.len)
                       : NULL);
}

static void on_payload(void *ud, const char *json, size_t len, bool errs) {
  (void)ud;
  (void)errs;
  fwrite(json, 1, len, stdout);
  fputc('\n', stdout);
}

static char *read_file(const char *path, size_t *len) {
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
  if (b) {
    b[n] = 0;
    *len = (size_t)n;
  }
  return b;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: incremental_exec CASE.json\n");
    return 2;
  }
  size_t len;
  char *text = read_file(argv[1], &len);
  gql_arena *arena = gql_arena_new(NULL);
  const gql_value *c;
  if (!text || !arena || gql_value_parse(arena, text, len, &c) < 0) {
    fprintf(stderr, "incremental_exec: cannot read %s\n", argv[1]);
    return 2;
  }
  gql_str sdl = gql_value_string(member(c, "schema"));
  gql_str doc = gql_value_string(member(c, "document"));
  const gql_value *ds = member(c, "deferStreamDirectives");
  const gql_value *opv = member(c, "operationName");
  gql_schema_build_options bo = {.defer_stream = ds && gql_value_bool(ds)};
  gql_schema *s;
  gql_error_list el;
  gql_error_list_init(&el, arena, 10);
  if (gql_schema_build(sdl.ptr, sdl.len, NULL, &bo, &s, &el) < 0) {
    fprintf(stderr, "incremental_exec: schema: %s\n",
            el.count ? el.items[0].message : "?");
    return 2;
  }
  for (uint32_t t = 0; t < s->ntypes; t++) {
    const gql_type *ty = &s->types[t];
    if (ty->kind != GQL_TYPE_OBJECT ||
        (ty->name.len > 1 && ty->name.ptr[0] == '_' && ty->name.ptr[1] == '_'))
      continue;
    char tn[256];
    snprintf(tn, sizeof tn, "%.*s", (int)ty->name.len, ty->name.ptr);
    for (uint32_t f = 0; f < ty->nfields; f++) {
      char fn[256];
      snprintf(fn, sizeof fn, "%.*s", (int)ty->fields[f].name.len,
               ty->fields[f].name.ptr);
      gql_schema_set_resolver(s, tn, fn, resolve, NULL, 0);
    }
  }
  gql_schema_finalize(s);
  char op[256] = {0};
  if (opv && gql_value_kind_of(opv) == GQL_VALUE_STRING) {
    gql_str o = gql_value_string(opv);
    snprintf(op, sizeof op, "%.*s", (int)o.len, o.ptr);
  }
  gql_prepared *p;
  gql_errors errs = {0};
  if (gql_prepare(s, doc.ptr, doc.len, op[0] ? op : NULL, NULL, &p, &errs) <
      0) {
    fprintf(stderr, "incremental_exec: the document does not prepare\n");
    return 2;
  }
  gql_str vars = {0};
  const gql_value *vv = member(c, "variables");
  if (vv)
    gql_value_print(arena, vv, &vars);
  gql_execute_params params = {.variables_json = vars.ptr,
                               .variables_len = vars.len,
                               .root_value = member(c, "rootValue"),
                               .on_done = on_payload};
  int rc = gql_execute_incremental(p, &params);
  /* the loop: one tick a turn, until nothing is pending */
  while (rc == 1 && nqueue) {
    now++;
    size_t n = nqueue;
    for (size_t i = 0; i < n && i < nqueue; i++) {
      if (queue[i].tick > now)
        continue;
      due d = queue[i];
      memmove(queue + i, queue + i + 1, (nqueue - i - 1) * sizeof *queue);
      nqueue--;
      n--;
      i--;
      write_value(gql_pending_out(d.p), d.v);
    }
  }
  if (rc < 0)
    fprintf(stderr, "incremental_exec: %s\n", gql_strerror(rc));
  fflush(stdout);
  gql_prepared_free(p);
  gql_schema_free(s);
  gql_arena_free(arena);
  free(queue);
  free(text);
  return rc < 0 ? 1 : 0;
}
