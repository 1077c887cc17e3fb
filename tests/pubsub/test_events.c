/* Subscription events from a real redis-server: the subscriber connection
 * (SUBSCRIBE, messages, resubscribing after a restart with backoff, the
 * heartbeat against a frozen server), the bus's channels and argument
 * filter, and its refusals of what it cannot use. */
#include "pubsub/events.h"
#include "redis_server.h"

/* ------------------------------------------------------------ the filter */

static const gql_json_value *json(gql_arena *a, const char *s) {
  gql_json_value *v = NULL;
  cr_assert_eq(gql_json_parse(a, s, strlen(s), NULL, &v, NULL), 0, "%s", s);
  return v;
}

Test(events_match, arguments_equal_the_events_properties_of_their_names) {
  gql_arena *a = gql_arena_new(NULL);
  struct {
    const char *args, *event;
    bool match;
  } cases[] = {
      {"{}", "{\"room\":\"a\"}", true},
      {"{}", "42", true},
      {"{\"room\":\"a\"}", "{\"room\":\"a\",\"text\":\"hi\"}", true},
      {"{\"room\":\"a\"}", "{\"room\":\"b\",\"text\":\"hi\"}", false},
      {"{\"room\":\"a\"}", "{\"text\":\"hi\"}", false},
      {"{\"room\":\"a\"}", "\"a\"", false},
      {"{\"room\":\"a\"}", "{\"room\":\"b\",\"room\":\"a\"}", true},
      {"{\"n\":1}", "{\"n\":1.0}", true},
      {"{\"n\":1}", "{\"n\":1.5}", false},
      {"{\"n\":1}", "{\"n\":\"1\"}", false},
      {"{\"n\":9007199254740993}", "{\"n\":9007199254740992}", false},
      {"{\"b\":true}", "{\"b\":true}", true},
      {"{\"b\":true}", "{\"b\":1}", false},
      {"{\"x\":null}", "{}", true},
      {"{\"x\":null}", "{\"x\":null}", true},
      {"{\"x\":null}", "{\"x\":0}", false},
      {"{\"x\":null}", "7", true},
      {"{\"l\":[1,2]}", "{\"l\":[1,2]}", true},
      {"{\"l\":[1,2]}", "{\"l\":[2,1]}", false},
      {"{\"l\":[1,2]}", "{\"l\":[1,2,3]}", false},
      {"{\"o\":{\"a\":1,\"b\":2}}", "{\"o\":{\"b\":2,\"a\":1}}", true},
      {"{\"o\":{\"a\":1,\"b\":2}}", "{\"o\":{\"a\":1}}", false},
      {"{\"o\":{\"a\":1}}", "{\"o\":{\"a\":1,\"b\":2}}", false},
      {"{\"a\":\"x\",\"b\":2}", "{\"b\":2,\"a\":\"x\"}", true},
      {"{\"a\":\"x\",\"b\":2}", "{\"b\":3,\"a\":\"x\"}", false},
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(cases); i++)
    cr_assert_eq(
        gql_events_match(json(a, cases[i].args), json(a, cases[i].event)),
        cases[i].match, "%s ~ %s", cases[i].args, cases[i].event);
  cr_assert(gql_events_match(NULL, json(a, "1")));
  gql_arena_free(a);
}

/* ------------------------------------------------------------ with Redis */

typedef struct got {
  int n;
  char last[256];
  struct fixture *f;
  gql_events_listener *self, *other;
  enum { PLAIN, UNLISTEN_SELF, UNLISTEN_OTHER, LISTEN_NEW } act;
  gql_events_listener *added;
} got;

typedef struct fixture {
  uv_loop_t loop;
  test_redis srv;
  gql_redis *r;
  gql_events *ev;
  char url[128];
  bool closed;
} fixture;

static void on_event(void *ud, const gql_json_value *event);

static void record(got *g, const gql_json_value *event) {
  g->n++;
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_json_write_value(&b, event);
  snprintf(g->last, sizeof g->last, "%s", gql_buf_cstr(&b));
  gql_buf_free(&b);
}

static void on_event(void *ud, const gql_json_value *event) {
  got *g = ud;
  record(g, event);
  if (g->act == UNLISTEN_SELF)
    gql_events_unlisten(g->self);
  else if (g->act == UNLISTEN_OTHER && g->other) {
    gql_events_unlisten(g->other);
    g->other = NULL; /* freed once this delivery is over */
  } else if (g->act == LISTEN_NEW && !g->added)
    g->added =
        gql_events_listen(g->f->ev, GQL_STR("tick"), NULL, on_event, &(got){0});
}

static void on_closed(void *ud) {
  *(bool *)ud = true;
}

static void start(fixture *f, uint32_t heartbeat_ms) {
  memset(f, 0, sizeof *f);
  uv_loop_init(&f->loop);
  test_redis_start(&f->srv);
  snprintf(f->url, sizeof f->url, "redis://127.0.0.1:%d", f->srv.port);
  gql_redis_options o = {.url = f->url,
                         .heartbeat_ms = heartbeat_ms,
                         .backoff_min_ms = 20,
                         .backoff_max_ms = 200,
                         .connect_timeout_ms = 300};
  char err[128];
  cr_assert_eq(gql_redis_new(&f->loop, &o, &f->r, err, sizeof err), 0, "%s",
               err);
  cr_assert_eq(gql_events_new(f->r, NULL, &f->ev), 0);
}

static void stop(fixture *f) {
  gql_events_free(f->ev);
  gql_redis_close(f->r, on_closed, &f->closed);
  cr_assert(test_run_until(&f->loop, &f->closed, 2000));
  test_redis_stop(&f->srv);
  cr_assert_eq(uv_run(&f->loop, UV_RUN_NOWAIT), 0, "handles left open");
  cr_assert_eq(uv_loop_close(&f->loop), 0);
}

/* PUBLISH from another connection; the number of subscribers reached. */
static long long publish(fixture *f, const char *channel, const char *msg) {
  redisContext *c = test_redis_sync(&f->srv);
  if (!c)
    return -1;
  redisReply *r = redisCommand(c, "PUBLISH %s %s", channel, msg);
  long long n = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
  if (r)
    freeReplyObject(r);
  redisFree(c);
  return n;
}

static long long numsub(fixture *f, const char *channel) {
  redisContext *c = test_redis_sync(&f->srv);
  if (!c)
    return -1;
  redisReply *r = redisCommand(c, "PUBSUB NUMSUB %s", channel);
  long long n = r && r->type == REDIS_REPLY_ARRAY && r->elements == 2
                    ? r->element[1]->integer
                    : -1;
  if (r)
    freeReplyObject(r);
  redisFree(c);
  return n;
}

/* Runs the loop until Redis counts `want` subscribers of `channel`. */
static void wait_numsub(fixture *f, const char *channel, long long want,
                        uint64_t ms) {
  uint64_t end = test_now_ms() + ms;
  long long n = -1;
  while (test_now_ms() < end) {
    bool never = false;
    test_run_until(&f->loop, &never, 20);
    if ((n = numsub(f, channel)) == want)
      return;
  }
  cr_assert_fail("%s: %lld subscribers, not %lld, after %llu ms", channel, n,
                 want, (unsigned long long)ms);
}

/* Runs the loop until Redis counts our subscription to `channel`. */
static void wait_subscribed(fixture *f, const char *channel, uint64_t ms) {
  wait_numsub(f, channel, 1, ms);
}

static void run_for(fixture *f, uint64_t ms) {
  bool never = false;
  test_run_until(&f->loop, &never, ms);
}

static void wait_events(fixture *f, got *g, int n, uint64_t ms) {
  uint64_t end = test_now_ms() + ms;
  while (g->n < n && test_now_ms() < end) {
    bool never = false;
    test_run_until(&f->loop, &never, 10);
  }
  cr_assert_eq(g->n, n, "got %d events of %d", g->n, n);
}

Test(events, a_published_json_value_reaches_the_fields_listeners) {
  fixture f;
  start(&f, 0);
  got all = {0}, room_a = {0}, room_b = {0};
  cr_assert_not_null(
      gql_events_listen(f.ev, GQL_STR("messageAdded"), NULL, on_event, &all));
  gql_arena *a = gql_arena_new(NULL);
  cr_assert_not_null(gql_events_listen(f.ev, GQL_STR("messageAdded"),
                                       json(a, "{\"room\":\"a\"}"), on_event,
                                       &room_a));
  cr_assert_not_null(gql_events_listen(f.ev, GQL_STR("messageAdded"),
                                       json(a, "{\"room\":\"b\"}"), on_event,
                                       &room_b));
  gql_arena_free(a); /* the listeners keep copies */
  wait_subscribed(&f, "gql:messageAdded", 3000);
  cr_assert_eq(
      publish(&f, "gql:messageAdded", "{\"room\":\"a\",\"text\":\"h\\u00e9\"}"),
      1, "one subscriber connection per bus");
  cr_assert_eq(publish(&f, "gql:other", "{}"), 0);
  wait_events(&f, &all, 1, 2000);
  cr_assert_str_eq(all.last, "{\"room\":\"a\",\"text\":\"h\xc3\xa9\"}");
  cr_assert_eq(room_a.n, 1);
  cr_assert_eq(room_b.n, 0, "filtered out by its argument");
  publish(&f, "gql:messageAdded", "not json");
  publish(&f, "gql:messageAdded", "[1,2,3]");
  wait_events(&f, &all, 2, 2000);
  cr_assert_str_eq(all.last, "[1,2,3]");
  cr_assert_eq(room_a.n, 1);
  gql_events_stats st;
  gql_events_stats_get(f.ev, &st);
  cr_assert_eq(st.received, 3);
  cr_assert_eq(st.malformed, 1);
  cr_assert_eq(st.delivered, 3);
  stop(&f);
}

Test(events, listeners_may_come_and_go_inside_a_delivery) {
  fixture f;
  start(&f, 0);
  got g1 = {.act = UNLISTEN_SELF}, g2 = {.act = UNLISTEN_OTHER},
      g3 = {.act = PLAIN}, g4 = {.act = LISTEN_NEW};
  g1.f = g2.f = g3.f = g4.f = &f;
  g1.self = gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g1);
  g2.self = gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g2);
  g3.self = gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g3);
  g4.self = gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g4);
  g2.other = g3.self;
  /* injected: the same path as a Redis message, without the network */
  gql_events_inject(f.ev, GQL_STR("gql:tick"), GQL_STR("1"));
  cr_assert_eq(g1.n, 1);
  cr_assert_eq(g2.n, 1);
  cr_assert_eq(g3.n, 0, "unlistened before its turn");
  cr_assert_eq(g4.n, 1);
  cr_assert_not_null(g4.added);
  gql_events_inject(f.ev, GQL_STR("gql:tick"), GQL_STR("2"));
  cr_assert_eq(g1.n, 1, "gone");
  cr_assert_eq(g2.n, 2);
  cr_assert_eq(g4.n, 2);
  gql_events_unlisten(g2.self);
  gql_events_unlisten(g4.self);
  gql_events_unlisten(g4.added);
  gql_events_inject(f.ev, GQL_STR("gql:tick"), GQL_STR("3"));
  gql_events_stats st;
  gql_events_stats_get(f.ev, &st);
  cr_assert_eq(st.unheard, 1, "nobody left: not even parsed");
  stop(&f);
}

Test(events, oversized_and_deep_messages_are_dropped) {
  fixture f;
  start(&f, 0);
  gql_events_free(f.ev);
  gql_events_options o = {.prefix = "app.", .max_event = 64, .max_depth = 4};
  cr_assert_eq(gql_events_new(f.r, &o, &f.ev), 0);
  got g = {0};
  gql_events_listen(f.ev, GQL_STR("f"), NULL, on_event, &g);
  char big[100];
  memset(big, ' ', sizeof big);
  big[0] = '1';
  gql_events_inject(f.ev, GQL_STR("app.f"), (gql_str){big, sizeof big});
  gql_events_inject(f.ev, GQL_STR("app.f"), GQL_STR("[[[[[1]]]]]"));
  gql_events_inject(f.ev, GQL_STR("gql:f"), GQL_STR("1"));
  gql_events_inject(f.ev, GQL_STR("app.f"), GQL_STR("[[[1]]]"));
  cr_assert_eq(g.n, 1);
  gql_events_stats st;
  gql_events_stats_get(f.ev, &st);
  cr_assert_eq(st.too_big, 1);
  cr_assert_eq(st.malformed, 1);
  /* args nested past 64 are refused */
  gql_arena *a = gql_arena_new(NULL);
  char deep[300] = "{\"a\":";
  for (int i = 0; i < 70; i++)
    strcat(deep, "[");
  strcat(deep, "1");
  for (int i = 0; i < 70; i++)
    strcat(deep, "]");
  strcat(deep, "}");
  cr_assert_null(
      gql_events_listen(f.ev, GQL_STR("f"), json(a, deep), on_event, &g));
  gql_arena_free(a);
  char prefix[300];
  memset(prefix, 'p', sizeof prefix - 1);
  prefix[sizeof prefix - 1] = 0;
  gql_events *bad;
  cr_assert_eq(
      gql_events_new(f.r, &(gql_events_options){.prefix = prefix}, &bad),
      GQL_EINVAL);
  stop(&f);
}

/* What the bus's note says of each message (the metrics and the log of
 * gql serve hang there). */
typedef struct notes {
  int n;
  int fates[4];
  char channel[64];
  size_t bytes[8];
  char why[8][160];
} notes;

static void on_note(void *ud, gql_str channel, gql_events_fate fate,
                    size_t bytes, const char *why) {
  notes *ns = ud;
  cr_assert_lt((unsigned)fate, 4);
  ns->fates[fate]++;
  snprintf(ns->channel, sizeof ns->channel, "%.*s", (int)channel.len,
           channel.ptr);
  if (ns->n < 8) {
    ns->bytes[ns->n] = bytes;
    snprintf(ns->why[ns->n], sizeof ns->why[0], "%s", why ? why : "(null)");
  }
  ns->n++;
}

Test(events, every_message_on_a_channel_is_noted_with_its_fate) {
  fixture f;
  start(&f, 0);
  gql_events_free(f.ev);
  notes ns = {0};
  gql_events_options o = {.max_event = 64, .note = on_note, .note_ud = &ns};
  cr_assert_eq(gql_events_new(f.r, &o, &f.ev), 0);
  got g = {0};
  gql_events_listener *l =
      gql_events_listen(f.ev, GQL_STR("f"), NULL, on_event, &g);
  char big[65];
  memset(big, ' ', sizeof big);
  big[0] = '1';
  gql_events_inject(f.ev, GQL_STR("gql:f"), GQL_STR("nope"));
  gql_events_inject(f.ev, GQL_STR("gql:f"), (gql_str){big, sizeof big});
  gql_events_inject(f.ev, GQL_STR("gql:f"), GQL_STR("{\"a\":1}"));
  gql_events_inject(f.ev, GQL_STR("gql:other"), GQL_STR("1")); /* not ours */
  gql_events_unlisten(l);
  gql_events_inject(f.ev, GQL_STR("gql:f"), GQL_STR("2"));
  cr_assert_eq(g.n, 1);
  cr_assert_eq(ns.n, 4, "one note per message on our channels");
  cr_assert_eq(ns.fates[GQL_EVENTS_MALFORMED], 1);
  cr_assert_eq(ns.fates[GQL_EVENTS_TOO_BIG], 1);
  cr_assert_eq(ns.fates[GQL_EVENTS_PARSED], 1);
  cr_assert_eq(ns.fates[GQL_EVENTS_UNHEARD], 1);
  cr_assert_str_eq(ns.channel, "gql:f");
  cr_assert_eq(ns.bytes[0], 4);
  cr_assert_eq(ns.bytes[1], 65);
  cr_assert_eq(ns.bytes[2], 7);
  cr_assert_str_eq(ns.why[0], "Unexpected character 'o' at line 1, column 2");
  cr_assert_str_eq(ns.why[1], "(null)");
  cr_assert_str_eq(ns.why[2], "(null)");
  gql_events_stats st;
  gql_events_stats_get(f.ev, &st);
  cr_assert_eq(st.received, 4);
  stop(&f);
}

Test(events, a_restarted_redis_is_resubscribed_with_backoff) {
  fixture f;
  start(&f, 0);
  got g = {0};
  gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g);
  wait_subscribed(&f, "gql:tick", 3000);
  publish(&f, "gql:tick", "1");
  wait_events(&f, &g, 1, 2000);
  test_redis_stop(&f.srv);
  uint64_t end = test_now_ms() + 3000;
  gql_redis_stats st;
  do {
    bool never = false;
    test_run_until(&f.loop, &never, 20);
    gql_redis_stats_get(f.r, &st);
  } while (st.sub_attempt < 3 && test_now_ms() < end);
  cr_assert_geq(st.sub_attempt, 3, "reconnects keep being tried");
  cr_assert_eq(st.sub_disconnects, 1);
  cr_assert_neq(gql_redis_subscriber_state(f.r), GQL_REDIS_STATE_READY);
  test_redis_start(&f.srv); /* same port */
  wait_subscribed(&f, "gql:tick", 3000);
  gql_redis_stats_get(f.r, &st);
  cr_assert_eq(st.sub_connects, 2);
  cr_assert_eq(st.sub_attempt, 0);
  publish(&f, "gql:tick", "2");
  wait_events(&f, &g, 2, 2000);
  cr_assert_str_eq(g.last, "2");
  stop(&f);
}

Test(events, a_frozen_redis_is_noticed_by_the_heartbeat) {
  fixture f;
  start(&f, 100);
  got g = {0};
  gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g);
  wait_subscribed(&f, "gql:tick", 3000);
  kill(f.srv.pid, SIGSTOP);
  uint64_t end = test_now_ms() + 3000;
  gql_redis_stats st;
  do {
    bool never = false;
    test_run_until(&f.loop, &never, 20);
    gql_redis_stats_get(f.r, &st);
  } while (st.sub_disconnects == 0 && test_now_ms() < end);
  cr_assert_eq(st.sub_disconnects, 1, "dropped for a missed heartbeat");
  kill(f.srv.pid, SIGCONT);
  wait_subscribed(&f, "gql:tick", 5000);
  end = test_now_ms() + 3000;
  while (gql_redis_subscriber_state(f.r) != GQL_REDIS_STATE_READY &&
         test_now_ms() < end) {
    bool never = false;
    test_run_until(&f.loop, &never, 20);
  }
  publish(&f, "gql:tick", "\"after\"");
  wait_events(&f, &g, 1, 2000);
  cr_assert_str_eq(g.last, "\"after\"");
  stop(&f);
}

Test(events, channels_are_refused_past_the_limit_or_twice) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  gql_redis *r;
  char err[64];
  gql_redis_options o = {.url = "redis://127.0.0.1:1", .max_channels = 2};
  cr_assert_eq(gql_redis_new(&loop, &o, &r, err, sizeof err), 0);
  cr_assert_eq(gql_redis_subscribe(r, GQL_STR("a")), 0);
  cr_assert_eq(gql_redis_subscribe(r, GQL_STR("a")), GQL_EINVAL);
  cr_assert_eq(gql_redis_subscribe(r, GQL_STR("")), GQL_EINVAL);
  cr_assert_eq(gql_redis_subscribe(r, GQL_STR("b")), 0);
  cr_assert_eq(gql_redis_subscribe(r, GQL_STR("c")), GQL_ELIMIT);
  gql_redis_stats st;
  gql_redis_stats_get(r, &st);
  cr_assert_eq(st.channels, 2);
  /* taken back (not connected: at once), then the room is there */
  cr_assert_eq(gql_redis_unsubscribe(r, GQL_STR("c")), GQL_EINVAL);
  cr_assert_eq(gql_redis_unsubscribe(r, GQL_STR("b")), 0);
  cr_assert_eq(gql_redis_unsubscribe(r, GQL_STR("b")), GQL_EINVAL);
  cr_assert_eq(gql_redis_subscribe(r, GQL_STR("c")), 0);
  gql_redis_stats_get(r, &st);
  cr_assert_eq(st.channels, 2);
  bool closed = false;
  gql_redis_close(r, on_closed, &closed);
  cr_assert(test_run_until(&loop, &closed, 2000));
  cr_assert_eq(uv_loop_close(&loop), 0);
}

Test(events, the_last_listener_unsubscribes_and_a_new_one_subscribes_again) {
  fixture f;
  start(&f, 0);
  got g1 = {0}, g2 = {0}, g3 = {0};
  gql_events_listener *l1 =
      gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g1);
  gql_events_listener *l2 =
      gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g2);
  gql_events_listener *other =
      gql_events_listen(f.ev, GQL_STR("other"), NULL, on_event, &g3);
  wait_subscribed(&f, "gql:tick", 3000);
  wait_subscribed(&f, "gql:other", 3000);
  gql_events_unlisten(l1);
  run_for(&f, 100);
  cr_assert_eq(numsub(&f, "gql:tick"), 1, "a listener is left");
  gql_events_unlisten(l2);
  wait_numsub(&f, "gql:tick", 0, 3000);
  cr_assert_eq(numsub(&f, "gql:other"), 1, "only the channel nobody hears");
  gql_redis_stats rs;
  gql_redis_stats_get(f.r, &rs);
  cr_assert_eq(rs.channels, 1);
  cr_assert_eq(publish(&f, "gql:tick", "0"), 0, "Redis sends us nothing");
  l1 = gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g1);
  cr_assert_not_null(l1);
  wait_subscribed(&f, "gql:tick", 3000);
  cr_assert_eq(publish(&f, "gql:tick", "1"), 1);
  wait_events(&f, &g1, 1, 2000);
  cr_assert_str_eq(g1.last, "1");
  cr_assert_eq(g2.n, 0);
  gql_events_unlisten(l1);
  gql_events_unlisten(other);
  stop(&f);
}

Test(events, a_listener_coming_while_the_unsubscribe_is_in_flight_is_heard) {
  fixture f;
  start(&f, 0);
  got g = {0};
  gql_events_listener *l =
      gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g);
  wait_subscribed(&f, "gql:tick", 3000);
  /* In one loop turn: UNSUBSCRIBE sent, then wanted again before Redis
   * answers it; then the same twice more. */
  for (int i = 0; i < 3; i++) {
    gql_events_unlisten(l);
    l = gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g);
    cr_assert_not_null(l);
  }
  run_for(&f, 200);
  cr_assert_eq(numsub(&f, "gql:tick"), 1, "ends subscribed");
  cr_assert_eq(publish(&f, "gql:tick", "\"still\""), 1);
  wait_events(&f, &g, 1, 2000);
  cr_assert_str_eq(g.last, "\"still\"");
  /* Away, back and away again in one loop turn: ends unsubscribed. */
  gql_events_unlisten(l);
  l = gql_events_listen(f.ev, GQL_STR("tick"), NULL, on_event, &g);
  gql_events_unlisten(l);
  wait_numsub(&f, "gql:tick", 0, 3000);
  gql_redis_stats rs;
  gql_redis_stats_get(f.r, &rs);
  cr_assert_eq(rs.channels, 0);
  cr_assert_eq(rs.unsubscribes, 5);
  stop(&f);
}

Test(events, a_restarted_redis_gets_back_only_the_channels_still_heard) {
  fixture f;
  start(&f, 0);
  got ga = {0}, gb = {0}, gc = {0};
  gql_events_listener *la =
      gql_events_listen(f.ev, GQL_STR("a"), NULL, on_event, &ga);
  gql_events_listener *lb =
      gql_events_listen(f.ev, GQL_STR("b"), NULL, on_event, &gb);
  gql_events_listener *lc =
      gql_events_listen(f.ev, GQL_STR("c"), NULL, on_event, &gc);
  wait_subscribed(&f, "gql:a", 3000);
  wait_subscribed(&f, "gql:b", 3000);
  wait_subscribed(&f, "gql:c", 3000);
  gql_events_unlisten(lb); /* while connected: its UNSUBSCRIBE may be in
                              flight when Redis goes */
  test_redis_stop(&f.srv);
  gql_events_unlisten(lc); /* while down */
  gql_redis_stats st;
  uint64_t end = test_now_ms() + 3000;
  do {
    run_for(&f, 20);
    gql_redis_stats_get(f.r, &st);
  } while (st.sub_attempt < 1 && test_now_ms() < end);
  test_redis_start(&f.srv); /* same port */
  wait_subscribed(&f, "gql:a", 3000);
  end = test_now_ms() + 3000;
  while (gql_redis_subscriber_state(f.r) != GQL_REDIS_STATE_READY &&
         test_now_ms() < end)
    run_for(&f, 20);
  run_for(&f, 100);
  cr_assert_eq(numsub(&f, "gql:b"), 0);
  cr_assert_eq(numsub(&f, "gql:c"), 0);
  gql_redis_stats_get(f.r, &st);
  cr_assert_eq(st.channels, 1);
  /* b wanted again after the restart */
  lb = gql_events_listen(f.ev, GQL_STR("b"), NULL, on_event, &gb);
  wait_subscribed(&f, "gql:b", 3000);
  cr_assert_eq(publish(&f, "gql:b", "2"), 1);
  cr_assert_eq(publish(&f, "gql:a", "1"), 1);
  wait_events(&f, &gb, 1, 2000);
  wait_events(&f, &ga, 1, 2000);
  cr_assert_eq(gc.n, 0);
  gql_events_unlisten(la);
  gql_events_unlisten(lb);
  stop(&f);
}
