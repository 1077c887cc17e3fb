#include "core.h"

#include <stdio.h>

/* Blocks are chained newest first. The first block is kept by reset so a
 * reused arena costs no allocator call in the steady state. */
typedef struct block {
  struct block *prev;
  size_t size; /* bytes of data[] */
  size_t used;
  _Alignas(16) char data[];
} block;

struct gql_arena {
  gql_allocator alc;
  block *head;
  size_t reserved;
  size_t used;
  size_t limit;
  block *inline_block; /* made with the arena (gql_arena_new_sized), or NULL */
  size_t self_size;    /* bytes of the arena's own allocation */
};

enum {
  FIRST_BLOCK = 4096 - sizeof(block),
  MAX_BLOCK_STEP = 1 << 20,
  RETAIN_MAX = 1 << 20, /* bytes a reset arena may keep */
};

static block *block_new(gql_arena *a, size_t size) {
  assert(size % 8 == 0); /* see gql_arena_alloc */
  if (a->limit && a->reserved + size > a->limit)
    return NULL;
  block *b = a->alc.malloc(a->alc.ctx, sizeof(block) + size);
  if (!b)
    return NULL;
  b->prev = a->head;
  b->size = size;
  b->used = 0;
  a->head = b;
  a->reserved += size;
  return b;
}

gql_arena *gql_arena_new(const gql_allocator *alc) {
  alc = gql_alc_or_default(alc);
  gql_arena *a = alc->malloc(alc->ctx, sizeof *a);
  if (!a)
    return NULL;
  *a = (gql_arena){.alc = *alc, .self_size = sizeof *a};
  return a;
}

gql_arena *gql_arena_new_sized(const gql_allocator *alc, size_t first) {
  alc = gql_alc_or_default(alc);
  if (first > MAX_BLOCK_STEP)
    first = MAX_BLOCK_STEP;
  first = (first + 15) & ~(size_t)15;
  size_t head = (sizeof(gql_arena) + 15) & ~(size_t)15;
  size_t total = head + sizeof(block) + first;
  char *mem = alc->malloc(alc->ctx, total);
  if (!mem)
    return NULL;
  gql_arena *a = (gql_arena *)mem;
  block *b = (block *)(mem + head);
  *b = (block){.size = first};
  *a = (gql_arena){.alc = *alc,
                   .head = b,
                   .reserved = first,
                   .inline_block = b,
                   .self_size = total};
  return a;
}

/* Frees the blocks above `stop` (the inline block stays: it goes with the
 * arena). */
static void free_blocks(gql_arena *a, block *stop) {
  while (a->head != stop && a->head != a->inline_block) {
    block *prev = a->head->prev;
    a->reserved -= a->head->size;
    a->alc.free(a->alc.ctx, a->head, sizeof(block) + a->head->size);
    a->head = prev;
  }
}

void gql_arena_free(gql_arena *a) {
  if (!a)
    return;
  free_blocks(a, NULL);
  gql_allocator alc = a->alc;
  alc.free(alc.ctx, a, a->self_size);
}

/* The slow part of reset: the last use spread over several blocks, or its
 * one block is larger than may be kept, or the arena has an inline block
 * under later ones. */
static __attribute__((noinline)) void reset_blocks(gql_arena *a) {
  if (a->inline_block) { /* keeps its own block only */
    free_blocks(a, NULL);
    a->head->used = 0;
    return;
  }
  size_t total = a->reserved;
  free_blocks(a, NULL);
  size_t keep = total <= RETAIN_MAX ? total : FIRST_BLOCK;
  if (block_new(a, keep) == NULL)
    return; /* the next allocation will try again */
}

/* Keeps one block for the next use. When the last use spread over several
 * blocks, they are replaced by one block as large as all of them (up to
 * RETAIN_MAX), so a reused arena serving requests of a steady size reaches
 * zero allocator calls per request. A server resets once per request, and
 * then the arena has one block (an inline block is never larger than
 * RETAIN_MAX): two stores. */
void gql_arena_reset(gql_arena *a) {
  block *b = a->head;
  if (!b)
    return;
  a->used = 0;
  if (GQL_LIKELY(!b->prev && b->size <= RETAIN_MAX)) {
    b->used = 0;
    return;
  }
  reset_blocks(a);
}

/* The slow part of gql_arena_alloc: a new block of at least `size` bytes,
 * twice the last one up to MAX_BLOCK_STEP. Out of line so that the fast
 * path saves no register. */
static __attribute__((noinline)) void *alloc_block(gql_arena *a, size_t size) {
  if (size > SIZE_MAX / 2)
    return NULL;
  size = (size + 7) & ~(size_t)7;
  block *b = a->head;
  size_t want = b ? b->size * 2 : FIRST_BLOCK;
  if (want > MAX_BLOCK_STEP)
    want = MAX_BLOCK_STEP;
  if (want < size)
    want = size;
  b = block_new(a, want);
  if (!b)
    return NULL;
  b->used = size;
  a->used += size;
  return b->data;
}

/* Every block's size and use are multiples of 8, so a block has room for
 * `size` bytes exactly when it has room for them rounded up to 8: the test
 * takes the size as given, and a size near SIZE_MAX cannot wrap to a small
 * one. */
void *gql_arena_alloc(gql_arena *a, size_t size) {
  block *b = a->head;
  if (GQL_UNLIKELY(!b || b->size - b->used < size))
    return alloc_block(a, size);
  size = (size + 7) & ~(size_t)7;
  void *p = b->data + b->used;
  b->used += size;
  a->used += size;
  return p;
}

size_t gql_arena_used(const gql_arena *a) {
  return a->used;
}
size_t gql_arena_reserved(const gql_arena *a) {
  return a->reserved;
}
void gql_arena_set_limit(gql_arena *a, size_t max_bytes) {
  a->limit = max_bytes;
}

char *gql_arena_strndup(gql_arena *a, const char *s, size_t len) {
  char *p = gql_arena_alloc(a, len + 1);
  if (!p)
    return NULL;
  if (len)
    memcpy(p, s, len);
  p[len] = 0;
  return p;
}

char *gql_arena_vsprintf(gql_arena *a, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0)
    return NULL;
  char *p = gql_arena_alloc(a, (size_t)n + 1);
  if (p)
    vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

char *gql_arena_sprintf(gql_arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = gql_arena_vsprintf(a, fmt, ap);
  va_end(ap);
  return p;
}

void *gql_arena_grow(gql_arena *a, void *old, size_t old_cap, size_t new_cap,
                     size_t elem) {
  if (new_cap && elem > SIZE_MAX / new_cap)
    return NULL;
  void *p = gql_arena_alloc(a, new_cap * elem);
  if (p && old && old_cap)
    memcpy(p, old, old_cap * elem);
  return p;
}

bool gql_array_grow(gql_arena *a, void *items_p, uint32_t *cap, uint32_t need,
                    size_t elem, uint32_t first) {
  assert(first > 0);
  uint64_t c = *cap ? (uint64_t)*cap * 2 : first;
  while (c < need)
    c *= 2;
  if (c > UINT32_MAX)
    c = UINT32_MAX; /* still >= need */
  void *old;        /* the array pointer, whatever its element type */
  memcpy(&old, items_p, sizeof old);
  void *p = gql_arena_grow(a, old, *cap, c, elem);
  if (!p)
    return false;
  memcpy(items_p, &p, sizeof p);
  *cap = (uint32_t)c;
  return true;
}

/* An allocator over an arena, for growable buffers whose bytes should die
 * with the request: free does nothing, and realloc of the arena's last
 * allocation grows it in place when its block has room. */
static void *arena_alc_malloc(void *ctx, size_t size) {
  return gql_arena_alloc(ctx, size);
}

static void *arena_alc_realloc(void *ctx, void *p, size_t old_size,
                               size_t new_size) {
  gql_arena *a = ctx;
  block *b = a->head;
  size_t old8 = (old_size + 7) & ~(size_t)7;
  size_t new8 = (new_size + 7) & ~(size_t)7;
  if (b && p && (char *)p + old8 == b->data + b->used && new8 >= old8 &&
      b->size - b->used >= new8 - old8) {
    b->used += new8 - old8;
    a->used += new8 - old8;
    return p;
  }
  void *q = gql_arena_alloc(a, new_size);
  if (q && p)
    memcpy(q, p, old_size < new_size ? old_size : new_size);
  return q;
}

static void arena_alc_free(void *ctx, void *p, size_t size) {
  (void)ctx;
  (void)p;
  (void)size;
}

gql_allocator gql_arena_allocator(gql_arena *arena) {
  return (gql_allocator){arena_alc_malloc, arena_alc_realloc, arena_alc_free,
                         arena};
}
