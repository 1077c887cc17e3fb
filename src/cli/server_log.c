/* A log line of gql serve's or gql gateway's own (cli.h: gql_cli_log),
 * routed as the server routes its lines (src/http/log.c's gql_http_log):
 * through the observer's log (JSON lines with --log-format json), else as
 * a "NAME: LEVEL: message" text line, and dropped below the log level.
 * For the parts of the commands outside src/http that speak to operators:
 * the dropped subscription events, the persisted queries' log_unknown,
 * demand control's measure mode. */
#include "cli.h"

#include <stdarg.h>

void gql_cli_log(const gql_http_options *o, gql_http_log_level level,
                 const char *fmt, ...) {
  /* the command's level (gql_cli_http_options sets it; a reload stores
   * a new one atomically while workers log) */
  if (level > __atomic_load_n(&o->log_level, __ATOMIC_RELAXED))
    return;
  static const char *const names[] = {"error", "warn", "info", "debug"};
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  const gql_http_observer *ob = o->observer;
  if (ob && ob->log)
    ob->log(ob->ud, level, line, NULL);
  else /* one call: lines do not interleave */
    fprintf(o->log ? o->log : stderr, "%s: %s: %s\n",
            o->log_name ? o->log_name : "gql serve",
            names[(unsigned)level < 4 ? level : 2], line);
}
