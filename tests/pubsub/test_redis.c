/* The Redis client against a real redis-server: replies, AUTH and SELECT,
 * unix sockets, per-command timeouts (DEBUG SLEEP, CLIENT PAUSE, SIGSTOP),
 * refusals while down or full, reconnects with backoff after a restart, and
 * a clean close. */
#include "pubsub/redis.h"
#include "redis_server.h"

typedef struct answer {
  bool done;
  gql_redis_status st;
  gql_redis_reply_kind kind;
  char text[256];
  size_t len;
  long long integer;
  uint64_t at_ms;
} answer;

static void on_answer(void *ud, gql_redis_status st,
                      const gql_redis_reply *reply) {
  answer *a = ud;
  cr_assert(!a->done, "a command was answered twice");
  a->done = true;
  a->st = st;
  a->at_ms = test_now_ms();
  if (reply) {
    a->kind = gql_redis_reply_type(reply);
    gql_str s = gql_redis_reply_str(reply);
    a->len = s.len;
    memcpy(a->text, s.ptr, s.len < sizeof a->text ? s.len : sizeof a->text);
    a->integer = gql_redis_reply_int(reply);
  }
}

static gql_redis_status send2(gql_redis *r, const char *a0, const char *a1,
                              uint32_t timeout, answer *a) {
  const char *argv[2] = {a0, a1};
  size_t lens[2] = {strlen(a0), a1 ? strlen(a1) : 0};
  return gql_redis_command(r, a1 ? 2 : 1, argv, lens, timeout, on_answer, a);
}

typedef struct fixture {
  uv_loop_t loop;
  test_redis srv;
  gql_redis *r;
  char url[256];
  int states[64];
  int nstates;
  bool closed;
} fixture;

static void on_state(void *ud, gql_redis_state s, const char *detail) {
  (void)detail;
  fixture *f = ud;
  if (f->nstates < 64)
    f->states[f->nstates++] = s;
}

static void on_closed(void *ud) {
  *(bool *)ud = true;
}

static bool ready_flag;
static void wait_ready(fixture *f, uint64_t ms) {
  uint64_t end = test_now_ms() + ms;
  while (gql_redis_get_state(f->r) != GQL_REDIS_STATE_READY &&
         test_now_ms() < end) {
    ready_flag = false;
    test_run_until(&f->loop, &ready_flag, 10);
  }
  cr_assert_eq(gql_redis_get_state(f->r), GQL_REDIS_STATE_READY,
               "not ready within %llu ms", (unsigned long long)ms);
}

static void open_client(fixture *f, const gql_redis_options *extra) {
  gql_redis_options o = extra ? *extra : (gql_redis_options){0};
  o.url = f->url;
  o.on_state = on_state;
  o.ud = f;
  char err[128] = "";
  cr_assert_eq(gql_redis_new(&f->loop, &o, &f->r, err, sizeof err), 0, "%s",
               err);
}

static void setup_fixture(fixture *f) {
  memset(f, 0, sizeof *f);
  uv_loop_init(&f->loop);
  test_redis_start(&f->srv);
  snprintf(f->url, sizeof f->url, "redis://127.0.0.1:%d", f->srv.port);
}

static void teardown_fixture(fixture *f) {
  if (f->r) {
    gql_redis_close(f->r, on_closed, &f->closed);
    cr_assert(test_run_until(&f->loop, &f->closed, 2000));
    f->r = NULL;
  }
  test_redis_stop(&f->srv);
  /* Every handle is closed: the loop has nothing left. */
  cr_assert_eq(uv_run(&f->loop, UV_RUN_NOWAIT), 0);
  cr_assert_eq(uv_loop_close(&f->loop), 0);
}

/* ---------------------------------------------------------------- URLs */

Test(redis_url, parses_host_port_db_and_credentials) {
  gql_redis_url u;
  char err[128];
  cr_assert_eq(gql_redis_url_parse("redis://localhost", &u, err, sizeof err),
               0);
  cr_assert_str_eq(u.host, "localhost");
  cr_assert_eq(u.port, 6379);
  cr_assert_eq(u.db, 0);
  cr_assert(!u.has_password);
  cr_assert_eq(gql_redis_url_parse("redis://al%40ice:p%3Aw@10.0.0.2:7000/5", &u,
                                   err, sizeof err),
               0, "%s", err);
  cr_assert_str_eq(u.user, "al@ice");
  cr_assert_str_eq(u.password, "p:w");
  cr_assert_str_eq(u.host, "10.0.0.2");
  cr_assert_eq(u.port, 7000);
  cr_assert_eq(u.db, 5);
  cr_assert_eq(
      gql_redis_url_parse("redis://:secret@[::1]:6380/", &u, err, sizeof err),
      0, "%s", err);
  cr_assert_str_eq(u.host, "::1");
  cr_assert_str_eq(u.user, "");
  cr_assert_str_eq(u.password, "secret");
  cr_assert_eq(u.port, 6380);
  cr_assert_eq(
      gql_redis_url_parse("unix:/run/redis.sock?db=2", &u, err, sizeof err), 0);
  cr_assert_str_eq(u.path, "/run/redis.sock");
  cr_assert_eq(u.db, 2);
  cr_assert_eq(
      gql_redis_url_parse("redis+unix:///tmp/r.sock", &u, err, sizeof err), 0);
  cr_assert_str_eq(u.path, "/tmp/r.sock");
}

Test(redis_url, refuses_what_it_cannot_use_with_a_reason) {
  static const char *bad[] = {
      "localhost:6379",      "rediss://h",        "redis://",
      "redis://h:0",         "redis://h:65536",   "redis://h:12x",
      "redis://h/x",         "redis://[::1",      "unix:relative.sock",
      "redis://h/1?foo=bar", "redis://u:%zz@h",   "unix:/s?db=x",
      "redis://h h",         "redis://a%00b:c@h", NULL};
  for (int i = 0; bad[i]; i++) {
    gql_redis_url u;
    char err[128] = "";
    cr_assert_eq(gql_redis_url_parse(bad[i], &u, err, sizeof err), GQL_EINVAL,
                 "accepted %s", bad[i]);
    cr_assert_neq(err[0], 0, "no reason for %s", bad[i]);
  }
}

/* ------------------------------------------------------------- replies */

Test(redis, set_get_round_trip_is_binary_safe) {
  fixture f;
  setup_fixture(&f);
  open_client(&f, NULL);
  wait_ready(&f, 2000);
  const char key[] = "k\0ey", val[] = "v\0a\r\nlue";
  const char *argv[3] = {"SET", key, val};
  size_t lens[3] = {3, sizeof key - 1, sizeof val - 1};
  answer a = {0}, b = {0}, c = {0};
  cr_assert_eq(gql_redis_command(f.r, 3, argv, lens, 0, on_answer, &a),
               GQL_REDIS_OK);
  cr_assert(!a.done, "answered from inside the submit call");
  const char *g[2] = {"GET", key};
  size_t gl[2] = {3, sizeof key - 1};
  cr_assert_eq(gql_redis_command(f.r, 2, g, gl, 0, on_answer, &b),
               GQL_REDIS_OK);
  cr_assert_eq(send2(f.r, "GET", "absent", 0, &c), GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &c.done, 2000));
  cr_assert_eq(a.st, GQL_REDIS_OK);
  cr_assert_eq(a.kind, GQL_REDIS_REPLY_STATUS);
  cr_assert_eq(b.kind, GQL_REDIS_REPLY_STRING);
  cr_assert_eq(b.len, sizeof val - 1);
  cr_assert_eq(memcmp(b.text, val, b.len), 0);
  cr_assert_eq(c.kind, GQL_REDIS_REPLY_NIL);
  answer e = {0};
  cr_assert_eq(send2(f.r, "NOSUCHCOMMAND", NULL, 0, &e), GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &e.done, 2000));
  cr_assert_eq(e.st, GQL_REDIS_OK);
  cr_assert_eq(e.kind, GQL_REDIS_REPLY_ERROR);
  gql_redis_stats st;
  gql_redis_stats_get(f.r, &st);
  cr_assert_eq(st.connects, 1);
  cr_assert_eq(st.inflight, 0);
  cr_assert_eq(st.replies, 4);
  teardown_fixture(&f);
}

Test(redis, authenticates_and_selects_the_database) {
  fixture f;
  memset(&f, 0, sizeof f);
  uv_loop_init(&f.loop);
  f.srv.extra[0] = "--requirepass";
  f.srv.extra[1] = "s3cret";
  test_redis_start(&f.srv);
  snprintf(f.url, sizeof f.url, "redis://:s3cret@127.0.0.1:%d/3", f.srv.port);
  open_client(&f, NULL);
  wait_ready(&f, 2000);
  answer a = {0};
  const char *argv[3] = {"SET", "where", "db3"};
  size_t lens[3] = {3, 5, 3};
  cr_assert_eq(gql_redis_command(f.r, 3, argv, lens, 0, on_answer, &a),
               GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &a.done, 2000));
  /* Behind the client's back: the key is in database 3. */
  redisContext *c = test_redis_sync(&f.srv);
  cr_assert(c);
  redisReply *r = redisCommand(c, "AUTH s3cret");
  freeReplyObject(r);
  r = redisCommand(c, "SELECT 3");
  freeReplyObject(r);
  r = redisCommand(c, "GET where");
  cr_assert_eq(r->type, REDIS_REPLY_STRING);
  cr_assert_str_eq(r->str, "db3");
  freeReplyObject(r);
  redisFree(c);
  teardown_fixture(&f);
}

Test(redis, a_wrong_password_never_counts_as_connected) {
  fixture f;
  memset(&f, 0, sizeof f);
  uv_loop_init(&f.loop);
  f.srv.extra[0] = "--requirepass";
  f.srv.extra[1] = "right";
  test_redis_start(&f.srv);
  snprintf(f.url, sizeof f.url, "redis://:wrong@127.0.0.1:%d", f.srv.port);
  gql_redis_options o = {.backoff_min_ms = 20, .backoff_max_ms = 40};
  open_client(&f, &o);
  bool never = false;
  test_run_until(&f.loop, &never, 300);
  gql_redis_stats st;
  gql_redis_stats_get(f.r, &st);
  cr_assert_eq(st.connects, 0);
  cr_assert_geq(st.failures, 2, "retried %llu times",
                (unsigned long long)st.failures);
  answer a = {0};
  cr_assert_neq(send2(f.r, "PING", NULL, 0, &a), GQL_REDIS_OK);
  teardown_fixture(&f);
}

Test(redis, connects_over_a_unix_socket) {
  fixture f;
  memset(&f, 0, sizeof f);
  uv_loop_init(&f.loop);
  snprintf(f.srv.unix_path, sizeof f.srv.unix_path, "/tmp/gql-redis-%d.sock",
           (int)getpid());
  test_redis_start(&f.srv);
  snprintf(f.url, sizeof f.url, "unix:%s", f.srv.unix_path);
  open_client(&f, NULL);
  wait_ready(&f, 2000);
  answer a = {0};
  cr_assert_eq(send2(f.r, "ECHO", "over unix", 0, &a), GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &a.done, 2000));
  cr_assert_str_eq(a.text, "over unix");
  teardown_fixture(&f);
  unlink(f.srv.unix_path);
}

/* ------------------------------------------------------------ timeouts */

Test(redis, a_slow_server_gives_timeouts_on_time_and_replies_after) {
  fixture f;
  setup_fixture(&f);
  open_client(&f, NULL);
  wait_ready(&f, 2000);
  answer get = {0};
  /* DEBUG SLEEP blocks the server for 600 ms; the GET behind it must be
   * answered TIMEOUT at its own 50 ms deadline. */
  const char *argv[3] = {"DEBUG", "SLEEP", "0.6"};
  size_t lens[3] = {5, 5, 3};
  answer slept = {0};
  cr_assert_eq(gql_redis_command(f.r, 3, argv, lens, 2000, on_answer, &slept),
               GQL_REDIS_OK);
  uint64_t t0 = test_now_ms();
  cr_assert_eq(send2(f.r, "GET", "x", 50, &get), GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &get.done, 1000));
  cr_assert_eq(get.st, GQL_REDIS_TIMEOUT);
  cr_assert_lt(get.at_ms - t0, 200, "timed out after %llu ms",
               (unsigned long long)(get.at_ms - t0));
  cr_assert(test_run_until(&f.loop, &slept.done, 2000));
  cr_assert_eq(slept.st, GQL_REDIS_OK);
  cr_assert_str_eq(slept.text, "OK");
  answer after = {0};
  cr_assert_eq(send2(f.r, "PING", NULL, 0, &after), GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &after.done, 1000));
  cr_assert_eq(after.st, GQL_REDIS_OK);
  gql_redis_stats st;
  gql_redis_stats_get(f.r, &st);
  cr_assert_eq(st.timeouts, 1);
  cr_assert_eq(st.disconnects, 0, "a slow reply is no reason to reconnect");
  cr_assert_eq(st.inflight, 0, "the late reply released its record");
  teardown_fixture(&f);
}

Test(redis, client_pause_times_out_lookups_quickly) {
  fixture f;
  setup_fixture(&f);
  open_client(&f, NULL);
  wait_ready(&f, 2000);
  redisContext *c = test_redis_sync(&f.srv);
  redisReply *r = redisCommand(c, "CLIENT PAUSE 500");
  cr_assert_eq(r->type, REDIS_REPLY_STATUS);
  freeReplyObject(r);
  redisFree(c);
  answer a = {0};
  uint64_t t0 = test_now_ms();
  cr_assert_eq(send2(f.r, "GET", "k", 30, &a), GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &a.done, 1000));
  cr_assert_eq(a.st, GQL_REDIS_TIMEOUT);
  cr_assert_lt(a.at_ms - t0, 150);
  teardown_fixture(&f);
}

Test(redis, a_stopped_server_is_dropped_refused_then_rejoined) {
  fixture f;
  setup_fixture(&f);
  gql_redis_options o = {.stall_ms = 300,
                         .connect_timeout_ms = 200,
                         .backoff_min_ms = 20,
                         .backoff_max_ms = 100,
                         .max_inflight = 4};
  open_client(&f, &o);
  wait_ready(&f, 2000);
  kill(f.srv.pid, SIGSTOP);
  answer a[5] = {0};
  for (int i = 0; i < 4; i++)
    cr_assert_eq(send2(f.r, "GET", "k", 40, &a[i]), GQL_REDIS_OK);
  /* Full: refused at once, no callback. */
  cr_assert_eq(send2(f.r, "GET", "k", 40, &a[4]), GQL_REDIS_BUSY);
  cr_assert(test_run_until(&f.loop, &a[3].done, 500));
  for (int i = 0; i < 4; i++)
    cr_assert_eq(a[i].st, GQL_REDIS_TIMEOUT);
  /* Still no reply at stall_ms: the connection is dropped, and commands are
   * refused (DOWN) without waiting while Redis stays stopped. */
  uint64_t end = test_now_ms() + 2000;
  bool nf = false;
  while (gql_redis_get_state(f.r) == GQL_REDIS_STATE_READY &&
         test_now_ms() < end)
    test_run_until(&f.loop, &nf, 10);
  cr_assert_neq(gql_redis_get_state(f.r), GQL_REDIS_STATE_READY);
  answer refused = {0};
  uint64_t t0 = test_now_ms();
  cr_assert_eq(send2(f.r, "GET", "k", 40, &refused), GQL_REDIS_DOWN);
  cr_assert_lt(test_now_ms() - t0, 5);
  /* A stopped server accepts TCP but never answers the handshake: no
   * attempt may count as connected while it is stopped. */
  test_run_until(&f.loop, &nf, 600);
  gql_redis_stats st;
  gql_redis_stats_get(f.r, &st);
  cr_assert_eq(st.connects, 1);
  cr_assert_geq(st.failures, 1);
  cr_assert_eq(st.inflight, 0);
  kill(f.srv.pid, SIGCONT);
  wait_ready(&f, 3000);
  answer ok = {0};
  cr_assert_eq(send2(f.r, "PING", NULL, 0, &ok), GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &ok.done, 1000));
  cr_assert_eq(ok.st, GQL_REDIS_OK);
  teardown_fixture(&f);
}

/* ------------------------------------------------------------ restarts */

Test(redis, reconnects_with_growing_jittered_backoff_after_a_restart) {
  fixture f;
  setup_fixture(&f);
  gql_redis_options o = {.backoff_min_ms = 10, .backoff_max_ms = 160};
  open_client(&f, &o);
  wait_ready(&f, 2000);
  answer inflight = {0};
  const char *argv[3] = {"DEBUG", "SLEEP", "0.3"};
  size_t lens[3] = {5, 5, 3};
  cr_assert_eq(
      gql_redis_command(f.r, 3, argv, lens, 5000, on_answer, &inflight),
      GQL_REDIS_OK);
  bool nf = false;
  test_run_until(&f.loop, &nf, 50);
  test_redis_stop(&f.srv); /* killed with a command in flight */
  cr_assert(test_run_until(&f.loop, &inflight.done, 2000));
  cr_assert_eq(inflight.st, GQL_REDIS_DOWN);
  /* Down: every attempt is refused; delays double from 10 to the 160 cap,
   * each between half and all of its step. */
  int nseen = 0;
  uint32_t last_attempt = 0;
  uint64_t end = test_now_ms() + 1500;
  while (test_now_ms() < end && nseen < 16) {
    test_run_until(&f.loop, &nf, 2);
    gql_redis_stats st;
    gql_redis_stats_get(f.r, &st);
    if (st.attempt != last_attempt) {
      last_attempt = st.attempt;
      nseen++;
      uint32_t step = 10u << (st.attempt - 1 < 4 ? st.attempt - 1 : 4);
      cr_assert_geq(st.next_delay_ms, step / 2, "attempt %u: %u ms", st.attempt,
                    st.next_delay_ms);
      cr_assert_leq(st.next_delay_ms, step, "attempt %u: %u ms", st.attempt,
                    st.next_delay_ms);
    }
  }
  cr_assert_geq(nseen, 5, "only %d attempts in 1.5 s", nseen);
  answer refused = {0};
  cr_assert_eq(send2(f.r, "PING", NULL, 0, &refused), GQL_REDIS_DOWN);
  test_redis_start(&f.srv); /* same port */
  wait_ready(&f, 2000);
  gql_redis_stats st;
  gql_redis_stats_get(f.r, &st);
  cr_assert_eq(st.connects, 2);
  cr_assert_eq(st.attempt, 0, "a success resets the backoff");
  answer ok = {0};
  cr_assert_eq(send2(f.r, "PING", NULL, 0, &ok), GQL_REDIS_OK);
  cr_assert(test_run_until(&f.loop, &ok.done, 1000));
  cr_assert_str_eq(ok.text, "PONG");
  teardown_fixture(&f);
}

Test(redis, a_host_name_is_resolved_off_the_loop) {
  fixture f;
  setup_fixture(&f);
  snprintf(f.url, sizeof f.url, "redis://localhost:%d", f.srv.port);
  open_client(&f, NULL);
  wait_ready(&f, 3000);
  teardown_fixture(&f);
}

/* --------------------------------------------------------------- close */

Test(redis, close_answers_what_is_in_flight_and_frees_everything) {
  fixture f;
  setup_fixture(&f);
  open_client(&f, NULL);
  wait_ready(&f, 2000);
  const char *argv[3] = {"DEBUG", "SLEEP", "0.2"};
  size_t lens[3] = {5, 5, 3};
  answer a = {0}, b = {0};
  cr_assert_eq(gql_redis_command(f.r, 3, argv, lens, 5000, on_answer, &a),
               GQL_REDIS_OK);
  cr_assert_eq(send2(f.r, "PING", NULL, 5000, &b), GQL_REDIS_OK);
  gql_redis_close(f.r, on_closed, &f.closed);
  cr_assert(a.done && b.done, "close answers at once");
  cr_assert_eq(a.st, GQL_REDIS_CLOSED);
  cr_assert_eq(b.st, GQL_REDIS_CLOSED);
  cr_assert(test_run_until(&f.loop, &f.closed, 2000));
  f.r = NULL;
  teardown_fixture(&f);
}

Test(redis, close_while_never_connected_is_clean) {
  fixture f;
  memset(&f, 0, sizeof f);
  uv_loop_init(&f.loop);
  snprintf(f.url, sizeof f.url, "redis://127.0.0.1:%d", test_free_port());
  open_client(&f, NULL);
  bool nf = false;
  test_run_until(&f.loop, &nf, 100);
  cr_assert_neq(gql_redis_get_state(f.r), GQL_REDIS_STATE_READY);
  teardown_fixture(&f);
}
