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
 * That is the least any server can do to write these bytes: the data is
 * walked twice (the initial payload, then the deferred fields), every
 * entry's id, path and punctuation written. */
#include "floor.h"

#include "ops_data.h"

/* "id":"N" (N: the fragment's number) */
static inline void fb_id(floor_buf *b, uint32_t id) {
  FB_LIT(b, "{\"id\":\"");
  fb_int(b, id);
  FB_LIT(b, "\"");
}

/* ,"completed":[{"id":"0"},...,{"id":"N-1"}]} */
static void fb_completed(floor_buf *b, uint32_t n) {
  FB_LIT(b, "],\"completed\":[");
  for (uint32_t id = 0; id < n; id++) {
    if (id)
      FB_LIT(b, ",");
    fb_id(b, id);
    FB_LIT(b, "}");
  }
  FB_LIT(b, "]}");
}

static void plain_minimal(floor_buf *b, const void *unused) {
  b->len = 0;
  FB_LIT(b, "{\"data\":{\"hello\":\"world\"}}");
}

/* { ... @defer { hello } } */
static void defer_minimal(floor_buf *b, const void *unused, floor_payload_fn on,
                          void *ud) {
  b->len = 0;
  FB_LIT(b, "{\"data\":{},\"pending\":[");
  fb_id(b, 0);
  FB_LIT(b, ",\"path\":[]}],\"hasNext\":true}");
  on(ud, b->data, b->len, false);
  b->len = 0;
  FB_LIT(b, "{\"hasNext\":false,\"incremental\":[");
  fb_id(b, 0);
  FB_LIT(b, ",\"data\":{\"hello\":\"world\"}}");
  fb_completed(b, 1);
  on(ud, b->data, b->len, false);
}

/* { items { ... @defer { id name email active score role } } } */
static void defer_flat(floor_buf *b, const void *dp, floor_payload_fn on,
                       void *ud) {
  const data *d = dp;
  b->len = 0;
  FB_LIT(b, "{\"data\":{\"items\":[");
  for (int i = 0; i < 1000; i++) {
    if (i)
      FB_LIT(b, ",");
    FB_LIT(b, "{}");
  }
  FB_LIT(b, "]},\"pending\":[");
  for (uint32_t i = 0; i < 1000; i++) {
    if (i)
      FB_LIT(b, ",");
    fb_id(b, i);
    FB_LIT(b, ",\"path\":[\"items\",");
    fb_int(b, i);
    FB_LIT(b, "]}");
  }
  FB_LIT(b, "],\"hasNext\":true}");
  on(ud, b->data, b->len, false);

  b->len = 0;
  FB_LIT(b, "{\"hasNext\":false,\"incremental\":[");
  for (uint32_t i = 0; i < 1000; i++) {
    const item *it = &d->items[i];
    if (i)
      FB_LIT(b, ",");
    fb_id(b, i);
    FB_LIT(b, ",\"data\":{\"id\":");
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
      for (int l = 0; l < 10; l++) {
        if (l)
          FB_LIT(b, ",");
        FB_LIT(b, "{}");
      }
      FB_LIT(b, "]}");
    }
    FB_LIT(b, "]}");
  }
  FB_LIT(b, "]},\"pending\":[");
  uint32_t id = 0;
  for (int g = 0; g < 10; g++)
    for (int c = 0; c < 10; c++)
      for (int l = 0; l < 10; l++, id++) {
        if (id)
          FB_LIT(b, ",");
        fb_id(b, id);
        FB_LIT(b, ",\"path\":[\"groups\",");
        fb_int(b, g);
        FB_LIT(b, ",\"children\",");
        fb_int(b, c);
        FB_LIT(b, ",\"leaves\",");
        fb_int(b, l);
        FB_LIT(b, "]}");
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
        if (id)
          FB_LIT(b, ",");
        fb_id(b, id);
        FB_LIT(b, ",\"data\":{\"id\":");
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
    for (int j = 0; j < f->nfriends; j++) {
      if (j)
        FB_LIT(b, ",");
      FB_LIT(b, "{}");
    }
    FB_LIT(b, "]}");
  }
  FB_LIT(b, "]}},\"pending\":[");
  uint32_t id = 0;
  for (int i = 0; i < hero->nfriends; i++) {
    const sw_char *f = &bench_sw[hero->friends[i]];
    for (int j = 0; j < f->nfriends; j++, id++) {
      if (id)
        FB_LIT(b, ",");
      fb_id(b, id);
      FB_LIT(b, ",\"path\":[\"hero\",\"friends\",");
      fb_int(b, i);
      FB_LIT(b, ",\"friends\",");
      fb_int(b, j);
      FB_LIT(b, "]}");
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
      if (id)
        FB_LIT(b, ",");
      fb_id(b, id);
      FB_LIT(b, ",\"data\":{\"name\":");
      fb_str(b, bench_sw[f->friends[j]].name);
      FB_LIT(b, "}}");
    }
  }
  fb_completed(b, id);
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
