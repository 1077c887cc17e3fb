/* libFuzzer target: messages published to Redis, as the event bus gets
 * them (no Redis: injected on the channel). The input is the arguments of
 * a listener (JSON, up to the first NUL byte; not JSON: no arguments),
 * then messages separated by NUL bytes. A second listener without
 * arguments unlistens the first at a message starting with 'u'. Whatever
 * the input: a listener receives exactly the events its arguments match,
 * the one without arguments every parsed one, the bus's note tells each
 * message's fate as the stats count it (a malformed one with the parser's
 * reason), and nothing leaks. */
#include "pubsub/events.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

typedef struct counts {
  const gql_json_value *args;
  unsigned n;
  gql_events_listener *victim;
} counts;

typedef struct fates {
  unsigned n[4];
  size_t last_bytes;
} fates;

static void on_note(void *ud, gql_str channel, gql_events_fate fate,
                    size_t bytes, const char *why) {
  fates *f = ud;
  CHECK((unsigned)fate < 4);
  CHECK(channel.len == 5 && memcmp(channel.ptr, "gql:f", 5) == 0);
  CHECK((fate == GQL_EVENTS_MALFORMED) == (why != NULL));
  CHECK(!why || why[0]);
  f->n[fate]++;
  f->last_bytes = bytes;
}

static void on_event(void *ud, const gql_json_value *event) {
  counts *c = ud;
  CHECK(gql_events_match(c->args, event));
  c->n++;
  if (c->victim && event->kind == GQL_JSON_STRING && event->string.len &&
      event->string.ptr[0] == 'u') {
    gql_events_unlisten(c->victim);
    c->victim = NULL;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  const char *nul = memchr(s, 0, size);
  size_t alen = nul ? (size_t)(nul - s) : size;
  gql_arena *a = gql_arena_new(NULL);
  gql_arena_set_limit(a, (size_t)16 << 20);
  gql_json_value *args = NULL;
  if (gql_json_parse(a, s, alen, NULL, &args, NULL) != 0)
    args = NULL;
  gql_events *ev;
  fates f = {.last_bytes = 0};
  gql_events_options o = {
      .max_event = 4096, .max_depth = 16, .note = on_note, .note_ud = &f};
  CHECK(gql_events_new(NULL, &o, &ev) == 0);
  counts filtered = {.args = args}, all = {0};
  gql_events_listener *l =
      gql_events_listen(ev, GQL_STR("f"), args, on_event, &filtered);
  all.victim = l;
  CHECK(gql_events_listen(ev, GQL_STR("f"), NULL, on_event, &all));
  size_t start = nul ? alen + 1 : size;
  unsigned messages = 0;
  for (size_t i = start; i <= size && start <= size; i++) {
    if (i < size && data[i] != 0)
      continue;
    gql_events_inject(ev, GQL_STR("gql:f"), (gql_str){s + start, i - start});
    CHECK(f.last_bytes == i - start);
    messages++;
    start = i + 1;
  }
  gql_events_stats st;
  gql_events_stats_get(ev, &st);
  CHECK(st.received == messages);
  CHECK(all.n + st.malformed + st.too_big == messages);
  CHECK(filtered.n <= all.n);
  CHECK(f.n[GQL_EVENTS_PARSED] + f.n[GQL_EVENTS_UNHEARD] +
            f.n[GQL_EVENTS_MALFORMED] + f.n[GQL_EVENTS_TOO_BIG] ==
        messages);
  CHECK(f.n[GQL_EVENTS_PARSED] == all.n);
  CHECK(f.n[GQL_EVENTS_MALFORMED] == st.malformed);
  CHECK(f.n[GQL_EVENTS_TOO_BIG] == st.too_big);
  CHECK(f.n[GQL_EVENTS_UNHEARD] == st.unheard);
  gql_events_free(ev);
  gql_arena_free(a);
  return 0;
}
