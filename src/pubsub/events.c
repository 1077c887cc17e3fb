/* The Redis event bus (see events.h). A message is looked up by channel
 * (one hash per message, not per listener), skipped unparsed when nobody
 * listens, parsed once into a scratch arena reset per message, and handed
 * to the matching listeners in the order they came. */
#include "events.h"

#include <stdlib.h>

#define MAX_ARGS_DEPTH 64

typedef struct chan {
  gql_events *ev;
  gql_events_listener *head, *tail;
  uint32_t listeners;
  bool subscribed; /* on the Redis client: while it has listeners */
  size_t len;      /* of name: prefix + field */
  char name[];
} chan;

struct gql_events_listener {
  gql_events_listener *prev, *next;
  chan *ch;
  gql_events_cb cb;
  void *ud;
  const gql_json_value *args; /* in the same allocation, or NULL */
  bool dead;                  /* unlistened during a delivery */
  gql_events_listener *grave; /* the dead, freed after the delivery */
};

struct gql_events {
  gql_redis *redis;
  gql_events_options o;
  char prefix[257];
  size_t prefix_len;
  gql_strmap map; /* channel name -> index in chans */
  chan **chans;
  uint32_t nchans, cap;
  gql_arena *arena;
  unsigned delivering;
  gql_events_listener *grave;
  gql_events_stats st;
};

static void on_message(void *ud, gql_str channel, gql_str message);

int gql_events_new(gql_redis *redis, const gql_events_options *o,
                   gql_events **out) {
  *out = NULL;
  const char *prefix = o && o->prefix ? o->prefix : "gql:";
  size_t pl = strlen(prefix);
  if (pl > 256)
    return GQL_EINVAL;
  gql_events *ev = calloc(1, sizeof *ev);
  if (!ev)
    return GQL_ENOMEM;
  if (o)
    ev->o = *o;
  if (!ev->o.max_event)
    ev->o.max_event = (size_t)1 << 20;
  if (!ev->o.max_depth)
    ev->o.max_depth = 64;
  memcpy(ev->prefix, prefix, pl + 1);
  ev->prefix_len = pl;
  ev->redis = redis;
  gql_strmap_init(&ev->map, NULL);
  ev->arena = gql_arena_new(NULL);
  if (!ev->arena) {
    free(ev);
    return GQL_ENOMEM;
  }
  /* A message parses into at most ~40 bytes of arena per byte. */
  gql_arena_set_limit(ev->arena, 64 * ev->o.max_event + (1 << 16));
  if (redis)
    gql_redis_on_message(redis, on_message, ev);
  *out = ev;
  return 0;
}

static void free_listeners(chan *c) {
  while (c->head) {
    gql_events_listener *l = c->head;
    c->head = l->next;
    free(l);
  }
}

void gql_events_free(gql_events *ev) {
  if (!ev)
    return;
  if (ev->redis)
    gql_redis_on_message(ev->redis, NULL, NULL);
  /* (a buried listener is still linked in its channel) */
  for (uint32_t i = 0; i < ev->nchans; i++) {
    free_listeners(ev->chans[i]);
    free(ev->chans[i]);
  }
  free(ev->chans);
  gql_strmap_free(&ev->map);
  gql_arena_free(ev->arena);
  free(ev);
}

void gql_events_stats_get(const gql_events *ev, gql_events_stats *out) {
  *out = ev->st;
}

/* ------------------------------------------------------------ matching */

bool gql_events_match(const gql_json_value *args, const gql_json_value *event) {
  if (!args || args->kind != GQL_JSON_OBJECT)
    return true;
  bool obj = event && event->kind == GQL_JSON_OBJECT;
  for (size_t i = 0; i < args->object.count; i++) {
    const gql_json_member *m = &args->object.members[i];
    const gql_json_value *p = obj ? gql_json_get(event, m->key) : NULL;
    if (m->value.kind == GQL_JSON_NULL) {
      if (p && p->kind != GQL_JSON_NULL)
        return false;
    } else if (!p || !gql_json_same(&m->value, p)) {
      return false;
    }
  }
  return true;
}

/* ------------------------------------------------------------ arguments */

#define ALIGN(n) (((n) + 7) & ~(size_t)7)

/* Bytes a deep copy of v takes (0 when it nests too deep: SIZE_MAX). */
static size_t copy_size(const gql_json_value *v, int depth) {
  if (depth > MAX_ARGS_DEPTH)
    return SIZE_MAX;
  size_t n = 0, k;
  switch (v->kind) {
  case GQL_JSON_STRING:
    return ALIGN(v->string.len);
  case GQL_JSON_ARRAY:
    n = ALIGN(v->array.count * sizeof(gql_json_value));
    for (size_t i = 0; i < v->array.count; i++) {
      if ((k = copy_size(&v->array.items[i], depth + 1)) == SIZE_MAX)
        return SIZE_MAX;
      n += k;
    }
    return n;
  case GQL_JSON_OBJECT:
    n = ALIGN(v->object.count * sizeof(gql_json_member));
    for (size_t i = 0; i < v->object.count; i++) {
      const gql_json_member *m = &v->object.members[i];
      if ((k = copy_size(&m->value, depth + 1)) == SIZE_MAX)
        return SIZE_MAX;
      n += ALIGN(m->key.len) + k;
    }
    return n;
  default:
    return 0;
  }
}

static void *bump(char **p, size_t n) {
  void *r = *p;
  *p += ALIGN(n);
  return r;
}

static void copy_into(gql_json_value *dst, const gql_json_value *v, char **p) {
  *dst = *v;
  switch (v->kind) {
  case GQL_JSON_STRING:
    dst->string.ptr =
        memcpy(bump(p, v->string.len), v->string.ptr, v->string.len);
    dst->verbatim = false;
    break;
  case GQL_JSON_ARRAY:
    dst->array.items = bump(p, v->array.count * sizeof(gql_json_value));
    for (size_t i = 0; i < v->array.count; i++)
      copy_into(&dst->array.items[i], &v->array.items[i], p);
    break;
  case GQL_JSON_OBJECT:
    dst->object.members = bump(p, v->object.count * sizeof(gql_json_member));
    dst->object.index = NULL;
    for (size_t i = 0; i < v->object.count; i++) {
      const gql_json_member *m = &v->object.members[i];
      gql_json_member *d = &dst->object.members[i];
      d->key.ptr = memcpy(bump(p, m->key.len), m->key.ptr, m->key.len);
      d->key.len = m->key.len;
      copy_into(&d->value, &m->value, p);
    }
    break;
  default:
    break;
  }
}

/* ------------------------------------------------------------ listeners */

static chan *channel_for(gql_events *ev, gql_str field) {
  size_t n = ev->prefix_len + field.len;
  char stack[512];
  char *name = n <= sizeof stack ? stack : malloc(n);
  if (!name)
    return NULL;
  memcpy(name, ev->prefix, ev->prefix_len);
  memcpy(name + ev->prefix_len, field.ptr, field.len);
  uint32_t idx;
  chan *c = NULL;
  if (gql_strmap_get(&ev->map, (gql_str){name, n}, &idx)) {
    c = ev->chans[idx];
    goto done;
  }
  if (ev->nchans == ev->cap) {
    uint32_t cap = ev->cap ? ev->cap * 2 : 8;
    chan **cs = realloc(ev->chans, cap * sizeof *cs);
    if (!cs)
      goto done;
    ev->chans = cs;
    ev->cap = cap;
  }
  c = calloc(1, sizeof *c + n + 1);
  if (!c)
    goto done;
  c->ev = ev;
  c->len = n;
  memcpy(c->name, name, n);
  if (gql_strmap_put(&ev->map, (gql_str){c->name, n}, ev->nchans) < 0) {
    free(c);
    c = NULL;
    goto done;
  }
  ev->chans[ev->nchans++] = c;
done:
  if (name != stack)
    free(name);
  return c;
}

gql_events_listener *gql_events_listen(gql_events *ev, gql_str field,
                                       const gql_json_value *args,
                                       gql_events_cb cb, void *ud) {
  if (!field.len || field.len > 1024)
    return NULL;
  bool has_args = args && args->kind == GQL_JSON_OBJECT && args->object.count;
  size_t extra = 0;
  if (has_args) {
    extra = copy_size(args, 0);
    if (extra == SIZE_MAX)
      return NULL;
    extra += ALIGN(sizeof(gql_json_value));
  }
  gql_events_listener *l = malloc(ALIGN(sizeof *l) + extra);
  if (!l)
    return NULL;
  chan *c = channel_for(ev, field);
  /* The channel's first listener (again) subscribes it. */
  if (c && !c->subscribed && ev->redis &&
      gql_redis_subscribe(ev->redis, (gql_str){c->name, c->len}) < 0)
    c = NULL;
  if (!c) {
    free(l);
    return NULL;
  }
  c->subscribed = true;
  *l = (gql_events_listener){.ch = c, .cb = cb, .ud = ud};
  if (has_args) {
    char *p = (char *)l + ALIGN(sizeof *l);
    gql_json_value *a = bump(&p, sizeof *a);
    copy_into(a, args, &p);
    l->args = a;
  }
  l->prev = c->tail;
  if (c->tail)
    c->tail->next = l;
  else
    c->head = l;
  c->tail = l;
  c->listeners++;
  return l;
}

static void unlink_free(gql_events_listener *l) {
  chan *c = l->ch;
  if (l->prev)
    l->prev->next = l->next;
  else
    c->head = l->next;
  if (l->next)
    l->next->prev = l->prev;
  else
    c->tail = l->prev;
  free(l);
}

void gql_events_unlisten(gql_events_listener *l) {
  if (!l || l->dead)
    return;
  chan *c = l->ch;
  gql_events *ev = c->ev;
  /* The channel's last listener unsubscribes it: the worker no longer
   * receives (and skips) every message of a channel nobody here hears. */
  if (--c->listeners == 0 && c->subscribed) {
    c->subscribed = false;
    if (ev->redis)
      gql_redis_unsubscribe(ev->redis, (gql_str){c->name, c->len});
  }
  if (!ev->delivering) {
    unlink_free(l);
    return;
  }
  /* The delivery loop may hold it: unlinked once the loop is over. */
  l->dead = true;
  l->grave = ev->grave;
  ev->grave = l;
}

static void bury(gql_events *ev) {
  while (ev->grave) {
    gql_events_listener *l = ev->grave;
    ev->grave = l->grave;
    unlink_free(l);
  }
}

/* ------------------------------------------------------------ delivery */

/* Hands the message to c's listeners: its fate (*why: the parser's reason
 * when malformed). */
static gql_events_fate deliver(gql_events *ev, chan *c, gql_str message,
                               gql_json_error *why) {
  if (!c->listeners) {
    ev->st.unheard++;
    return GQL_EVENTS_UNHEARD;
  }
  if (message.len > ev->o.max_event) {
    ev->st.too_big++;
    return GQL_EVENTS_TOO_BIG;
  }
  gql_arena_reset(ev->arena);
  gql_json_options jo = {.max_depth = ev->o.max_depth,
                         .max_size = ev->o.max_event};
  gql_json_value *v;
  if (gql_json_parse(ev->arena, message.ptr, message.len, &jo, &v, why) != 0) {
    ev->st.malformed++;
    return GQL_EVENTS_MALFORMED;
  }
  /* Listeners added by a callback get the next event, not this one. */
  gql_events_listener *last = c->tail;
  ev->delivering++;
  for (gql_events_listener *l = c->head; l; l = l->next) {
    if (!l->dead && gql_events_match(l->args, v)) {
      ev->st.delivered++;
      l->cb(l->ud, v);
    }
    if (l == last)
      break;
  }
  if (--ev->delivering == 0)
    bury(ev);
  gql_arena_reset(ev->arena);
  return GQL_EVENTS_PARSED;
}

static void on_message(void *ud, gql_str channel, gql_str message) {
  gql_events *ev = ud;
  uint32_t idx;
  if (!gql_strmap_get(&ev->map, channel, &idx))
    return;
  ev->st.received++;
  chan *c = ev->chans[idx]; /* (chans may grow during the delivery) */
  /* (the parser words its reason only when asked) */
  gql_json_error err;
  gql_events_fate fate = deliver(ev, c, message, ev->o.note ? &err : NULL);
  if (ev->o.note)
    ev->o.note(ev->o.note_ud, (gql_str){c->name, c->len}, fate, message.len,
               fate == GQL_EVENTS_MALFORMED ? err.message : NULL);
}

void gql_events_inject(gql_events *ev, gql_str channel, gql_str message) {
  on_message(ev, channel, message);
}
