/* Log lines, text and JSON (log.h). */
#include "log.h"

#include "json/json.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

enum { PATH_MAX_BYTES = 1024, OP_MAX_BYTES = 256 };

const char *gql_log_level_name(gql_log_level level) {
  static const char *const names[] = {"error", "warn", "info", "debug"};
  return (unsigned)level < 4 ? names[level] : "info";
}

void gql_log_time(uint64_t unix_ns, char out[32]) {
  time_t secs = (time_t)(unix_ns / 1000000000u);
  unsigned ms = (unsigned)(unix_ns % 1000000000u / 1000000u);
  struct tm tm;
  if (!gmtime_r(&secs, &tm))
    memset(&tm, 0, sizeof tm);
  /* (the year kept to four digits: a Unix time in ns ends in 2554) */
  unsigned year = (unsigned)(tm.tm_year + 1900) % 10000;
  char *w = out;
  w += strftime(w, 16, "-%m-%dT%H:%M:%S", &tm);
  memmove(out + 4, out, (size_t)(w - out));
  out[0] = (char)('0' + year / 1000);
  out[1] = (char)('0' + year / 100 % 10);
  out[2] = (char)('0' + year / 10 % 10);
  out[3] = (char)('0' + year % 10);
  w += 4;
  *w++ = '.';
  *w++ = (char)('0' + ms / 100);
  *w++ = (char)('0' + ms / 10 % 10);
  *w++ = (char)('0' + ms % 10);
  *w++ = 'Z';
  *w = 0;
}

static gql_str cut(gql_str s, size_t max) {
  if (s.len > max)
    s.len = max;
  return s;
}

static void put_num(gql_buf *b, const char *fmt, unsigned long long v) {
  char d[32];
  int n = snprintf(d, sizeof d, fmt, v);
  gql_buf_append(b, d, (size_t)n);
}

/* ns as milliseconds with three decimals (microseconds). */
static void put_ms(gql_buf *b, uint64_t ns) {
  uint64_t us = ns / 1000;
  char d[40];
  int n = snprintf(d, sizeof d, "%llu.%03llu", (unsigned long long)(us / 1000),
                   (unsigned long long)(us % 1000));
  gql_buf_append(b, d, (size_t)n);
}

static void json_field(gql_buf *b, const char *key, gql_str v) {
  gql_buf_putc(b, ',');
  gql_json_write_string(b, gql_cstr(key));
  gql_buf_putc(b, ':');
  gql_json_write_string(b, v);
}

static void json_line(gql_buf *b, const char *time, gql_log_level level,
                      const char *name, gql_str msg, const gql_log_access *a) {
  gql_buf_puts(b, "{\"time\":\"");
  gql_buf_puts(b, time);
  gql_buf_puts(b, "\",\"level\":\"");
  gql_buf_puts(b, gql_log_level_name(level));
  gql_buf_putc(b, '"');
  if (name && *name)
    json_field(b, "logger", gql_cstr(name));
  if (a) {
    json_field(b, "msg", GQL_STR("access"));
    if (a->client.len)
      json_field(b, "client", a->client);
    json_field(b, "method", a->method);
    json_field(b, "path", cut(a->path, PATH_MAX_BYTES));
    put_num(b, ",\"status\":%llu", (unsigned long long)(unsigned)a->status);
    put_num(b, ",\"bytes\":%llu", (unsigned long long)a->bytes);
    gql_buf_puts(b, ",\"duration_ms\":");
    put_ms(b, a->duration_ns);
    if (a->operation.len)
      json_field(b, "operation", cut(a->operation, OP_MAX_BYTES));
    if (a->trace_id.len)
      json_field(b, "trace_id", a->trace_id);
  } else {
    json_field(b, "msg", msg);
  }
  gql_buf_put(b, "}\n", 2);
}

/* Text: a request's bytes with control characters, DEL and the space
 * written as \xNN (a line stays one line, its fields stay apart). */
static void text_safe(gql_buf *b, gql_str s) {
  static const char hex[] = "0123456789abcdef";
  if (!s.len) {
    gql_buf_putc(b, '-');
    return;
  }
  for (size_t i = 0; i < s.len; i++) {
    unsigned char c = (unsigned char)s.ptr[i];
    if (c <= 0x20 || c == 0x7f || c == '\\') {
      char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
      gql_buf_put(b, e, 4);
    } else {
      gql_buf_putc(b, (char)c);
    }
  }
}

static void text_line(gql_buf *b, const char *time, gql_log_level level,
                      const char *name, gql_str msg, const gql_log_access *a) {
  gql_buf_puts(b, time);
  gql_buf_putc(b, ' ');
  if (!a) {
    gql_buf_puts(b, gql_log_level_name(level));
    gql_buf_putc(b, ' ');
    if (name && *name) {
      gql_buf_puts(b, name);
      gql_buf_put(b, ": ", 2);
    }
    for (size_t i = 0; i < msg.len; i++) /* one line */
      gql_buf_putc(b,
                   msg.ptr[i] == '\n' || msg.ptr[i] == '\r' ? ' ' : msg.ptr[i]);
    gql_buf_putc(b, '\n');
    return;
  }
  text_safe(b, a->client);
  gql_buf_putc(b, ' ');
  text_safe(b, a->method);
  gql_buf_putc(b, ' ');
  text_safe(b, cut(a->path, PATH_MAX_BYTES));
  put_num(b, " %llu", (unsigned long long)(unsigned)a->status);
  put_num(b, " %llu", (unsigned long long)a->bytes);
  put_num(b, " %lluus ", (unsigned long long)(a->duration_ns / 1000));
  text_safe(b, cut(a->operation, OP_MAX_BYTES));
  if (a->trace_id.len) {
    gql_buf_puts(b, " trace=");
    text_safe(b, a->trace_id);
  }
  gql_buf_putc(b, '\n');
}

void gql_log_line(gql_buf *b, gql_log_format format, uint64_t unix_ns,
                  gql_log_level level, const char *name, gql_str msg,
                  const gql_log_access *a) {
  char time[32];
  gql_log_time(unix_ns, time);
  if (format == GQL_LOG_JSON)
    json_line(b, time, level, name, msg, a);
  else
    text_line(b, time, level, name, msg, a);
}
