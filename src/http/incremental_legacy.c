/* graphql-js 17's incremental payloads to Apollo's deferSpec=20220824 (see
 * incremental_legacy.h). */
#include "incremental_legacy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest JSON nesting read, and longest path (the walk recurses once a
 * component). */
#define MAX_NESTING 4096
#define MAX_PATH 1024

typedef struct gql_http_legacy_entry {
  struct gql_http_legacy_entry *next;
  uint64_t count; /* a stream's items so far (its next item's index) */
  bool stream;    /* the value at its path was a list */
  size_t id_len, path_len, label_len; /* label: raw JSON string, or none */
  char bytes[];                       /* id, path (canonical JSON), label */
} entry;

/* A path component: a string (raw bytes between its quotes) or an index. */
typedef struct comp {
  const char *s;
  size_t n;
  uint64_t index;
  bool is_index;
} comp;

/* A `pending` entry of the payload at hand. */
typedef struct pend {
  const char *id;
  size_t id_len;
  const char *label; /* raw JSON string or NULL */
  size_t label_len;
  size_t comp0, ncomp;   /* in work->comps */
  size_t text, text_len; /* canonical path, in work->text */
  bool resolved;         /* where its path points was found */
  entry *e;              /* its table entry */
} pend;

/* An `incremental` entry of the payload at hand. */
typedef struct inc {
  const char *id;
  size_t id_len;
  const char *value, *errors, *extensions; /* raw JSON spans or NULL */
  size_t value_len, errors_len, extensions_len;
  size_t sub0, nsub; /* subPath, in work->comps */
  bool items;
  uint64_t start; /* items: the first one's index */
  entry *e;
} inc;

/* A `completed` entry. */
typedef struct done {
  const char *id, *errors;
  size_t id_len, errors_len;
  entry *e;
} done;

typedef struct gql_http_legacy_work {
  pend *pends;
  size_t npends, cap_pends;
  inc *incs;
  size_t nincs, cap_incs;
  done *dones;
  size_t ndones, cap_dones;
  comp *comps;
  size_t ncomps, cap_comps;
  char *text;
  size_t ntext, cap_text;
  size_t *order; /* pends sorted by path */
  size_t cap_order;
  bool failed; /* out of memory */
} work;

#define GROW(w, arr, n, cap)                                                   \
  ((n) < (cap) || grow((void **)&(arr), &(cap), sizeof *(arr), (n) + 1)        \
       ? true                                                                  \
       : ((w)->failed = true, false))

static bool grow(void **arr, size_t *cap, size_t size, size_t need) {
  size_t c = *cap ? *cap : 8;
  while (c < need)
    c *= 2;
  void *p = realloc(*arr, c * size);
  if (!p)
    return false;
  *arr = p;
  *cap = c;
  return true;
}

/* ------------------------------------------------------------ JSON */

static const char *ws(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

static int hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

/* After a string starting at p ('"'), or NULL. */
static const char *skip_string(const char *p, const char *e) {
  for (p++; p < e; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '"')
      return p + 1;
    if (c < 0x20)
      return NULL;
    if (c == '\\') {
      if (++p >= e)
        return NULL;
      if (*p == 'u') {
        if (e - p < 5 || !hex(p[1]) || !hex(p[2]) || !hex(p[3]) || !hex(p[4]))
          return NULL;
        p += 4;
      } else if (!strchr("\"\\/bfnrt", *p) || !*p) {
        return NULL;
      }
    }
  }
  return NULL;
}

static const char *skip_digits(const char *p, const char *e) {
  const char *s = p;
  while (p < e && *p >= '0' && *p <= '9')
    p++;
  return p > s ? p : NULL;
}

static const char *skip_number(const char *p, const char *e) {
  if (p < e && *p == '-')
    p++;
  if (p < e && *p == '0')
    p++;
  else if (!(p = skip_digits(p, e)))
    return NULL;
  if (p < e && *p == '.' && !(p = skip_digits(p + 1, e)))
    return NULL;
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < e && (*p == '+' || *p == '-'))
      p++;
    if (!(p = skip_digits(p, e)))
      return NULL;
  }
  return p;
}

static const char *skip_scalar(const char *p, const char *e) {
  if (*p == '"')
    return skip_string(p, e);
  if (*p == '-' || (*p >= '0' && *p <= '9'))
    return skip_number(p, e);
  static const char *const lits[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(lits[i]);
    if ((size_t)(e - p) >= n && memcmp(p, lits[i], n) == 0)
      return p + n;
  }
  return NULL;
}

/* After the value starting at p (no leading space), or NULL: iterative,
 * nesting up to MAX_NESTING. */
static const char *skip_value(const char *p, const char *e) {
  unsigned char objs[MAX_NESTING / 8];
  size_t depth = 0;
  for (;;) {
    /* a value */
    if (p >= e)
      return NULL;
    if (*p == '{' || *p == '[') {
      bool obj = *p == '{';
      if (depth == MAX_NESTING)
        return NULL;
      objs[depth / 8] = (unsigned char)((objs[depth / 8] & ~(1u << depth % 8)) |
                                        (unsigned)obj << depth % 8);
      depth++;
      p = ws(p + 1, e);
      if (p < e && *p == (obj ? '}' : ']')) {
        p++;
        depth--;
      } else {
        if (obj) {
          if (p >= e || *p != '"' || !(p = skip_string(p, e)))
            return NULL;
          p = ws(p, e);
          if (p >= e || *p != ':')
            return NULL;
          p = ws(p + 1, e);
        }
        continue;
      }
    } else if (!(p = skip_scalar(p, e))) {
      return NULL;
    }
    /* after a value: close containers, or the next member */
    for (;;) {
      if (!depth)
        return p;
      bool obj = objs[(depth - 1) / 8] >> (depth - 1) % 8 & 1;
      p = ws(p, e);
      if (p >= e)
        return NULL;
      if (*p == (obj ? '}' : ']')) {
        p++;
        depth--;
        continue;
      }
      if (*p != ',')
        return NULL;
      p = ws(p + 1, e);
      if (obj) {
        if (p >= e || *p != '"' || !(p = skip_string(p, e)))
          return NULL;
        p = ws(p, e);
        if (p >= e || *p != ':')
          return NULL;
        p = ws(p + 1, e);
      }
      break;
    }
  }
}

/* Iteration over an object's members or an array's items. */
typedef struct iter {
  const char *p, *e;
  bool obj, started;
} iter;

static bool iter_begin(iter *it, const char *p, const char *e, bool obj) {
  p = ws(p, e);
  if (p >= e || *p != (obj ? '{' : '['))
    return false;
  *it = (iter){.p = p + 1, .e = e, .obj = obj};
  return true;
}

/* 1: a member (key: raw bytes between its quotes) or item, 0: the end
 * (it->p after it), -1: not JSON. */
static int iter_next(iter *it, const char **key, size_t *key_len,
                     const char **v, size_t *vlen) {
  const char *p = ws(it->p, it->e), *e = it->e;
  if (p < e && *p == (it->obj ? '}' : ']')) {
    it->p = p + 1;
    return 0;
  }
  if (it->started) {
    if (p >= e || *p != ',')
      return -1;
    p = ws(p + 1, e);
  }
  it->started = true;
  if (it->obj) {
    const char *k = p;
    if (p >= e || *p != '"' || !(p = skip_string(p, e)))
      return -1;
    *key = k + 1;
    *key_len = (size_t)(p - k - 2);
    p = ws(p, e);
    if (p >= e || *p != ':')
      return -1;
    p = ws(p + 1, e);
  }
  const char *end = skip_value(p, e);
  if (!end)
    return -1;
  *v = p;
  *vlen = (size_t)(end - p);
  it->p = end;
  return 1;
}

static bool key_is(const char *k, size_t n, const char *lit) {
  return strlen(lit) == n && memcmp(k, lit, n) == 0;
}

/* A path component (a string, or an integer index up to 2^53). */
static bool parse_comp(const char *v, size_t n, comp *c) {
  if (n >= 2 && v[0] == '"') {
    *c = (comp){.s = v + 1, .n = n - 2};
    return true;
  }
  if (!n || n > 16)
    return false;
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i] < '0' || v[i] > '9' || (i == 0 && v[0] == '0' && n > 1))
      return false;
    x = x * 10 + (uint64_t)(v[i] - '0');
  }
  *c = (comp){.s = v, .n = n, .index = x, .is_index = true};
  return true;
}

/* The components of a path array into w->comps; false if not a path. */
static bool parse_path(work *w, const char *v, size_t n, size_t *first,
                       size_t *count) {
  iter it;
  const char *k, *x;
  size_t kl, xl;
  int r;
  *first = w->ncomps;
  *count = 0;
  if (!iter_begin(&it, v, v + n, false))
    return false;
  while ((r = iter_next(&it, &k, &kl, &x, &xl)) == 1) {
    if (!GROW(w, w->comps, w->ncomps, w->cap_comps))
      return false;
    if (!parse_comp(x, xl, &w->comps[w->ncomps]) || ++*count > MAX_PATH)
      return false;
    w->ncomps++;
  }
  return r == 0;
}

/* ------------------------------------------------------------ output */

static void put(gql_http_legacy *l, const char *s, size_t n) {
  if (l->out_failed || !n)
    return;
  if (l->out_len + n > l->out_cap) {
    size_t c = l->out_cap ? l->out_cap : 256;
    while (c < l->out_len + n)
      c *= 2;
    char *p = realloc(l->out, c);
    if (!p) {
      l->out_failed = true;
      return;
    }
    l->out = p;
    l->out_cap = c;
  }
  memcpy(l->out + l->out_len, s, n);
  l->out_len += n;
}

static void puts_(gql_http_legacy *l, const char *s) {
  put(l, s, strlen(s));
}

static void put_comp(gql_http_legacy *l, const comp *c) {
  if (c->is_index) {
    put(l, c->s, c->n);
    return;
  }
  put(l, "\"", 1);
  put(l, c->s, c->n);
  put(l, "\"", 1);
}

static void put_index(gql_http_legacy *l, uint64_t i) {
  char b[24];
  int n = snprintf(b, sizeof b, "%llu", (unsigned long long)i);
  put(l, b, (size_t)n);
}

/* A path: the entry's (canonical, "[...]"), then `extra` components, then
 * an index if `index` is set. */
static void put_path(gql_http_legacy *l, const entry *e, const comp *extra,
                     size_t nextra, const uint64_t *index) {
  const char *p = e->bytes + e->id_len;
  bool empty = e->path_len == 2;
  put(l, p, e->path_len - 1);
  for (size_t i = 0; i < nextra; i++) {
    if (!empty || i)
      put(l, ",", 1);
    put_comp(l, &extra[i]);
  }
  if (index) {
    if (!empty || nextra)
      put(l, ",", 1);
    put_index(l, *index);
  }
  put(l, "]", 1);
}

/* ------------------------------------------------------------ the table */

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return h;
}

static entry **slot(gql_http_legacy *l, const char *id, size_t n) {
  if (!l->nbuckets)
    return NULL;
  entry **s = &l->buckets[hash(id, n) & (l->nbuckets - 1)];
  while (*s && !((*s)->id_len == n && memcmp((*s)->bytes, id, n) == 0))
    s = &(*s)->next;
  return s;
}

static entry *find(gql_http_legacy *l, const char *id, size_t n) {
  entry **s = slot(l, id, n);
  return s ? *s : NULL;
}

static size_t max_table(const gql_http_legacy *l) {
  return l->max_table ? l->max_table : GQL_HTTP_LEGACY_MAX_TABLE;
}

static gql_http_legacy_status rehash(gql_http_legacy *l) {
  size_t n = l->nbuckets ? l->nbuckets * 2 : 16;
  if (l->table_bytes + n * sizeof(entry *) > max_table(l))
    return GQL_HTTP_LEGACY_TABLE_FULL;
  entry **b = calloc(n, sizeof *b);
  if (!b)
    return GQL_HTTP_LEGACY_ENOMEM;
  for (size_t i = 0; i < l->nbuckets; i++)
    for (entry *e = l->buckets[i], *next; e; e = next) {
      next = e->next;
      entry **s = &b[hash(e->bytes, e->id_len) & (n - 1)];
      e->next = *s;
      *s = e;
    }
  l->table_bytes += (n - l->nbuckets) * sizeof(entry *);
  free(l->buckets);
  l->buckets = b;
  l->nbuckets = n;
  return GQL_HTTP_LEGACY_OK;
}

static gql_http_legacy_status add(gql_http_legacy *l, const pend *p,
                                  const char *text, entry **out) {
  if (l->count >= l->nbuckets) {
    gql_http_legacy_status st = rehash(l);
    if (st)
      return st;
  }
  entry **s = slot(l, p->id, p->id_len);
  if (*s) /* announced twice */
    return GQL_HTTP_LEGACY_BAD_PAYLOAD;
  size_t size = sizeof(entry) + p->id_len + p->text_len + p->label_len;
  if (l->table_bytes + size > max_table(l))
    return GQL_HTTP_LEGACY_TABLE_FULL;
  entry *e = malloc(size);
  if (!e)
    return GQL_HTTP_LEGACY_ENOMEM;
  *e = (entry){
      .id_len = p->id_len, .path_len = p->text_len, .label_len = p->label_len};
  memcpy(e->bytes, p->id, p->id_len);
  memcpy(e->bytes + p->id_len, text + p->text, p->text_len);
  if (p->label_len)
    memcpy(e->bytes + p->id_len + p->text_len, p->label, p->label_len);
  *s = e;
  l->count++;
  l->table_bytes += size;
  *out = e;
  return GQL_HTTP_LEGACY_OK;
}

static void drop(gql_http_legacy *l, const char *id, size_t n) {
  entry **s = slot(l, id, n);
  if (!s || !*s)
    return;
  entry *e = *s;
  *s = e->next;
  l->count--;
  l->table_bytes -= sizeof(entry) + e->id_len + e->path_len + e->label_len;
  free(e);
}

void gql_http_legacy_free(gql_http_legacy *l) {
  for (size_t i = 0; i < l->nbuckets; i++)
    for (entry *e = l->buckets[i], *next; e; e = next) {
      next = e->next;
      free(e);
    }
  free(l->buckets);
  free(l->out);
  work *w = l->work;
  if (w) {
    free(w->pends);
    free(w->incs);
    free(w->dones);
    free(w->comps);
    free(w->text);
    free(w->order);
    free(w);
  }
  *l = (gql_http_legacy){0};
}

/* ------------------------------------------------ where pending points */

/* Component order: indices before strings, indices by value, strings by
 * bytes; a prefix before what extends it. */
static int comp_cmp(const comp *a, const comp *b) {
  if (a->is_index != b->is_index)
    return a->is_index ? -1 : 1;
  if (a->is_index)
    return a->index < b->index ? -1 : a->index > b->index;
  size_t n = a->n < b->n ? a->n : b->n;
  int c = memcmp(a->s, b->s, n);
  return c ? c : (a->n > b->n) - (a->n < b->n);
}

static int pend_cmp(const work *w, size_t x, size_t y) {
  const pend *a = &w->pends[x], *b = &w->pends[y];
  size_t n = a->ncomp < b->ncomp ? a->ncomp : b->ncomp;
  for (size_t i = 0; i < n; i++) {
    int c = comp_cmp(&w->comps[a->comp0 + i], &w->comps[b->comp0 + i]);
    if (c)
      return c;
  }
  return (a->ncomp > b->ncomp) - (a->ncomp < b->ncomp);
}

/* Heapsort of w->order by path (qsort has no context argument). */
static void sift(const work *w, size_t *o, size_t i, size_t n) {
  for (;;) {
    size_t m = i, l = 2 * i + 1, r = l + 1;
    if (l < n && pend_cmp(w, o[m], o[l]) < 0)
      m = l;
    if (r < n && pend_cmp(w, o[m], o[r]) < 0)
      m = r;
    if (m == i)
      return;
    size_t t = o[i];
    o[i] = o[m];
    o[m] = t;
    i = m;
  }
}

static void sort_pends(work *w) {
  size_t n = w->npends, *o = w->order;
  for (size_t i = 0; i < n; i++)
    o[i] = i;
  for (size_t i = n / 2; i-- > 0;)
    sift(w, o, i, n);
  for (size_t i = n; i-- > 1;) {
    size_t t = o[0];
    o[0] = o[i];
    o[i] = t;
    sift(w, o, 0, i);
  }
}

static const comp *comp_at(const work *w, size_t k, size_t depth) {
  const pend *p = &w->pends[w->order[k]];
  return depth < p->ncomp ? &w->comps[p->comp0 + depth] : NULL;
}

/* The sub-range of order[lo, hi) (all longer than depth, sorted) whose
 * component at depth equals c. */
static void range_of(const work *w, size_t lo, size_t hi, size_t depth,
                     const comp *c, size_t *a, size_t *b) {
  size_t l = lo, h = hi;
  while (l < h) {
    size_t m = l + (h - l) / 2;
    if (comp_cmp(comp_at(w, m, depth), c) < 0)
      l = m + 1;
    else
      h = m;
  }
  *a = l;
  h = hi;
  while (l < h) {
    size_t m = l + (h - l) / 2;
    if (comp_cmp(comp_at(w, m, depth), c) <= 0)
      l = m + 1;
    else
      h = m;
  }
  *b = l;
}

/* Counts an array's items (the value is valid JSON). */
static uint64_t items_of(const char *v, size_t n) {
  iter it;
  const char *k, *x;
  size_t kl, xl;
  uint64_t count = 0;
  if (!iter_begin(&it, v, v + n, false))
    return 0;
  while (iter_next(&it, &k, &kl, &x, &xl) == 1)
    count++;
  return count;
}

/* The pending paths order[lo, hi), which share their first `depth`
 * components with the place of value v, found in it: a list there makes
 * a stream (its length the next item's index), anything else a fragment.
 * `items`: v is a stream's items from index `offset` on (the list's
 * items, not the value at its place). */
static void walk(work *w, const char *v, size_t n, size_t lo, size_t hi,
                 size_t depth, bool items, uint64_t offset) {
  while (lo < hi && !comp_at(w, lo, depth)) {
    pend *p = &w->pends[w->order[lo++]];
    if (!p->resolved && !items) {
      p->resolved = true;
      p->e->stream = n && *v == '[';
      p->e->count = p->e->stream ? items_of(v, n) : 0;
    }
  }
  if (lo == hi || !n || (*v != '{' && *v != '['))
    return;
  iter it;
  const char *k = NULL, *x;
  size_t kl = 0, xl;
  uint64_t i = offset;
  iter_begin(&it, v, v + n, *v == '{');
  while (iter_next(&it, &k, &kl, &x, &xl) == 1) {
    comp c = it.obj ? (comp){.s = k, .n = kl}
                    : (comp){.index = i++, .is_index = true};
    size_t a, b;
    range_of(w, lo, hi, depth, &c, &a, &b);
    if (a < b)
      walk(w, x, xl, a, b, depth + 1, false, 0);
  }
}

/* Walks value v at the place `base` (+ `extra`) for the pending paths
 * under it (items: v is a stream's items from index offset on). */
static void walk_at(work *w, const comp *base, size_t nbase, const comp *extra,
                    size_t nextra, const char *v, size_t n, bool items,
                    uint64_t offset) {
  size_t lo = 0, hi = w->npends;
  for (size_t d = 0; d < nbase + nextra && lo < hi; d++) {
    const comp *c = d < nbase ? &base[d] : &extra[d - nbase];
    while (lo < hi && !comp_at(w, lo, d))
      lo++; /* shorter: not under it */
    range_of(w, lo, hi, d, c, &lo, &hi);
  }
  if (lo < hi)
    walk(w, v, n, lo, hi, nbase + nextra, items, offset);
}

/* ------------------------------------------------------------ reading */

static gql_http_legacy_status read_pending(work *w, const char *v, size_t n) {
  iter it, eit;
  const char *k, *x, *ek, *ev;
  size_t kl, xl, ekl, evl;
  int r, er;
  if (!iter_begin(&it, v, v + n, false))
    return GQL_HTTP_LEGACY_BAD_PAYLOAD;
  while ((r = iter_next(&it, &k, &kl, &x, &xl)) == 1) {
    if (!GROW(w, w->pends, w->npends, w->cap_pends))
      return GQL_HTTP_LEGACY_ENOMEM;
    pend *p = &w->pends[w->npends];
    *p = (pend){0};
    bool has_path = false;
    if (!iter_begin(&eit, x, x + xl, true))
      return GQL_HTTP_LEGACY_BAD_PAYLOAD;
    while ((er = iter_next(&eit, &ek, &ekl, &ev, &evl)) == 1) {
      if (key_is(ek, ekl, "id") && *ev == '"') {
        p->id = ev + 1;
        p->id_len = evl - 2;
      } else if (key_is(ek, ekl, "label") && *ev == '"') {
        p->label = ev;
        p->label_len = evl;
      } else if (key_is(ek, ekl, "path")) {
        if (!parse_path(w, ev, evl, &p->comp0, &p->ncomp))
          return w->failed ? GQL_HTTP_LEGACY_ENOMEM
                           : GQL_HTTP_LEGACY_BAD_PAYLOAD;
        has_path = true;
      }
    }
    if (er < 0 || !p->id || !has_path)
      return GQL_HTTP_LEGACY_BAD_PAYLOAD;
    /* the canonical path text: "[" components "]" */
    size_t need = w->ntext + 2;
    for (size_t i = 0; i < p->ncomp; i++)
      need += w->comps[p->comp0 + i].n + 3;
    if (need > w->cap_text && !grow((void **)&w->text, &w->cap_text, 1, need))
      return GQL_HTTP_LEGACY_ENOMEM;
    p->text = w->ntext;
    w->text[w->ntext++] = '[';
    for (size_t i = 0; i < p->ncomp; i++) {
      const comp *c = &w->comps[p->comp0 + i];
      if (i)
        w->text[w->ntext++] = ',';
      if (!c->is_index)
        w->text[w->ntext++] = '"';
      memcpy(w->text + w->ntext, c->s, c->n);
      w->ntext += c->n;
      if (!c->is_index)
        w->text[w->ntext++] = '"';
    }
    w->text[w->ntext++] = ']';
    p->text_len = w->ntext - p->text;
    w->npends++;
  }
  return r == 0 ? GQL_HTTP_LEGACY_OK : GQL_HTTP_LEGACY_BAD_PAYLOAD;
}

static gql_http_legacy_status read_incremental(work *w, const char *v,
                                               size_t n) {
  iter it, eit;
  const char *k, *x, *ek, *ev;
  size_t kl, xl, ekl, evl;
  int r, er;
  if (!iter_begin(&it, v, v + n, false))
    return GQL_HTTP_LEGACY_BAD_PAYLOAD;
  while ((r = iter_next(&it, &k, &kl, &x, &xl)) == 1) {
    if (!GROW(w, w->incs, w->nincs, w->cap_incs))
      return GQL_HTTP_LEGACY_ENOMEM;
    inc *e = &w->incs[w->nincs];
    *e = (inc){.sub0 = w->ncomps};
    if (!iter_begin(&eit, x, x + xl, true))
      return GQL_HTTP_LEGACY_BAD_PAYLOAD;
    while ((er = iter_next(&eit, &ek, &ekl, &ev, &evl)) == 1) {
      if (key_is(ek, ekl, "id") && *ev == '"') {
        e->id = ev + 1;
        e->id_len = evl - 2;
      } else if (key_is(ek, ekl, "data") || key_is(ek, ekl, "items")) {
        if (e->value)
          return GQL_HTTP_LEGACY_BAD_PAYLOAD;
        e->items = ek[0] == 'i';
        e->value = ev;
        e->value_len = evl;
      } else if (key_is(ek, ekl, "subPath")) {
        if (!parse_path(w, ev, evl, &e->sub0, &e->nsub))
          return w->failed ? GQL_HTTP_LEGACY_ENOMEM
                           : GQL_HTTP_LEGACY_BAD_PAYLOAD;
      } else if (key_is(ek, ekl, "errors")) {
        e->errors = ev;
        e->errors_len = evl;
      } else if (key_is(ek, ekl, "extensions")) {
        e->extensions = ev;
        e->extensions_len = evl;
      }
    }
    if (er < 0 || !e->id || !e->value || (e->items && *e->value != '['))
      return GQL_HTTP_LEGACY_BAD_PAYLOAD;
    w->nincs++;
  }
  return r == 0 ? GQL_HTTP_LEGACY_OK : GQL_HTTP_LEGACY_BAD_PAYLOAD;
}

static gql_http_legacy_status read_completed(work *w, const char *v, size_t n) {
  iter it, eit;
  const char *k, *x, *ek, *ev;
  size_t kl, xl, ekl, evl;
  int r, er;
  if (!iter_begin(&it, v, v + n, false))
    return GQL_HTTP_LEGACY_BAD_PAYLOAD;
  while ((r = iter_next(&it, &k, &kl, &x, &xl)) == 1) {
    if (!GROW(w, w->dones, w->ndones, w->cap_dones))
      return GQL_HTTP_LEGACY_ENOMEM;
    done *d = &w->dones[w->ndones];
    *d = (done){0};
    if (!iter_begin(&eit, x, x + xl, true))
      return GQL_HTTP_LEGACY_BAD_PAYLOAD;
    while ((er = iter_next(&eit, &ek, &ekl, &ev, &evl)) == 1) {
      if (key_is(ek, ekl, "id") && *ev == '"') {
        d->id = ev + 1;
        d->id_len = evl - 2;
      } else if (key_is(ek, ekl, "errors")) {
        d->errors = ev;
        d->errors_len = evl;
      }
    }
    if (er < 0 || !d->id)
      return GQL_HTTP_LEGACY_BAD_PAYLOAD;
    w->ndones++;
  }
  return r == 0 ? GQL_HTTP_LEGACY_OK : GQL_HTTP_LEGACY_BAD_PAYLOAD;
}

/* The components of a table entry's path, into w->comps. */
static bool entry_comps(work *w, const entry *e, size_t *first, size_t *count) {
  return parse_path(w, e->bytes + e->id_len, e->path_len, first, count);
}

/* Components from index i (NULL when there are none at all). */
static const comp *comps_from(const work *w, size_t i) {
  return w->comps ? w->comps + i : NULL;
}

/* ------------------------------------------------------------ writing */

static void put_tail(gql_http_legacy *l, const char *errors, size_t elen,
                     const entry *e, const char *ext, size_t xlen) {
  if (errors) {
    puts_(l, ",\"errors\":");
    put(l, errors, elen);
  }
  if (e->label_len) {
    puts_(l, ",\"label\":");
    put(l, e->bytes + e->id_len + e->path_len, e->label_len);
  }
  if (ext) {
    puts_(l, ",\"extensions\":");
    put(l, ext, xlen);
  }
  put(l, "}", 1);
}

/* The legacy "incremental" list (false: none to write). */
static bool put_incremental(gql_http_legacy *l, work *w) {
  size_t n = 0;
  for (size_t i = 0; i < w->nincs; i++) {
    inc *e = &w->incs[i];
    puts_(l, n++ ? ",{" : "\"incremental\":[{");
    puts_(l, e->items ? "\"items\":" : "\"data\":");
    put(l, e->value, e->value_len);
    puts_(l, ",\"path\":");
    put_path(l, e->e, comps_from(w, e->sub0), e->nsub,
             e->items ? &e->start : NULL);
    put_tail(l, e->errors, e->errors_len, e->e, e->extensions,
             e->extensions_len);
  }
  for (size_t i = 0; i < w->ndones; i++) {
    done *d = &w->dones[i];
    if (!d->errors)
      continue;
    puts_(l, n++ ? ",{" : "\"incremental\":[{");
    puts_(l, d->e->stream ? "\"items\":null" : "\"data\":null");
    puts_(l, ",\"path\":");
    put_path(l, d->e, NULL, 0, NULL);
    put_tail(l, d->errors, d->errors_len, d->e, NULL, 0);
  }
  if (n)
    put(l, "]", 1);
  return n > 0;
}

/* ------------------------------------------------------------ converting */

typedef struct member {
  const char *k, *v;
  size_t kl, vl;
} member;

static gql_http_legacy_status convert(gql_http_legacy *l, work *w,
                                      const char *json, size_t len) {
  iter it;
  const char *k, *v;
  size_t kl, vl;
  int r;
  const char *data = NULL;
  size_t data_len = 0;
  gql_http_legacy_status st = GQL_HTTP_LEGACY_OK;
  if (!iter_begin(&it, json, json + len, true))
    return GQL_HTTP_LEGACY_BAD_PAYLOAD;
  /* 1. read: the pending, incremental and completed entries */
  while ((r = iter_next(&it, &k, &kl, &v, &vl)) == 1 && !st) {
    if (key_is(k, kl, "pending"))
      st = read_pending(w, v, vl);
    else if (key_is(k, kl, "incremental"))
      st = read_incremental(w, v, vl);
    else if (key_is(k, kl, "completed"))
      st = read_completed(w, v, vl);
    else if (key_is(k, kl, "data")) {
      data = v;
      data_len = vl;
    }
  }
  if (st)
    return st;
  if (r < 0 || ws(it.p, json + len) != json + len)
    return GQL_HTTP_LEGACY_BAD_PAYLOAD;
  /* 2. the new ids into the table */
  for (size_t i = 0; i < w->npends; i++)
    if ((st = add(l, &w->pends[i], w->text, &w->pends[i].e)))
      return st;
  /* 3. where the new pending paths point: in the data, or in an entry
   * delivered with them (for a stream: the list's length so far) */
  if (w->npends) {
    if (!grow((void **)&w->order, &w->cap_order, sizeof *w->order, w->npends))
      return GQL_HTTP_LEGACY_ENOMEM;
    sort_pends(w);
  }
  if (data && w->npends)
    walk_at(w, NULL, 0, NULL, 0, data, data_len, false, 0);
  /* the fragments' data first, then the streams' items in order (the
   * list a new stream's items extend may come in a later entry) */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < w->nincs; i++) {
      inc *e = &w->incs[i];
      if (!pass && !(e->e = find(l, e->id, e->id_len)))
        return GQL_HTTP_LEGACY_UNKNOWN_ID;
      if (e->items != (pass == 1))
        continue;
      size_t b0, nb;
      if (w->npends && !entry_comps(w, e->e, &b0, &nb))
        return w->failed ? GQL_HTTP_LEGACY_ENOMEM : GQL_HTTP_LEGACY_BAD_PAYLOAD;
      if (w->npends)
        walk_at(w, comps_from(w, b0), nb,
                e->items ? NULL : comps_from(w, e->sub0),
                e->items ? 0 : e->nsub, e->value, e->value_len, e->items,
                e->e->count);
      if (e->items) {
        e->start = e->e->count;
        e->e->stream = true;
        e->e->count += items_of(e->value, e->value_len);
      }
    }
  for (size_t i = 0; i < w->ndones; i++) {
    done *d = &w->dones[i];
    if (!(d->e = find(l, d->id, d->id_len)))
      return GQL_HTTP_LEGACY_UNKNOWN_ID;
  }
  /* 4. write: every member but pending, incremental and completed as it
   * was; the legacy incremental list where the first of those two was */
  bool listed = false;
  size_t n = 0;
  iter_begin(&it, json, json + len, true);
  put(l, "{", 1);
  while (iter_next(&it, &k, &kl, &v, &vl) == 1) {
    if (key_is(k, kl, "pending"))
      continue;
    if (key_is(k, kl, "incremental") || key_is(k, kl, "completed")) {
      if (listed)
        continue;
      listed = true;
      size_t at = l->out_len;
      if (n)
        put(l, ",", 1);
      if (put_incremental(l, w))
        n++;
      else if (!l->out_failed)
        l->out_len = at;
      continue;
    }
    if (n++)
      put(l, ",", 1);
    put(l, k - 1, (size_t)(v - (k - 1)));
    put(l, v, vl);
  }
  put(l, "}", 1);
  /* 5. the completed ids leave the table */
  for (size_t i = 0; i < w->ndones; i++)
    drop(l, w->dones[i].id, w->dones[i].id_len);
  return l->out_failed ? GQL_HTTP_LEGACY_ENOMEM : GQL_HTTP_LEGACY_OK;
}

const char *gql_http_legacy_message(gql_http_legacy_status st) {
  switch (st) {
  case GQL_HTTP_LEGACY_OK:
    break;
  case GQL_HTTP_LEGACY_ENOMEM:
    return "Out of memory while converting the incremental payloads to "
           "multipart/mixed;deferSpec=20220824; the rest of the response "
           "is left out.";
  case GQL_HTTP_LEGACY_TABLE_FULL:
    return "The response has more @defer / @stream results pending at once "
           "than gql keeps for multipart/mixed;deferSpec=20220824; the "
           "rest of the response is left out. Ask with 'Accept: "
           "multipart/mixed;incrementalSpec=v0.2' for graphql-js 17's "
           "format, which needs no such table.";
  case GQL_HTTP_LEGACY_BAD_PAYLOAD:
    return "An incremental payload was not of graphql-js 17's shape, so it "
           "could not be converted to multipart/mixed;deferSpec=20220824; "
           "the rest of the response is left out.";
  case GQL_HTTP_LEGACY_UNKNOWN_ID:
    return "An incremental payload named an id that no earlier payload "
           "announced, so it could not be converted to "
           "multipart/mixed;deferSpec=20220824; the rest of the response is "
           "left out.";
  }
  return "";
}

/* The payload that stands for one that could not be converted (static
 * text only: it must come out of memory too). */
static void put_failure(gql_http_legacy *l, bool first, bool has_next) {
  l->out_failed = false;
  l->out_len = 0;
  if (first)
    puts_(l, "{\"data\":null,\"errors\":[{\"message\":\"");
  else
    puts_(l, "{\"hasNext\":");
  if (!first) {
    puts_(l, has_next ? "true" : "false");
    puts_(l, ",\"errors\":[{\"message\":\"");
  }
  puts_(l, gql_http_legacy_message(l->failed));
  puts_(l, "\"}]");
  if (first)
    puts_(l, has_next ? ",\"hasNext\":true" : ",\"hasNext\":false");
  puts_(l, "}");
}

gql_http_legacy_status gql_http_legacy_convert(gql_http_legacy *l,
                                               const char *json, size_t len,
                                               bool has_next, const char **out,
                                               size_t *out_len) {
  static const char next_true[] = "{\"hasNext\":true}",
                    next_false[] = "{\"hasNext\":false}";
#define OOM_ "{\"data\":null,\"errors\":[{\"message\":\"Out of memory.\"}],"
  static const char oom_true[] = OOM_ "\"hasNext\":true}",
                    oom_false[] = OOM_ "\"hasNext\":false}";
#undef OOM_
  bool first = l->payloads++ == 0;
  l->out_len = 0;
  l->out_failed = false;
  if (!l->failed) {
    gql_http_legacy_status st = GQL_HTTP_LEGACY_ENOMEM;
    if (l->work || (l->work = calloc(1, sizeof *l->work))) {
      work *w = l->work;
      w->npends = w->nincs = w->ndones = w->ncomps = w->ntext = 0;
      w->failed = false;
      st = convert(l, w, json ? json : "", json ? len : 0);
    }
    if (!st) {
      *out = l->out;
      *out_len = l->out_len;
      return st;
    }
    l->failed = st;
    put_failure(l, first, has_next);
    if (!l->out_failed) {
      *out = l->out;
      *out_len = l->out_len;
    } else if (first) { /* no memory for the error payload either */
      *out = has_next ? oom_true : oom_false;
      *out_len = strlen(*out);
    } else {
      *out = has_next ? next_true : next_false;
      *out_len = strlen(*out);
    }
    return st;
  }
  *out = has_next ? next_true : next_false; /* after a failure: bare */
  *out_len = strlen(*out);
  return GQL_HTTP_LEGACY_OK;
}
