/* W3C Trace Context: traceparent and tracestate as the spec reads them,
 * and a trace continued from them (the spans' trace id, parents, flags and
 * tracestate in OTLP). */
#include "trace/trace.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static int tp(const char *s, gql_trace_context *c) {
  return gql_traceparent_parse(s, strlen(s), c);
}

Test(context, traceparent_version_00_reads_ids_and_flags) {
  gql_trace_context c;
  cr_assert_eq(
      tp("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", &c), 0);
  cr_assert_eq(c.trace_hi, 0x4bf92f3577b34da6u);
  cr_assert_eq(c.trace_lo, 0xa3ce929d0e0e4736u);
  cr_assert_eq(c.parent_id, 0x00f067aa0ba902b7u);
  cr_assert_eq(c.flags, 1);
  cr_assert_eq(
      tp("  00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00\t", &c), 0,
      "blanks around the value are the HTTP field's");
  cr_assert_eq(c.flags, 0);
}

Test(context, traceparent_rejects_what_the_spec_rejects) {
  static const char *const bad[] = {
      "",                                                         /* empty */
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",   /* short */
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", /* 00: 55 */
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", /* upper */
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01", /* zero id */
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", /* zero */
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", /* ff */
      "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", /* dashes */
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7.01",
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", /* future,
                                                      no '-' after flags */
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    gql_trace_context c = {0};
    cr_assert_eq(tp(bad[i], &c), GQL_EINVAL, "accepted '%s'", bad[i]);
  }
}

Test(context, traceparent_of_a_later_version_is_read_by_its_00_fields) {
  gql_trace_context c;
  cr_assert_eq(
      tp("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", &c), 0);
  cr_assert_eq(
      tp("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-what-ever",
         &c),
      0);
  cr_assert_eq(c.parent_id, 0x00f067aa0ba902b7u);
  cr_assert_eq(c.flags, 9);
}

Test(context, traceparent_format_round_trips_with_our_span_as_parent) {
  gql_trace_context c;
  cr_assert_eq(
      tp("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", &c), 0);
  char out[GQL_TRACEPARENT_LEN + 1];
  gql_traceparent_format(&c, 0x00000000000000abu, out);
  cr_assert_str_eq(out,
                   "00-0af7651916cd43dd8448eb211c80319c-00000000000000ab-01");
  gql_trace_context d;
  cr_assert_eq(tp(out, &d), 0);
  cr_assert_eq(d.trace_hi, c.trace_hi);
  cr_assert_eq(d.trace_lo, c.trace_lo);
  cr_assert_eq(d.parent_id, 0xab);
}

static int ts(const char *s, gql_trace_context *c) {
  return gql_tracestate_parse(s, strlen(s), c);
}

Test(context, tracestate_is_kept_in_normal_form) {
  gql_trace_context c;
  cr_assert_eq(ts("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE", &c), 0);
  cr_assert_str_eq(c.tracestate, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
  cr_assert_eq(c.tracestate_len, strlen(c.tracestate));
  cr_assert_eq(ts(" , a=1 ,,\tb@sys=x y ,", &c), 0, "empty members, blanks");
  cr_assert_str_eq(c.tracestate, "a=1,b@sys=x y");
  cr_assert_eq(ts("", &c), 0);
  cr_assert_str_eq(c.tracestate, "");
  cr_assert_eq(ts("0tenant@vendor=v,k*_-/9=!~", &c), 0);
  cr_assert_str_eq(c.tracestate, "0tenant@vendor=v,k*_-/9=!~");
}

Test(context, tracestate_with_a_bad_member_is_dropped_whole) {
  static const char *const bad[] = {
      "a=1,B=2",               /* uppercase key */
      "a=1,a=2",               /* duplicate */
      "a",                     /* no value */
      "a=",                    /* empty value */
      "a=x ",                  /* ... trailing space is the OWS: fine? no: */
      "a=1,1a=2",              /* simple key starting with a digit */
      "a=b=c",                 /* '=' in the value */
      "a=\x01",                /* control character */
      "t@=1",                  /* empty system id */
      "t@sys-name-too-long=1", /* system id over 14 */
      "@s=1",                  /* empty tenant */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    gql_trace_context c;
    int rc = ts(bad[i], &c);
    if (i == 4) { /* a blank before the comma or the end is OWS */
      cr_assert_eq(rc, 0);
      cr_assert_str_eq(c.tracestate, "a=x");
      continue;
    }
    cr_assert_eq(rc, GQL_EINVAL, "accepted '%s'", bad[i]);
    cr_assert_eq(c.tracestate_len, 0);
  }
  /* 33 members */
  char s[1024] = "";
  for (int i = 0; i < 33; i++) {
    char m[16];
    snprintf(m, sizeof m, "%sk%d=v", i ? "," : "", i);
    strcat(s, m);
  }
  gql_trace_context c;
  cr_assert_eq(ts(s, &c), GQL_EINVAL);
  *strrchr(s, ',') = 0; /* 32 */
  cr_assert_eq(ts(s, &c), 0);
}

Test(context, tracestate_over_512_drops_long_members_then_the_last) {
  char big[200], s[2048];
  memset(big, 'x', 150);
  big[150] = 0;
  /* 5 members of 100 (k0..k4) around one of 152: 5 * 100 + 152 + 5 > 512 */
  char v[96];
  memset(v, 'v', 95);
  v[95] = 0;
  snprintf(s, sizeof s, "k0=%s,k1=%s,big=%s,k2=%s,k3=%s,k4=%s", v, v, big, v, v,
           v);
  gql_trace_context c;
  cr_assert_eq(ts(s, &c), 0);
  cr_assert(!strstr(c.tracestate, "big="), "the long member goes first");
  cr_assert(strstr(c.tracestate, "k4="));
  cr_assert_leq(c.tracestate_len, GQL_TRACESTATE_MAX);
  /* six of 100: the last goes */
  snprintf(s, sizeof s, "k0=%s,k1=%s,k2=%s,k3=%s,k4=%s,k5=%s", v, v, v, v, v,
           v);
  cr_assert_eq(ts(s, &c), 0);
  cr_assert(strstr(c.tracestate, "k4=") && !strstr(c.tracestate, "k5="));
  cr_assert_eq(c.tracestate_len, 5 * 98 + 4);
}

/* ---- a trace continued from a traceparent */

static void done(void *ud, const char *json, size_t len, bool errors) {
  (void)ud, (void)json, (void)len, (void)errors;
}

static char *sunk;
static size_t sunk_len;
static int keep(void *ud, const char *json, size_t len) {
  sunk = realloc(sunk, sunk_len + len + 1);
  memcpy(sunk + sunk_len, json, len);
  sunk_len += len;
  sunk[sunk_len] = 0;
  return 0;
}

Test(context, a_continued_trace_has_the_callers_id_parent_and_tracestate) {
  gql_schema *s;
  const char sdl[] = "type Query { a: A } type A { b: String }";
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  gql_tracer *t;
  gql_tracer_config tc = {.transport = keep, .no_thread = true};
  cr_assert_eq(gql_tracer_new(&tc, &t), 0);
  gql_trace_context c;
  const char *h = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  cr_assert_eq(gql_traceparent_parse(h, strlen(h), &c), 0);
  cr_assert_eq(ts("congo=t61rcWkgMzE", &c), 0);
  for (int round = 0; round < 2; round++) { /* continued, then a new one */
    gql_trace *tr = gql_trace_begin(t, NULL);
    if (round == 0)
      gql_trace_set_parent(tr, &c);
    gql_arena *a = gql_arena_new(NULL);
    gql_prepared *p = NULL;
    gql_prepare_options po = {.trace = tr};
    const char q[] = "{ a { b } }";
    cr_assert_eq(gql_prepare(s, q, sizeof q - 1, NULL, &po, &p, NULL), 0);
    const gql_value *root;
    cr_assert_eq(gql_value_parse(a, "{\"a\":{\"b\":\"x\"}}", 15, &root), 0);
    gql_trace_set_operation(tr, p, NULL, 0);
    gql_execute_params params = {
        .root_value = root, .trace = tr, .arena = a, .on_done = done};
    cr_assert_eq(gql_execute(p, &params), 0);
    gql_trace_end(tr);
    gql_tracer_flush(t);
    gql_prepared_free(p);
    gql_arena_free(a);
    /* parse, validate, execute: under the remote parent, flags 769; a and
     * a.b: under local spans, 257 */
    int remote = 0, local = 0;
    for (const char *x = sunk; (x = strstr(x, "{\"traceId\":\"")); x++) {
      bool ours = strncmp(x + 12, "4bf92f3577b34da6a3ce929d0e0e4736", 32) == 0;
      cr_assert_eq(ours, round == 0);
      const char *end = strstr(x, ",\"flags\":");
      cr_assert(end);
      bool under = strstr(x, "\"parentSpanId\":\"00f067aa0ba902b7\"") &&
                   strstr(x, "\"parentSpanId\":\"00f067aa0ba902b7\"") < end;
      bool state = strstr(x, "\"traceState\":\"congo=t61rcWkgMzE\"") &&
                   strstr(x, "\"traceState\":\"congo=t61rcWkgMzE\"") < end;
      cr_assert_eq(state, round == 0);
      if (under) {
        remote++;
        cr_assert(strncmp(end, ",\"flags\":769}", 13) == 0);
      } else {
        local++;
        cr_assert(strncmp(end, ",\"flags\":257}", 13) == 0);
      }
    }
    cr_assert_eq(remote, round == 0 ? 3 : 0);
    cr_assert_eq(local, round == 0 ? 2 : 5);
    free(sunk);
    sunk = NULL;
    sunk_len = 0;
  }
  gql_tracer_free(t);
  gql_schema_free(s);
}
