/* The C floor of the deferred operations: for each operation with a plain
 * floor (bench/exec/ops.c), the payloads of the same operation with a
 * @defer around its deepest selection, byte for byte as gql writes them
 * (bench_defer dump compares them every run):
 *
 *   {"data":D,"pending":[{"id":"0","path":P},...],"hasNext":true}
 *   {"hasNext":false,"incremental":[{"id":"0","data":F},...],
 *    "completed":[{"id":"0"},...]}
 *
 * where D is the plain data with {} at each deferred object, P its path
 * and F the fields the fragment defers. The floor knows each operation's
 * shape, so it records nothing per fragment: the ids count up and the
 * paths come from its loop indices, written again for the pending list.
 * What is left is what writing these bytes takes: the data walked twice
 * (the initial payload, then the deferred fields), every entry's id, path
 * and punctuation written, each payload handed on. (It does not cache a
 * payload across requests, which a server could do only for constant
 * data.) */
#include "floor.h"

#include "../exec/ops_data.h"

/* The entries' pieces: each entry is one capacity check, then its
 * literals copied and its numbers (ids, path indices) written with the
 * writer's inline digits (gql_json_count_digits, gql_json_utoa_back: what
 * gql's executor writes them with), so that the floor's extra work is
 * no more than a server's. The data inside the payloads is
 * written as bench/exec's plain floor writes it. */
#define PUT_LIT(p, lit)                                                        \
  (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static inline char *put_uint(char *p, uint32_t u) {
  size_t n = gql_json_count_digits(u);
  gql_json_utoa_back(p + n, u);
  return p + n;
}

/* Room for `n` bytes at the end of b; NULL when an allocation failed
 * (b->failed is set, and the caller's check sees it). */
static inline char *fb_room(floor_buf *b, size_t n) {
  if (b->cap - b->len < n && !gql_buf_reserve(b, n))
    return NULL;
  return b->data + b->len;
}

static inline void fb_end(floor_buf *b, const char *p) {
  b->len = (size_t)(p - b->data);
}

/* [,]{"id":"N","data": (an incremental entry's head, before its data) */
static inline void fb_incremental(floor_buf *b, uint32_t id) {
  char *p = fb_room(b, 32);
  if (!p)
    return;
  if (id)
    *p++ = ',';
  p = PUT_LIT(p, "{\"id\":\"");
  p = put_uint(p, id);
  fb_end(b, PUT_LIT(p, "\",\"data\":"));
}

/* ],"completed":[{"id":"0"},...,{"id":"N-1"}]} (after the incremental
 * entries) */
static void fb_completed(floor_buf *b, uint32_t n) {
  FB_LIT(b, "],\"completed\":[");
  for (uint32_t id = 0; id < n; id++) {
    char *p = fb_room(b, 24);
    if (!p)
      return;
    if (id)
      *p++ = ',';
    p = PUT_LIT(p, "{\"id\":\"");
    p = put_uint(p, id);
    fb_end(b, PUT_LIT(p, "\"}"));
  }
  FB_LIT(b, "]}");
}

/* n empty objects, comma-separated: what a list of deferred objects
 * leaves in the initial payload. */
static void fb_empties(floor_buf *b, int n) {
  char *p = fb_room(b, 3 * (size_t)n);
  if (!p)
    return;
  for (int i = 0; i < n; i++) {
    if (i)
      *p++ = ',';
    p = PUT_LIT(p, "{}");
  }
  fb_end(b, p);
}

static void plain_minimal(floor_buf *b, const void *unused) {
  b->len = 0;
  FB_LIT(b, "{\"data\":{\"hello\":\"world\"}}");
}

/* { ... @defer { hello } }: nothing in it depends on the data (one
 * fragment, id 0; the plain floor too is one literal), so the payloads are
 * literals, as a hand-written server would write them. */
static void defer_minimal(floor_buf *b, const void *unused, floor_payload_fn on,
                          void *ud) {
  b->len = 0;
  FB_LIT(b, "{\"data\":{},\"pending\":[{\"id\":\"0\",\"path\":[]}],"
            "\"hasNext\":true}");
  on(ud, b->data, b->len, false);
  b->len = 0;
  FB_LIT(b, "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":"
            "{\"hello\":\"world\"}}],\"completed\":[{\"id\":\"0\"}]}");
  on(ud, b->data, b->len, false);
}

/* { items { ... @defer { id name email active score role } } } */
static void defer_flat(floor_buf *b, const void *dp, floor_payload_fn on,
                       void *ud) {
  const data *d = dp;
  b->len = 0;
  FB_LIT(b, "{\"data\":{\"items\":[");
  fb_empties(b, 1000);
  FB_LIT(b, "]},\"pending\":[");
  for (uint32_t i = 0; i < 1000; i++) {
    char *p = fb_room(b, 64);
    if (!p)
      break;
    if (i)
      *p++ = ',';
    p = PUT_LIT(p, "{\"id\":\"");
    p = put_uint(p, i);
    p = PUT_LIT(p, "\",\"path\":[\"items\",");
    p = put_uint(p, i);
    fb_end(b, PUT_LIT(p, "]}"));
  }
  FB_LIT(b, "],\"hasNext\":true}");
  on(ud, b->data, b->len, false);

  b->len = 0;
  FB_LIT(b, "{\"hasNext\":false,\"incremental\":[");
  for (uint32_t i = 0; i < 1000; i++) {
    const item *it = &d->items[i];
    fb_incremental(b, i);
    FB_LIT(b, "{\"id\":");
    fb_int(b, it->id);
    FB_LIT(b, ",\"name\":");
    fb_str(b, it->name);
    FB_LIT(b, ",\"email\":");
    fb_str(b, it->email);
    if (it->active)
      FB_LIT(b, ",\"active\":true,\"score\":");
    else
      FB_LIT(b, ",\"active\":false,\"score\":");
    fb_double(b, it->score);
    FB_LIT(b, ",\"role\":");
    fb_str(b, bench_roles[it->role]);
    FB_LIT(b, "}}");
  }
  fb_completed(b, 1000);
  on(ud, b->data, b->len, false);
}

/* { groups { id name children { id name leaves { ... @defer { id value }
 * } } } } */
static void defer_nested(floor_buf *b, const void *dp, floor_payload_fn on,
                         void *ud) {
  const data *d = dp;
  b->len = 0;
  FB_LIT(b, "{\"data\":{\"groups\":[");
  for (int g = 0; g < 10; g++) {
    const group *gr = &d->groups[g];
    if (g)
      FB_LIT(b, ",");
    FB_LIT(b, "{\"id\":");
    fb_int(b, gr->id);
    FB_LIT(b, ",\"name\":");
    fb_str(b, gr->name);
    FB_LIT(b, ",\"children\":[");
    for (int c = 0; c < 10; c++) {
      const child *ch = &gr->children[c];
      if (c)
        FB_LIT(b, ",");
      FB_LIT(b, "{\"id\":");
      fb_int(b, ch->id);
      FB_LIT(b, ",\"name\":");
      fb_str(b, ch->name);
      FB_LIT(b, ",\"leaves\":[");
      fb_empties(b, 10);
      FB_LIT(b, "]}");
    }
    FB_LIT(b, "]}");
  }
  FB_LIT(b, "]},\"pending\":[");
  uint32_t id = 0;
  for (uint32_t g = 0; g < 10; g++)
    for (uint32_t c = 0; c < 10; c++)
      for (uint32_t l = 0; l < 10; l++, id++) {
        char *p = fb_room(b, 96);
        if (!p)
          break;
        if (id)
          *p++ = ',';
        p = PUT_LIT(p, "{\"id\":\"");
        p = put_uint(p, id);
        p = PUT_LIT(p, "\",\"path\":[\"groups\",");
        p = put_uint(p, g);
        p = PUT_LIT(p, ",\"children\",");
        p = put_uint(p, c);
        p = PUT_LIT(p, ",\"leaves\",");
        p = put_uint(p, l);
        fb_end(b, PUT_LIT(p, "]}"));
      }
  FB_LIT(b, "],\"hasNext\":true}");
  on(ud, b->data, b->len, false);

  b->len = 0;
  FB_LIT(b, "{\"hasNext\":false,\"incremental\":[");
  id = 0;
  for (int g = 0; g < 10; g++)
    for (int c = 0; c < 10; c++) {
      const child *ch = &d->groups[g].children[c];
      for (int l = 0; l < 10; l++, id++) {
        fb_incremental(b, id);
        FB_LIT(b, "{\"id\":");
        fb_int(b, ch->leaves[l].id);
        FB_LIT(b, ",\"value\":");
        fb_double(b, ch->leaves[l].value);
        FB_LIT(b, "}}");
      }
    }
  fb_completed(b, id);
  on(ud, b->data, b->len, false);
}

/* { hero { id name friends { name appearsIn friends { ... @defer { name }
 * } } } } */
static void defer_star_wars(floor_buf *b, const void *unused,
                            floor_payload_fn on, void *ud) {
  const sw_char *hero = &bench_sw[6]; /* R2-D2: no episode given */
  b->len = 0;
  FB_LIT(b, "{\"data\":{\"hero\":{\"id\":");
  fb_str(b, hero->id);
  FB_LIT(b, ",\"name\":");
  fb_str(b, hero->name);
  FB_LIT(b, ",\"friends\":[");
  for (int i = 0; i < hero->nfriends; i++) {
    const sw_char *f = &bench_sw[hero->friends[i]];
    if (i)
      FB_LIT(b, ",");
    FB_LIT(b, "{\"name\":");
    fb_str(b, f->name);
    FB_LIT(b, ",\"appearsIn\":[");
    for (int e = 0; e < f->nepisodes; e++) {
      if (e)
        FB_LIT(b, ",");
      fb_str(b, bench_sw_episodes[f->nepisodes == 1 ? 0 : e]);
    }
    FB_LIT(b, "],\"friends\":[");
    fb_empties(b, f->nfriends);
    FB_LIT(b, "]}");
  }
  FB_LIT(b, "]}},\"pending\":[");
  uint32_t id = 0;
  for (uint32_t i = 0; i < (uint32_t)hero->nfriends; i++) {
    const sw_char *f = &bench_sw[hero->friends[i]];
    for (uint32_t j = 0; j < (uint32_t)f->nfriends; j++, id++) {
      char *p = fb_room(b, 80);
      if (!p)
        break;
      if (id)
        *p++ = ',';
      p = PUT_LIT(p, "{\"id\":\"");
      p = put_uint(p, id);
      p = PUT_LIT(p, "\",\"path\":[\"hero\",\"friends\",");
      p = put_uint(p, i);
      p = PUT_LIT(p, ",\"friends\",");
      p = put_uint(p, j);
      fb_end(b, PUT_LIT(p, "]}"));
    }
  }
  FB_LIT(b, "],\"hasNext\":true}");
  on(ud, b->data, b->len, false);

  b->len = 0;
  FB_LIT(b, "{\"hasNext\":false,\"incremental\":[");
  id = 0;
  for (int i = 0; i < hero->nfriends; i++) {
    const sw_char *f = &bench_sw[hero->friends[i]];
    for (int j = 0; j < f->nfriends; j++, id++) {
      fb_incremental(b, id);
      FB_LIT(b, "{\"name\":");
      fb_str(b, bench_sw[f->friends[j]].name);
      FB_LIT(b, "}}");
    }
  }
  fb_completed(b, id);
  on(ud, b->data, b->len, false);
}

/* The plain floor handed on as gql_execute hands its response: through
 * the callback, from another function (so that the two floors' calls are
 * alike). */
void bench_defer_floor_plain(const defer_floor *f, floor_buf *b,
                             const void *data, floor_payload_fn on, void *ud) {
  f->plain(b, data);
  on(ud, b->data, b->len, false);
}

defer_floor bench_defer_floor(const bench_ops *ops, int op) {
  switch (op) {
  case OP_MINIMAL:
    /* bench/exec has no floor column for minimal */
    return (defer_floor){plain_minimal, defer_minimal};
  case OP_FLAT_LIST:
    return (defer_floor){bench_ops_get(ops, op)->floor, defer_flat};
  case OP_NESTED_LISTS:
    return (defer_floor){bench_ops_get(ops, op)->floor, defer_nested};
  case OP_STAR_WARS:
    return (defer_floor){bench_ops_get(ops, op)->floor, defer_star_wars};
  default:
    return (defer_floor){0};
  }
}
