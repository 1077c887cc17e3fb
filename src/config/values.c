/* What the reader and the keys share, below both: error lines, ${env.NAME}
 * expansion, and the value syntaxes (durations, listen addresses). */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void gql_cfg_error(cfg_ctx *c, gql_location loc, const char *fmt, ...) {
  if (++c->nerrors > GQL_CONFIG_MAX_ERRORS)
    return;
  if (c->nerrors == GQL_CONFIG_MAX_ERRORS) {
    gql_buf_printf(&c->errors, "%s: too many errors\n", c->path);
    return;
  }
  if (loc.line)
    gql_buf_printf(&c->errors, "%s:%u:%u: ", c->path, loc.line, loc.column);
  else
    gql_buf_printf(&c->errors, "%s: ", c->path);
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* a message quotes the file's text: keep one line per error */
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  gql_buf_printf(&c->errors, "%s\n", msg);
}

static const char *env_get(const cfg_ctx *c, const char *name) {
  if (c->env && c->env->get)
    return c->env->get(c->env->ud, name);
  return getenv(name);
}

static bool env_name_char(char ch) {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
         (ch >= '0' && ch <= '9') || ch == '_';
}

/* Expands ${env.NAME} and ${env.NAME:-default} as Apollo Router does; any
 * other text, a lone "$" or "${" included, is kept as written. */
const char *gql_cfg_expand(cfg_ctx *c, const ynode *n) {
  assert(n->kind == Y_SCALAR);
  const char *s = n->text;
  if (!strstr(s, "${env."))
    return s;
  gql_buf out;
  gql_buf_init(&out, NULL);
  const char *result = NULL;
  while (*s) {
    const char *at = strstr(s, "${env.");
    if (!at) {
      gql_buf_puts(&out, s);
      break;
    }
    gql_buf_append(&out, s, (size_t)(at - s));
    const char *name = at + 6, *p = name;
    while (env_name_char(*p))
      p++;
    size_t name_len = (size_t)(p - name);
    const char *def = NULL, *close;
    if (p[0] == ':' && p[1] == '-') {
      def = p + 2;
      close = strchr(def, '}');
    } else {
      close = *p == '}' ? p : NULL;
    }
    if (!close || name_len == 0) {
      gql_cfg_error(c, n->loc,
                    "'${env.' must be followed by NAME} or NAME:-default}");
      goto done;
    }
    char var[256];
    if (name_len >= sizeof var) {
      gql_cfg_error(c, n->loc, "environment variable name too long");
      goto done;
    }
    memcpy(var, name, name_len);
    var[name_len] = 0;
    const char *v = env_get(c, var);
    if (v)
      gql_buf_puts(&out, v);
    else if (def)
      gql_buf_append(&out, def, (size_t)(close - def));
    else {
      gql_cfg_error(c, n->loc, "environment variable %s is not set", var);
      goto done;
    }
    s = close + 1;
  }
  if (out.len > GQL_CONFIG_MAX_SCALAR) {
    gql_cfg_error(c, n->loc, "a value longer than %u bytes once expanded",
                  GQL_CONFIG_MAX_SCALAR);
    goto done;
  }
  if (out.failed || !(result = gql_arena_strndup(
                          c->arena, out.data ? out.data : "", out.len)))
    gql_cfg_error(c, n->loc, "out of memory");
done:
  gql_buf_free(&out);
  return result;
}

const char *gql_settings_strdup(gql_settings *st, const char *s) {
  return gql_arena_strndup(st->arena, s, strlen(s));
}

/* ------------------------------------------------------- value syntaxes */

bool gql_cfg_parse_duration_ms(const char *s, uint64_t *ms) {
  static const struct {
    const char *unit;
    double ms;
  } units[] = {{"ns", 1e-6},   {"us", 1e-3},     {"ms", 1},
               {"s", 1e3},     {"sec", 1e3},     {"secs", 1e3},
               {"m", 60e3},    {"min", 60e3},    {"mins", 60e3},
               {"h", 3600e3},  {"hr", 3600e3},   {"hrs", 3600e3},
               {"d", 86400e3}, {"day", 86400e3}, {"days", 86400e3}};
  double total = 0;
  bool any = false;
  while (*s) {
    while (*s == ' ')
      s++;
    if (!*s)
      break;
    if (*s < '0' || *s > '9')
      return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || v > 1000000000ull)
      return false;
    const char *u = end;
    while ((*u >= 'a' && *u <= 'z'))
      u++;
    size_t ulen = (size_t)(u - end);
    bool found = false;
    for (size_t i = 0; i < GQL_ARRAY_LEN(units); i++)
      if (strlen(units[i].unit) == ulen &&
          memcmp(units[i].unit, end, ulen) == 0) {
        total += (double)v * units[i].ms;
        found = true;
      }
    if (!found)
      return false;
    any = true;
    s = u;
  }
  if (!any || total > 1e15)
    return false;
  *ms = (uint64_t)total;
  return true;
}

bool gql_settings_parse_listen(gql_settings *st, const char *text,
                               gql_cfg_listen *l, const char **why) {
  *why = NULL;
  if (strncmp(text, "unix:", 5) == 0) {
    const char *p = text + 5;
    /* sun_path holds 108 bytes with the NUL */
    if (!*p || strlen(p) > 107) {
      *why = "unix:PATH needs a path of 1 to 107 bytes";
      return false;
    }
    l->unix_path = gql_settings_strdup(st, p);
    l->host = NULL;
    l->port = 0;
    l->set = l->unix_path != NULL;
    return l->set;
  }
  const char *colon = strrchr(text, ':');
  if (!colon) {
    *why = "needs HOST:PORT (or unix:PATH)";
    return false;
  }
  const char *h = text;
  size_t hlen = (size_t)(colon - text);
  if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
    h++;
    hlen -= 2;
  } else if (memchr(h, ':', hlen)) {
    *why = "an IPv6 address goes in brackets: [::1]:4000";
    return false;
  }
  char *end;
  errno = 0;
  unsigned long port = strtoul(colon + 1, &end, 10);
  if (!colon[1] || *end || errno || port > 65535 || colon[1] == '-' ||
      colon[1] == '+') {
    *why = "the port must be a number from 0 to 65535";
    return false;
  }
  l->host = hlen ? gql_arena_strndup(st->arena, h, hlen) : "0.0.0.0";
  l->port = (int)port;
  l->unix_path = NULL;
  l->set = l->host != NULL;
  return l->set;
}

bool gql_cfg_is_jws_algorithm(const char *name) {
  static const char *const algs[] = {"HS256", "HS384", "HS512", "RS256",
                                     "RS384", "RS512", "PS256", "PS384",
                                     "PS512", "ES256", "ES384"};
  for (size_t i = 0; i < GQL_ARRAY_LEN(algs); i++)
    if (strcmp(algs[i], name) == 0)
      return true;
  return false;
}
