/* Loading a configuration file: reading it, the YAML (yaml.c), the keys
 * (keys.c), and the error lines handed back. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

gql_settings *gql_settings_new(void) {
  gql_arena *a = gql_arena_new(NULL);
  gql_settings *s = a ? gql_arena_alloc(a, sizeof *s) : NULL;
  if (!s) {
    gql_arena_free(a);
    return NULL;
  }
  memset(s, 0, sizeof *s);
  s->arena = a;
  s->cors.max_age = -1;
  s->jwt.leeway_s = -1;
  s->trace.depth = -1;
  return s;
}

void gql_settings_free(gql_settings *s) {
  if (s)
    gql_arena_free(s->arena);
}

static char *errors_out(cfg_ctx *c) {
  gql_buf_putc(&c->errors, 0);
  char *e = c->errors.failed ? NULL : c->errors.data;
  if (!e) {
    gql_buf_free(&c->errors);
    e = strdup("out of memory\n");
  }
  return e;
}

int gql_settings_load(const char *path, const char *text, size_t len,
                      const gql_settings_env *env, gql_settings **out,
                      char **errors) {
  *out = NULL;
  *errors = NULL;
  gql_settings *st = gql_settings_new();
  if (!st)
    return GQL_ENOMEM;
  cfg_ctx c = {.st = st, .arena = st->arena, .env = env};
  c.path = path ? gql_settings_strdup(st, path) : "<config>";
  const char *slash = path ? strrchr(path, '/') : NULL;
  c.base = slash
               ? gql_arena_strndup(st->arena, path, (size_t)(slash - path) + 1)
               : "";
  st->file = c.path;
  gql_buf_init(&c.errors, NULL);
  ynode *root = NULL;
  if (!c.path || !c.base) {
    gql_settings_free(st);
    return GQL_ENOMEM;
  }
  if (gql_yaml_read(&c, text, len, &root) && root)
    gql_cfg_decode(&c, root);
  if (c.nerrors) {
    *errors = errors_out(&c);
    gql_settings_free(st);
    return GQL_EINVAL;
  }
  gql_buf_free(&c.errors);
  *out = st;
  return 0;
}

int gql_settings_load_file(const char *path, const gql_settings_env *env,
                           gql_settings **out, char **errors) {
  *out = NULL;
  *errors = NULL;
  FILE *f = fopen(path, "rb");
  char msg[600];
  if (!f) {
    snprintf(msg, sizeof msg, "%s: cannot open: %s\n", path, strerror(errno));
    *errors = strdup(msg);
    return GQL_EIO;
  }
  /* one byte more than allowed tells a file that is too big */
  char *buf = malloc(GQL_CONFIG_MAX_BYTES + 2);
  size_t n = buf ? fread(buf, 1, GQL_CONFIG_MAX_BYTES + 1, f) : 0;
  bool bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    snprintf(msg, sizeof msg, "%s: cannot read: %s\n", path,
             buf ? strerror(errno) : "out of memory");
    free(buf);
    *errors = strdup(msg);
    return GQL_EIO;
  }
  buf[n] = 0;
  int rc = gql_settings_load(path, buf, n, env, out, errors);
  free(buf);
  return rc;
}
