/* OTLP/HTTP JSON (ExportTraceServiceRequest) for gql's spans: hex ids,
 * 64-bit integers as decimal strings, integer enums, the mapping of the
 * tracing reference §12.6. */
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>

static void kv_str(gql_buf *b, bool *first, gql_str key, gql_str v) {
  gql_buf_puts(b, *first ? "{\"key\":" : ",{\"key\":");
  *first = false;
  gql_json_write_string(b, key);
  gql_buf_puts(b, ",\"value\":{\"stringValue\":");
  gql_json_write_string(b, v);
  gql_buf_puts(b, "}}");
}

static void kv_array(gql_buf *b, bool *first, const char *key,
                     const gql_str *items, uint32_t n) {
  gql_buf_puts(b, *first ? "{\"key\":" : ",{\"key\":");
  *first = false;
  gql_json_write_string(b, gql_cstr(key));
  gql_buf_puts(b, ",\"value\":{\"arrayValue\":{\"values\":[");
  for (uint32_t i = 0; i < n; i++) {
    gql_buf_puts(b, i ? ",{\"stringValue\":" : "{\"stringValue\":");
    gql_json_write_string(b, items[i]);
    gql_buf_putc(b, '}');
  }
  gql_buf_puts(b, "]}}}");
}

static void hex64(gql_buf *b, uint64_t v) {
  char h[17];
  snprintf(h, sizeof h, "%016" PRIx64, v);
  gql_buf_append(b, h, 16);
}

static void event(gql_buf *b, const trace_event *e) {
  gql_buf_printf(b, "{\"timeUnixNano\":\"%" PRIu64 "\",\"name\":", e->time_ns);
  gql_json_write_string(b, gql_cstr(e->name));
  gql_buf_puts(b, ",\"attributes\":[");
  bool first = true;
  kv_str(b, &first, GQL_STR("type"), e->type);
  if (e->nlocations)
    kv_array(b, &first, "locations", e->locations, e->nlocations);
  if (e->npath)
    kv_array(b, &first, "path", e->path, e->npath);
  kv_str(b, &first, GQL_STR("message"), e->message);
  gql_buf_puts(b, "]}");
}

void gql_otlp_span(gql_buf *b, const otlp_ids *ids, const trace_span *s) {
  gql_buf_puts(b, "{\"traceId\":\"");
  hex64(b, ids->trace_hi);
  hex64(b, ids->trace_lo);
  gql_buf_puts(b, "\",\"spanId\":\"");
  hex64(b, s->id);
  gql_buf_putc(b, '"');
  if (s->parent) {
    gql_buf_puts(b, ",\"parentSpanId\":\"");
    hex64(b, s->parent);
    gql_buf_putc(b, '"');
  }
  gql_buf_puts(b, ",\"name\":");
  gql_json_write_string(b, s->name);
  gql_buf_printf(b,
                 ",\"kind\":%d,\"startTimeUnixNano\":\"%" PRIu64
                 "\",\"endTimeUnixNano\":\"%" PRIu64 "\",\"attributes\":[",
                 s->kind == SPAN_EXECUTE ? 2 : 1, s->start, s->end);
  bool first = true;
  for (const trace_attr *a = s->attrs; a; a = a->next)
    kv_str(b, &first, a->key, a->value);
  kv_str(b, &first, GQL_STR("resource.name"),
         s->resource.len ? s->resource : s->name);
  kv_str(b, &first, GQL_STR("span.type"), GQL_STR("graphql"));
  kv_str(b, &first, GQL_STR("component"), GQL_STR("graphql"));
  if (s->error_type)
    kv_str(b, &first, GQL_STR("error.type"), gql_cstr(s->error_type));
  gql_buf_putc(b, ']');
  if (s->events || (s->error_type && s->kind == SPAN_RESOLVE)) {
    gql_buf_puts(b, ",\"events\":[");
    bool any = false;
    for (const trace_event *e = s->events; e; e = e->next) {
      if (any)
        gql_buf_putc(b, ',');
      any = true;
      event(b, e);
    }
    if (s->error_type && s->kind == SPAN_RESOLVE) {
      /* A resolver's error is a thrown exception in OTel terms. */
      gql_buf_printf(b,
                     "%s{\"timeUnixNano\":\"%" PRIu64
                     "\",\"name\":\"exception\",\"attributes\":[",
                     any ? "," : "", s->end);
      bool f2 = true;
      kv_str(b, &f2, GQL_STR("exception.type"), gql_cstr(s->error_type));
      kv_str(b, &f2, GQL_STR("exception.message"), s->error);
      gql_buf_puts(b, "]}");
    }
    gql_buf_putc(b, ']');
  }
  if (s->error_type) {
    gql_buf_puts(b, ",\"status\":{\"code\":2,\"message\":");
    gql_json_write_string(b, s->error);
    gql_buf_putc(b, '}');
  }
  gql_buf_puts(b, ",\"flags\":257}");
}

void gql_otlp_batch_open(gql_buf *b, const char *service) {
  gql_buf_puts(b, "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
                  "{\"key\":\"service.name\",\"value\":{\"stringValue\":");
  gql_json_write_string(b, gql_cstr(service));
  gql_buf_puts(b, "}},{\"key\":\"telemetry.sdk.name\",\"value\":{"
                  "\"stringValue\":\"gql\"}},{\"key\":\"telemetry.sdk."
                  "language\",\"value\":{\"stringValue\":\"c\"}}]},"
                  "\"scopeSpans\":[{\"scope\":{\"name\":\"gql\",\"version\":");
  gql_json_write_string(b, gql_cstr(gql_version()));
  gql_buf_puts(b, "},\"spans\":[");
}

void gql_otlp_batch_close(gql_buf *b) {
  gql_buf_puts(b, "]}]}]}");
}
