#include "core.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

uint64_t gql_hash(const void *p, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(p, n, seed);
}

/* One random seed per process, so that colliding names cannot be prepared
 * in advance against a running server. */
uint64_t gql_hash_seed(void) {
  static _Atomic uint64_t seed;
  uint64_t s = atomic_load_explicit(&seed, memory_order_relaxed);
  if (s)
    return s;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &s, sizeof s) != (ssize_t)sizeof s)
      s = 0;
    close(fd);
  }
  if (!s) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s = XXH3_64bits(&ts, sizeof ts) ^ (uint64_t)(uintptr_t)&seed;
  }
  s |= 1;
  uint64_t expected = 0;
  if (!atomic_compare_exchange_strong(&seed, &expected, s))
    s = expected;
  return s;
}

struct gql_strmap_slot {
  const char *ptr;
  uint32_t len;
  uint32_t value;
  uint64_t hash; /* 0 marks an empty slot */
};

void gql_strmap_init(gql_strmap *m, const gql_allocator *alc) {
  *m = (gql_strmap){.alc = gql_alc_or_default(alc), .seed = gql_hash_seed()};
}

void gql_strmap_free(gql_strmap *m) {
  gql_alc_free(m->alc, m->slots, (size_t)m->cap * sizeof *m->slots);
  m->slots = NULL;
  m->cap = m->count = 0;
}

static uint64_t key_hash(const gql_strmap *m, gql_str key) {
  uint64_t h = gql_hash(key.ptr, key.len, m->seed);
  return h ? h : 1;
}

static struct gql_strmap_slot *find(const gql_strmap *m, gql_str key,
                                    uint64_t h) {
  uint32_t mask = m->cap - 1;
  for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
    struct gql_strmap_slot *s = &m->slots[i];
    if (!s->hash)
      return s;
    if (s->hash == h && s->len == key.len &&
        memcmp(s->ptr, key.ptr, key.len) == 0)
      return s;
  }
}

static int grow(gql_strmap *m) {
  uint32_t cap = m->cap ? m->cap * 2 : 16;
  struct gql_strmap_slot *slots =
      gql_alc_malloc(m->alc, (size_t)cap * sizeof *slots);
  if (!slots)
    return GQL_ENOMEM;
  memset(slots, 0, (size_t)cap * sizeof *slots);
  gql_strmap old = *m;
  m->slots = slots;
  m->cap = cap;
  for (uint32_t i = 0; i < old.cap; i++) {
    struct gql_strmap_slot *s = &old.slots[i];
    if (s->hash)
      *find(m, gql_str_from(s->ptr, s->len), s->hash) = *s;
  }
  gql_alc_free(m->alc, old.slots, (size_t)old.cap * sizeof *old.slots);
  return 0;
}

int gql_strmap_put(gql_strmap *m, gql_str key, uint32_t value) {
  if (key.len > UINT32_MAX)
    return GQL_ELIMIT;
  if ((m->count + 1) * 4 > m->cap * 3) {
    int rc = grow(m);
    if (rc)
      return rc;
  }
  uint64_t h = key_hash(m, key);
  struct gql_strmap_slot *s = find(m, key, h);
  if (s->hash)
    return 0;
  *s = (struct gql_strmap_slot){key.ptr, (uint32_t)key.len, value, h};
  m->count++;
  return 1;
}

bool gql_strmap_get(const gql_strmap *m, gql_str key, uint32_t *value) {
  if (!m->cap)
    return false;
  struct gql_strmap_slot *s = find(m, key, key_hash(m, key));
  if (!s->hash)
    return false;
  *value = s->value;
  return true;
}
