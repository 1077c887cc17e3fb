/* Writes the same span records as an OTLP JSON and an OTLP protobuf
 * request body, for tests/trace/test_otlp_protobuf.sh, which decodes the
 * protobuf with the OpenTelemetry proto definitions (protobufjs) and
 * compares it with the JSON. The records cover every form the tracer
 * writes: execute spans with attributes, errors and events, resolve spans
 * with whole and relative paths, from blobs and by reference, strings that
 * need escaping or are not valid UTF-8, strings long enough for multi-byte
 * lengths, and a trace continued from a remote parent with a tracestate.
 * Usage: otlp_pairs DIR  (writes DIR/N.json and DIR/N.pb, prints N) */
#include "trace/otlp_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t same_ns(const void *ctx, uint64_t tick) {
  (void)ctx;
  return tick;
}

static void write_file(const char *dir, int n, const char *ext, gql_str s) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%d.%s", dir, n, ext);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(s.ptr, 1, s.len, f) != s.len || fclose(f) != 0) {
    fprintf(stderr, "otlp_pairs: cannot write %s\n", path);
    exit(1);
  }
}

/* Encodes rec both ways into DIR/n.{json,pb}. */
static void pair(const char *dir, int n, const char *service, gql_buf *rec) {
  for (int proto = 0; proto < 2; proto++) {
    gql_buf out;
    gql_buf_init(&out, NULL);
    otlp_batch ob;
    gql_otlp_batch_begin(&ob, &out, service,
                         proto ? GQL_OTLP_HTTP_PROTOBUF : GQL_OTLP_HTTP_JSON,
                         same_ns, NULL);
    if (gql_otlp_batch_add(&ob, rec->data, rec->len) < 0) {
      fprintf(stderr, "otlp_pairs: records %d do not read back\n", n);
      exit(1);
    }
    gql_str body = gql_otlp_batch_end(&ob);
    if (!body.ptr) {
      fprintf(stderr, "otlp_pairs: batch %d failed\n", n);
      exit(1);
    }
    write_file(dir, n, proto ? "pb" : "json", body);
    gql_buf_free(&out);
  }
}

static trace_attr *attr(gql_arena *a, trace_span *s, const char *k, gql_str v) {
  trace_attr *at = gql_arena_alloc(a, sizeof *at);
  *at = (trace_attr){gql_cstr(k), v, NULL};
  if (s->attrs_last)
    s->attrs_last->next = at;
  else
    s->attrs = at;
  s->attrs_last = at;
  return at;
}

static void event(gql_arena *a, trace_span *s, const char *name, gql_str type,
                  gql_str message, int nloc, int npath) {
  trace_event *e = gql_arena_alloc(a, sizeof *e);
  *e = (trace_event){.time_ns = 1796004990804000000u + (uint64_t)nloc,
                     .name = name,
                     .type = type,
                     .message = message};
  e->locations = gql_arena_alloc(a, sizeof(gql_str) * 4);
  e->path = gql_arena_alloc(a, sizeof(gql_str) * 4);
  static const char *const locs[] = {"1:3", "2:10", "12:1", "3:\xff"};
  static const char *const path[] = {"hero", "0", "friends", "na\"me"};
  for (int i = 0; i < nloc; i++)
    e->locations[i] = gql_cstr(locs[i]);
  for (int i = 0; i < npath; i++)
    e->path[i] = gql_cstr(path[i]);
  e->nlocations = (uint32_t)nloc;
  e->npath = (uint32_t)npath;
  if (s->events_last)
    s->events_last->next = e;
  else
    s->events = e;
  s->events_last = e;
}

static trace_span span(uint8_t kind, const char *name, uint64_t start,
                       uint64_t end) {
  return (trace_span){
      .kind = kind, .name = gql_cstr(name), .start = start, .end = end};
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: otlp_pairs DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  gql_arena *a = gql_arena_new(NULL);
  gql_buf rec;
  gql_buf_init(&rec, NULL);
  uint64_t t0 = 1796004990797005312u;
  int n = 0;

  /* 1: the reference's { boom } (an execute span with an error event, a
   * resolve span with an error), a parse and a validate span */
  {
    rec.len = 0;
    otlp_ids ids = {.trace_hi = 0x6b0cdc7e00000000u,
                    .trace_lo = 0x4da996a64d02db1cu};
    gql_otlp_trace_header(&rec, &ids, 0x1234567890abcdefu, 4);
    trace_span ex = span(SPAN_EXECUTE, "query", t0, t0 + 7599000);
    ex.resource = GQL_STR("{boom}");
    attr(a, &ex, "graphql.operation.type", GQL_STR("query"));
    attr(a, &ex, "graphql.source", GQL_STR("{ boom }"));
    ex.error_type = "GraphQLError";
    ex.error = GQL_STR("kaboom");
    event(a, &ex, "dd.graphql.query.error", GQL_STR("GraphQLError"),
          GQL_STR("kaboom"), 1, 1);
    gql_otlp_record(&rec, &ex, 0, NULL);
    trace_span rs =
        span(SPAN_RESOLVE, "graphql.resolve", t0 + 413184, t0 + 715674);
    rs.error_type = "Error";
    rs.error = GQL_STR("kaboom");
    otlp_resolve r = {.name = GQL_STR("boom"),
                      .type = GQL_STR("String"),
                      .path = GQL_STR("boom")};
    gql_otlp_record(&rec, &rs, 1, &r);
    trace_span pa = span(SPAN_PARSE, "graphql.parse", t0 - 5000, t0 - 4000);
    gql_otlp_record(&rec, &pa, 0, NULL);
    trace_span va =
        span(SPAN_VALIDATE, "graphql.validate", t0 - 3000, t0 - 2000);
    event(a, &va, "dd.graphql.query.error", GQL_STR("GraphQLError"),
          GQL_STR("Cannot query field \"nope\""), 2, 0);
    va.error_type = "GraphQLError";
    va.error = GQL_STR("Cannot query field \"nope\"");
    gql_otlp_record(&rec, &va, 0, NULL);
    pair(dir, ++n, "gql-demo", &rec);
  }

  /* 2: resolve spans in every record form: relative paths under lists,
   * an alias, blobs and references to a pinned image, two traces in one
   * chunk, a service name that needs escaping */
  {
    rec.len = 0;
    otlp_ids ids = {.trace_hi = 1, .trace_lo = 2};
    gql_otlp_trace_header(&rec, &ids, 77, 6);
    trace_span ex = span(SPAN_EXECUTE, "query", t0, t0 + 1000);
    ex.resource = GQL_STR("query Q{hero{friends{name}}}");
    ex.resource_pinned = true; /* a pointer to the bytes */
    gql_otlp_record(&rec, &ex, 0, NULL);
    trace_span hero = span(SPAN_RESOLVE, "", t0 + 10, t0 + 20);
    hero.key = GQL_STR("hero");
    hero.key_is_name = true;
    gql_otlp_record_plan(&rec, &hero, 1, GQL_STR("hero"), GQL_STR("Character"),
                         GQL_STR(""));
    trace_span fr = span(SPAN_RESOLVE, "", t0 + 30, t0 + 40);
    fr.key = GQL_STR("pals");
    fr.lists = 0;
    gql_otlp_record_plan(&rec, &fr, 2, GQL_STR("friends"), GQL_STR("Character"),
                         GQL_STR("NLN"));
    /* a blob: the planned field's record without parent and times */
    char blob[256];
    size_t bn =
        gql_otlp_plan_blob(blob, true, 1, GQL_STR("name"), GQL_STR("String"),
                           GQL_STR("N"), GQL_STR("name"));
    memset(blob + bn, 0, 16);
    gql_otlp_record_blob(&rec, blob, bn, 3, t0 + 50, t0 + 60);
    /* by reference: the image's first word is the length of the rest */
    char *img = malloc(bn + 16);
    memcpy(img, blob, bn + 16);
    uint32_t head;
    memcpy(&head, blob, 4);
    uint32_t rest = (uint32_t)(bn - 4);
    memcpy(img, &rest, 4);
    gql_otlp_record_ref(&rec, head, img, 3, t0 + 70, t0 + 80);
    trace_span deep = span(SPAN_RESOLVE, "", t0 + 90, t0 + 95);
    deep.key = GQL_STR("appearsIn");
    deep.lists = 2;
    gql_otlp_record_plan(&rec, &deep, 3, GQL_STR("appearsIn"),
                         GQL_STR("Episode"), GQL_STR("LLN"));
    /* a second trace in the same chunk */
    otlp_ids ids2 = {.trace_hi = 0xffffffffffffffffu, .trace_lo = 3};
    gql_otlp_trace_header(&rec, &ids2, 78, 1);
    trace_span ex2 = span(SPAN_EXECUTE, "GraphQL Operation", 5, 5);
    gql_otlp_record(&rec, &ex2, 0, NULL);
    pair(dir, ++n, "svc \"quoted\" \xc3\xa9", &rec);
    free(img);
  }

  /* 3: strings: control characters, quotes, invalid UTF-8, 4-byte UTF-8,
   * an attribute value over 127 bytes (two-byte lengths) and one over
   * 16383 (a span length of three bytes) */
  {
    rec.len = 0;
    otlp_ids ids = {.trace_hi = 0x0102030405060708u,
                    .trace_lo = 0x090a0b0c0d0e0f10u};
    gql_otlp_trace_header(&rec, &ids, 99, 2);
    trace_span ex =
        span(SPAN_EXECUTE, "mutation", 1000000000u, 1000000000u + 999999999u);
    ex.resource = GQL_STR("mutation{x}");
    attr(a, &ex, "graphql.operation.name", GQL_STR("M\x01\t\n\"\\/\x7f"));
    attr(a, &ex, "weird",
         GQL_STR("bad \xff\xfe utf8 \xc3 \xf0\x9f\x98\x80 ok"));
    char *big = gql_arena_alloc(a, 20001);
    for (int i = 0; i < 20000; i++)
      big[i] = (char)('a' + i % 26);
    attr(a, &ex, "graphql.source", (gql_str){big, 200});
    attr(a, &ex, "graphql.document", (gql_str){big, 20000});
    ex.error_type = "GraphQLError";
    ex.error = GQL_STR("say \"hi\"\n\xff");
    for (int e = 0; e < 3; e++)
      event(a, &ex, "dd.graphql.query.error", GQL_STR("GraphQLError"),
            GQL_STR("m\xe2\x82\xac"), e, 4 - e);
    gql_otlp_record(&rec, &ex, 0, NULL);
    trace_span w = span(SPAN_RESOLVE, "", 0, 1);
    w.error_type = "Error";
    w.error = GQL_STR("\xff");
    attr(a, &w, "graphql.variables.x", GQL_STR("1"));
    otlp_resolve r = {.name = GQL_STR("w"),
                      .type = GQL_STR("T"),
                      .mods = GQL_STR("LNLN"),
                      .path = GQL_STR("a.0.w")};
    gql_otlp_record(&rec, &w, 1, &r);
    pair(dir, ++n, "gql", &rec);
  }

  /* 4: a trace continued from a traceparent: its spans without a local
   * parent hang under the remote one (flags 769), all carry the
   * tracestate */
  {
    rec.len = 0;
    otlp_ids ids = {.trace_hi = 0x4bf92f3577b34da6u,
                    .trace_lo = 0xa3ce929d0e0e4736u,
                    .remote_parent = 0x00f067aa0ba902b7u,
                    .tracestate =
                        GQL_STR("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")};
    gql_otlp_trace_header(&rec, &ids, 5, 3);
    trace_span ex = span(SPAN_EXECUTE, "query", t0, t0 + 100);
    gql_otlp_record(&rec, &ex, 0, NULL);
    trace_span hero = span(SPAN_RESOLVE, "", t0 + 10, t0 + 20);
    hero.key = GQL_STR("hero");
    hero.key_is_name = true;
    gql_otlp_record_plan(&rec, &hero, 1, GQL_STR("hero"), GQL_STR("Character"),
                         GQL_STR(""));
    trace_span pa = span(SPAN_PARSE, "graphql.parse", t0 - 50, t0 - 40);
    gql_otlp_record(&rec, &pa, 0, NULL);
    gql_otlp_trace_header_count(&rec, 3);
    pair(dir, ++n, "gql", &rec);
  }
  printf("%d\n", n);
  gql_buf_free(&rec);
  gql_arena_free(a);
  return 0;
}
