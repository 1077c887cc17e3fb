/* Subscriptions through the public API: gql_subscribe runs the root
 * field's resolver, which hands over a stream (gql_out_stream); each event
 * pushed into it is the root field's value, completed through the
 * selection set, one response per event; errors stay in their event; the
 * source is told when the subscriber leaves; the queue is bounded. */
#include <criterion/criterion.h>
#include <gql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sdl[] =
    "type Query { a: Int }\n"
    "type Msg { text: String, n: Int!, slow: String }\n"
    "type Subscription { msgs(room: String): Msg, refused: Msg, none: Msg,"
    " later: Msg }\n";

/* The source side, as an embedder keeps it. */
static gql_stream *stream;
static int cancels;
static char room[32];

static void on_cancel(void *ud) {
  (void)ud;
  cancels++;
  stream = NULL;
}

static void msgs(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)parent;
  gql_str r = gql_value_string(gql_arg(info, "room"));
  snprintf(room, sizeof room, "%.*s", (int)r.len, r.ptr);
  stream = gql_out_stream(out, &(gql_stream_source){on_cancel, NULL});
}

static void refused(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_error(out, "Not allowed here.");
}

static void none(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)info;
  (void)parent;
  (void)out; /* writes nothing, makes no stream */
}

/* Msg.slow pends; the test completes it. */
static gql_pending *slow_pending;
static void slow(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)info;
  (void)parent;
  slow_pending = gql_out_pending(out);
}

/* Subscription.later pends at subscribe; the test makes its stream. */
static gql_pending *later_pending;
static void later(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  (void)parent;
  later_pending = gql_out_pending(out);
}

static gql_schema *schema(void) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Subscription", "msgs", msgs, NULL, 0), 0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Subscription", "refused", refused, NULL, 0),
      0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Subscription", "none", none, NULL, 0), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Msg", "slow", slow, NULL, 0), 0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Subscription", "later", later, NULL, 0), 0);
  cr_assert_eq(gql_schema_finalize(s), 0);
  stream = NULL;
  cancels = 0;
  return s;
}

/* What the subscriber received: responses joined by '\n', then the end. */
typedef struct seen {
  char events[4096];
  int nevents;
  char end[512];
  int nends;
  gql_subscription **free_me; /* frees the subscription at event `free_at` */
  int free_at;
} seen;

static void on_event(void *ud, const char *json, size_t len, bool errs) {
  (void)errs;
  seen *w = ud;
  size_t n = strlen(w->events);
  snprintf(w->events + n, sizeof w->events - n, "%s%.*s", n ? "\n" : "",
           (int)len, json);
  w->nevents++;
  if (w->free_me && w->nevents == w->free_at) {
    gql_subscription_free(*w->free_me);
    *w->free_me = NULL;
  }
}

static void on_end(void *ud, const char *errors, size_t len) {
  seen *w = ud;
  snprintf(w->end, sizeof w->end, "%.*s", (int)len, errors ? errors : "");
  w->nends++;
}

static gql_prepared *prepare(gql_schema *s, const char *q) {
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, NULL), 0, "%s", q);
  return p;
}

static gql_subscription *subscribe(gql_prepared *p, seen *w, const char *vars) {
  gql_subscribe_params prm = {.variables_json = vars,
                              .variables_len = vars ? strlen(vars) : 0,
                              .on_event = on_event,
                              .on_end = on_end,
                              .ud = w};
  gql_subscription *sub = NULL;
  cr_assert_eq(gql_subscribe(p, &prm, &sub), 0);
  return sub;
}

static void push(const char *json) {
  cr_assert_not_null(stream);
  cr_assert_eq(gql_stream_push_json(stream, json, strlen(json)), 0, "%s", json);
}

Test(subscribe, each_event_is_the_root_fields_value_through_the_selection) {
  gql_schema *s = schema();
  gql_prepared *p =
      prepare(s, "subscription($r: String) { m: msgs(room: $r) { text n } }");
  seen w = {0};
  gql_subscription *sub = subscribe(p, &w, "{\"r\":\"lobby\"}");
  cr_assert_not_null(sub);
  cr_assert_not_null(stream);
  cr_assert_str_eq(room, "lobby"); /* arguments reach the resolver */
  cr_assert_eq(w.nevents, 0);      /* subscribing answers nothing */
  push("{\"text\":\"hi\",\"n\":1,\"other\":true}");
  push("{\"text\":\"again\",\"n\":2}");
  cr_assert_str_eq(w.events, "{\"data\":{\"m\":{\"text\":\"hi\",\"n\":1}}}\n"
                             "{\"data\":{\"m\":{\"text\":\"again\",\"n\":2}}}");
  gql_subscription_free(sub);
  cr_assert_eq(cancels, 1); /* the source is told */
  cr_assert_eq(w.nends, 0);
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, an_error_in_one_event_does_not_end_the_stream) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "subscription { msgs { text n } }");
  seen w = {0};
  gql_subscription *sub = subscribe(p, &w, NULL);
  push("{\"text\":\"no n\"}"); /* n is Int!: the error nulls msgs */
  push("null");
  push("{\"text\":\"ok\",\"n\":3}");
  cr_assert_str_eq(
      w.events,
      "{\"errors\":[{\"message\":\"Cannot return null for non-nullable field "
      "Msg.n.\",\"locations\":[{\"line\":1,\"column\":28}],\"path\":[\"msgs\","
      "\"n\"]}],\"data\":{\"msgs\":null}}\n"
      "{\"data\":{\"msgs\":null}}\n"
      "{\"data\":{\"msgs\":{\"text\":\"ok\",\"n\":3}}}");
  cr_assert_eq(w.nends, 0);
  gql_stream_end(stream);
  cr_assert_eq(w.nends, 1);
  cr_assert_str_eq(w.end, ""); /* ended, no error */
  cr_assert_eq(gql_stream_push_json(stream, "1", 1), GQL_EINVAL);
  gql_subscription_free(sub);
  cr_assert_eq(cancels, 0); /* it ended by itself: nothing to cancel */
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, a_resolver_error_answers_errors_without_data_and_ends) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "subscription { refused { text } }");
  seen w = {0};
  gql_subscription *sub = subscribe(p, &w, NULL);
  cr_assert_str_eq(w.events, "{\"errors\":[{\"message\":\"Not allowed here.\","
                             "\"locations\":[{\"line\":1,\"column\":16}],"
                             "\"path\":[\"refused\"]}]}");
  cr_assert_eq(w.nends, 1);
  gql_subscription_free(sub);
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, a_resolver_without_a_stream_fails_as_graphql_js) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "subscription { none { text } }");
  seen w = {0};
  gql_subscription *sub = subscribe(p, &w, NULL);
  cr_assert_str_eq(w.events, "{\"errors\":[{\"message\":\"Subscription field "
                             "must return Async Iterable. Received: "
                             "undefined.\"}]}");
  cr_assert_eq(w.nends, 1);
  gql_subscription_free(sub);
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, invalid_variables_answer_their_errors) {
  gql_schema *s = schema();
  gql_prepared *p =
      prepare(s, "subscription($r: String) { msgs(room: $r) { text } }");
  seen w = {0};
  gql_subscription *sub = subscribe(p, &w, "{\"r\":5}");
  cr_assert(strstr(w.events, "Variable \\\"$r\\\" got invalid value 5"), "%s",
            w.events);
  cr_assert_null(stream); /* the resolver never ran */
  cr_assert_eq(w.nends, 1);
  gql_subscription_free(sub);
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, a_failed_stream_reports_its_error_at_the_end) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "subscription { msgs { text } }");
  seen w = {0};
  gql_subscription *sub = subscribe(p, &w, NULL);
  push("{\"text\":\"one\"}");
  gql_stream_fail(stream, "Upstream \"gone\".");
  cr_assert_eq(w.nevents, 1);
  cr_assert_str_eq(w.end, "[{\"message\":\"Upstream \\\"gone\\\".\"}]");
  gql_subscription_free(sub);
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, a_paused_subscriber_keeps_the_newest_events_up_to_its_bound) {
  gql_schema *s = schema();
  seen w = {0};
  gql_subscribe_params prm = {
      .on_event = on_event, .on_end = on_end, .ud = &w, .max_queue = 2};
  gql_prepared *q = prepare(s, "subscription { msgs { text } }");
  gql_subscription *sub = NULL;
  cr_assert_eq(gql_subscribe(q, &prm, &sub), 0);
  gql_subscription_pause(sub);
  cr_assert_eq(gql_stream_push_json(stream, "{\"text\":\"1\"}", 12), 0);
  cr_assert_eq(gql_stream_push_json(stream, "{\"text\":\"2\"}", 12), 0);
  cr_assert_eq(gql_stream_push_json(stream, "{\"text\":\"3\"}", 12),
               GQL_ELIMIT);
  cr_assert_eq(gql_stream_push_json(stream, "{\"text\":\"4\"}", 12),
               GQL_ELIMIT);
  cr_assert_eq(w.nevents, 0);
  cr_assert_eq(gql_subscription_dropped(sub), 2);
  gql_subscription_resume(sub);
  cr_assert_str_eq(w.events, "{\"data\":{\"msgs\":{\"text\":\"3\"}}}\n"
                             "{\"data\":{\"msgs\":{\"text\":\"4\"}}}");
  gql_subscription_free(sub);
  gql_prepared_free(q);
  gql_schema_free(s);
}

Test(subscribe, overflow_close_ends_with_an_error_and_tells_the_source) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "subscription { msgs { text } }");
  seen w = {0};
  gql_subscribe_params prm = {.on_event = on_event,
                              .on_end = on_end,
                              .ud = &w,
                              .max_queue = 1,
                              .overflow = GQL_OVERFLOW_CLOSE};
  gql_subscription *sub = NULL;
  cr_assert_eq(gql_subscribe(p, &prm, &sub), 0);
  gql_subscription_pause(sub);
  gql_stream *st = stream;
  cr_assert_eq(gql_stream_push_json(st, "{\"text\":\"1\"}", 12), 0);
  cr_assert_eq(gql_stream_push_json(st, "{\"text\":\"2\"}", 12), GQL_ELIMIT);
  cr_assert_eq(cancels, 1);
  cr_assert_eq(w.nends, 1);
  cr_assert(strstr(w.end, "did not keep up"), "%s", w.end);
  gql_subscription_resume(sub);
  cr_assert_eq(w.nevents, 0); /* what waited went with the close */
  gql_subscription_free(sub);
  cr_assert_eq(cancels, 1); /* once */
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, the_subscriber_may_leave_from_its_event_callback) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "subscription { msgs { text } }");
  seen w = {0};
  gql_subscription *sub = subscribe(p, &w, NULL);
  w.free_me = &sub;
  w.free_at = 2;
  gql_subscription_pause(sub);
  gql_stream *st = stream;
  for (int i = 0; i < 3; i++)
    cr_assert_eq(gql_stream_push_json(st, "{\"text\":\"x\"}", 12), 0);
  gql_subscription_resume(sub); /* frees it during the second event */
  cr_assert_null(sub);
  cr_assert_eq(w.nevents, 2);
  cr_assert_eq(cancels, 1);
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, a_pending_field_holds_later_events_in_order) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "subscription { msgs { text slow } }");
  seen w = {0};
  gql_subscription *sub = subscribe(p, &w, NULL);
  push("{\"text\":\"a\"}");
  cr_assert_not_null(slow_pending);
  gql_stream *st = stream;
  cr_assert_eq(gql_stream_push_json(st, "{\"text\":\"b\"}", 12), 0);
  cr_assert_eq(w.nevents, 0); /* b waits for a */
  gql_pending *pa = slow_pending;
  slow_pending = NULL;
  gql_out_string(gql_pending_out(pa), "A", 1);
  cr_assert_eq(w.nevents, 1); /* a, and b started (and pends) */
  cr_assert_not_null(slow_pending);
  gql_out_string(gql_pending_out(slow_pending), "B", 1);
  cr_assert_str_eq(w.events,
                   "{\"data\":{\"msgs\":{\"text\":\"a\",\"slow\":\"A\"}}}\n"
                   "{\"data\":{\"msgs\":{\"text\":\"b\",\"slow\":\"B\"}}}");
  gql_subscription_free(sub);
  gql_prepared_free(p);
  gql_schema_free(s);
}

/* A root field that pends at subscribe and completes without a stream:
 * the subscription fails then, as graphql-js's subscribe() does, and its
 * memory is freed once (LeakSanitizer). */
Test(subscribe, a_root_field_pending_at_subscribe_answers_when_it_completes) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "subscription { later { text } }");
  seen w = {0};
  later_pending = NULL;
  gql_subscription *sub = subscribe(p, &w, NULL);
  cr_assert_not_null(sub);
  cr_assert_not_null(later_pending);
  cr_assert_eq(w.nevents, 0); /* nothing before it completes */
  gql_out_null(gql_pending_out(later_pending));
  cr_assert_eq(w.nevents, 1);
  cr_assert(strstr(w.events, "must return") != NULL, "%s", w.events);
  cr_assert_eq(w.nends, 1);
  gql_subscription_free(sub);
  gql_prepared_free(p);
  gql_schema_free(s);
}

Test(subscribe, gql_execute_still_refuses_and_graphql_runs_once) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "{ a }");
  gql_subscription *sub = (gql_subscription *)1;
  gql_subscribe_params prm = {.on_event = on_event};
  cr_assert_eq(gql_subscribe(p, &prm, &sub), GQL_EINVAL);
  cr_assert_null(sub);
  gql_prepared_free(p);
  gql_arena *a = gql_arena_new(NULL);
  gql_str json;
  static const char q[] = "subscription { msgs { text } }";
  cr_assert_eq(
      gql_graphql(s, q, sizeof q - 1, NULL, NULL, 0, NULL, NULL, a, &json), 0);
  cr_assert_str_eq(json.ptr, "{\"data\":{\"msgs\":null}}");
  cr_assert_null(stream); /* no stream outside a subscription */
  gql_arena_free(a);
  gql_schema_free(s);
}
