#include "core/core.h"

#include <criterion/criterion.h>
#include <stdlib.h>

/* A counting allocator and one that fails after N calls. */
typedef struct counting {
  size_t mallocs, frees, live_bytes;
  long fail_after; /* -1: never */
} counting;

static void *c_malloc(void *ctx, size_t size) {
  counting *c = ctx;
  if (c->fail_after == 0)
    return NULL;
  if (c->fail_after > 0)
    c->fail_after--;
  c->mallocs++;
  c->live_bytes += size;
  return malloc(size);
}
static void *c_realloc(void *ctx, void *p, size_t old_size, size_t new_size) {
  counting *c = ctx;
  if (c->fail_after == 0)
    return NULL;
  if (c->fail_after > 0)
    c->fail_after--;
  c->mallocs++;
  c->live_bytes += new_size - old_size;
  return realloc(p, new_size);
}
static void c_free(void *ctx, void *p, size_t size) {
  counting *c = ctx;
  c->frees++;
  c->live_bytes -= size;
  free(p);
}

Test(arena, allocations_are_aligned_and_distinct) {
  gql_arena *a = gql_arena_new(NULL);
  cr_assert_not_null(a);
  char *p = gql_arena_alloc(a, 3);
  char *q = gql_arena_alloc(a, 5);
  cr_assert_eq((uintptr_t)p % 8, 0);
  cr_assert_eq((uintptr_t)q % 8, 0);
  cr_assert(q >= p + 3);
  cr_assert_eq(gql_arena_used(a), 16);
  gql_arena_free(a);
}

Test(arena, large_allocations_get_their_own_block) {
  gql_arena *a = gql_arena_new(NULL);
  char *big = gql_arena_alloc(a, 5 << 20);
  cr_assert_not_null(big);
  memset(big, 1, 5 << 20);
  cr_assert_geq(gql_arena_reserved(a), (size_t)5 << 20);
  gql_arena_free(a);
}

Test(arena, free_returns_every_byte_to_the_allocator) {
  counting c = {.fail_after = -1};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_arena *a = gql_arena_new(&alc);
  for (int i = 0; i < 10000; i++)
    cr_assert_not_null(gql_arena_alloc(a, 100));
  cr_assert_gt(c.mallocs, 2);
  gql_arena_free(a);
  cr_assert_eq(c.mallocs, c.frees);
  cr_assert_eq(c.live_bytes, 0);
}

Test(arena, reset_keeps_first_block_so_reuse_does_not_allocate) {
  counting c = {.fail_after = -1};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_arena *a = gql_arena_new(&alc);
  gql_arena_alloc(a, 64);
  gql_arena_reset(a);
  size_t before = c.mallocs;
  for (int i = 0; i < 10; i++) {
    gql_arena_alloc(a, 64);
    gql_arena_reset(a);
  }
  cr_assert_eq(c.mallocs, before);
  cr_assert_eq(gql_arena_used(a), 0);
  gql_arena_free(a);
  cr_assert_eq(c.live_bytes, 0);
}

Test(arena, reset_merges_blocks_so_steady_reuse_does_not_allocate) {
  counting c = {.fail_after = -1};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_arena *a = gql_arena_new(&alc);
  for (int i = 0; i < 300; i++)
    gql_arena_alloc(a, 100);
  cr_assert_gt(c.mallocs, 2, "30 KB should take several blocks");
  gql_arena_reset(a);
  size_t before = c.mallocs;
  for (int round = 0; round < 5; round++) {
    for (int i = 0; i < 300; i++)
      cr_assert_not_null(gql_arena_alloc(a, 100));
    gql_arena_reset(a);
  }
  cr_assert_eq(c.mallocs, before);
  gql_arena_free(a);
  cr_assert_eq(c.live_bytes, 0);
}

Test(arena, reset_after_a_huge_request_gives_memory_back) {
  gql_arena *a = gql_arena_new(NULL);
  cr_assert_not_null(gql_arena_alloc(a, 8 << 20));
  gql_arena_reset(a);
  cr_assert_leq(gql_arena_reserved(a), (size_t)4096);
  gql_arena_free(a);
}

Test(arena, a_size_near_size_max_fails_instead_of_wrapping) {
  /* rounded up to 8, SIZE_MAX - 3 would wrap to 0: a fresh arena and one
   * with room must both refuse it */
  gql_arena *a = gql_arena_new(NULL);
  cr_assert_null(gql_arena_alloc(a, SIZE_MAX - 3));
  cr_assert_not_null(gql_arena_alloc(a, 8));
  cr_assert_null(gql_arena_alloc(a, SIZE_MAX - 3));
  cr_assert_null(gql_arena_alloc(a, SIZE_MAX));
  cr_assert_eq(gql_arena_used(a), 8);
  gql_arena_free(a);
}

Test(arena, sized_arena_reset_keeps_its_inline_block_only) {
  counting c = {.fail_after = -1};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_arena *a = gql_arena_new_sized(&alc, 256);
  cr_assert_not_null(a);
  cr_assert_eq(c.mallocs, 1);
  size_t inline_bytes = gql_arena_reserved(a);
  cr_assert_geq(inline_bytes, 256);
  for (int i = 0; i < 100; i++) /* past the inline block */
    cr_assert_not_null(gql_arena_alloc(a, 100));
  cr_assert_gt(c.mallocs, 1);
  gql_arena_reset(a);
  cr_assert_eq(c.frees, c.mallocs - 1, "every block but the inline one");
  cr_assert_eq(gql_arena_reserved(a), inline_bytes);
  cr_assert_eq(gql_arena_used(a), 0);
  size_t before = c.mallocs;
  for (int i = 0; i < 10; i++) { /* fits the inline block: no call */
    cr_assert_not_null(gql_arena_alloc(a, 200));
    gql_arena_reset(a);
  }
  cr_assert_eq(c.mallocs, before);
  gql_arena_free(a);
  cr_assert_eq(c.live_bytes, 0);
}

Test(arena, failing_allocator_gives_null_not_a_crash) {
  counting c = {.fail_after = 1};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_arena *a = gql_arena_new(&alc);
  cr_assert_not_null(a);
  cr_assert_null(gql_arena_alloc(a, 16));
  gql_arena_free(a);
  cr_assert_eq(c.live_bytes, 0);
}

Test(arena, limit_caps_reserved_bytes) {
  gql_arena *a = gql_arena_new(NULL);
  gql_arena_set_limit(a, 64 << 10);
  size_t total = 0;
  while (gql_arena_alloc(a, 1000))
    total += 1000;
  cr_assert_lt(total, (size_t)64 << 10);
  cr_assert_leq(gql_arena_reserved(a), (size_t)64 << 10);
  gql_arena_free(a);
}

Test(arena, sprintf_formats_into_the_arena) {
  gql_arena *a = gql_arena_new(NULL);
  char *s = gql_arena_sprintf(a, "Expected %s, found %d.", "Name", 42);
  cr_assert_str_eq(s, "Expected Name, found 42.");
  gql_arena_free(a);
}

Test(arena, buffers_on_the_arena_allocator_make_no_allocator_calls) {
  counting c = {.fail_after = -1};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_arena *a = gql_arena_new(&alc);
  gql_arena_alloc(a, 8); /* the first block */
  size_t before = c.mallocs;
  gql_allocator on_arena = gql_arena_allocator(a);
  gql_buf b;
  gql_buf_init(&b, &on_arena);
  for (int i = 0; i < 100; i++)
    gql_buf_puts(&b, "0123456789");
  cr_assert_eq(b.len, 1000);
  cr_assert_str_eq(gql_buf_cstr(&b) + 990, "0123456789");
  cr_assert_eq(c.mallocs, before, "the buffer grew inside the arena block");
  gql_buf_free(&b);
  gql_arena_free(a);
  cr_assert_eq(c.live_bytes, 0);
}

Test(arena, arena_realloc_of_an_older_allocation_copies) {
  gql_arena *a = gql_arena_new(NULL);
  gql_allocator on_arena = gql_arena_allocator(a);
  char *p = on_arena.malloc(on_arena.ctx, 4);
  memcpy(p, "abc", 4);
  gql_arena_alloc(a, 16); /* p is no longer the last allocation */
  char *q = on_arena.realloc(on_arena.ctx, p, 4, 64);
  cr_assert_neq(p, q);
  cr_assert_str_eq(q, "abc");
  gql_arena_free(a);
}

Test(arena, vector_push_keeps_every_item_and_doubles_its_room) {
  gql_arena *a = gql_arena_new(NULL);
  GQL_VECTOR(uint64_t) v = {0};
  for (uint64_t i = 0; i < 1000; i++)
    cr_assert(gql_vector_push(a, &v, i * 3));
  cr_assert_eq(v.count, 1000);
  cr_assert_eq(v.cap, 1024, "8, doubled up to the first power over 1000");
  for (uint32_t i = 0; i < v.count; i++)
    cr_assert_eq(v.items[i], (uint64_t)i * 3);
  gql_arena_free(a);
}

Test(arena, array_reserve_jumps_to_what_is_needed) {
  gql_arena *a = gql_arena_new(NULL);
  int *items = NULL;
  uint32_t cap = 0;
  cr_assert(GQL_ARRAY_RESERVE_FIRST(a, items, cap, 3, 16));
  cr_assert_eq(cap, 16);
  cr_assert(GQL_ARRAY_RESERVE(a, items, cap, 100));
  cr_assert_eq(cap, 128, "32 does not hold 100: doubled until it does");
  items[99] = 7;
  cr_assert(GQL_ARRAY_RESERVE(a, items, cap, 50), "room already there");
  cr_assert_eq(cap, 128);
  cr_assert_eq(items[99], 7);
  gql_arena_free(a);
}

Test(arena, vector_push_out_of_memory_leaves_the_vector_as_it_was) {
  counting c = {.fail_after = -1};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_arena *a = gql_arena_new(&alc);
  gql_arena_set_limit(a, 16 << 10);
  GQL_VECTOR(uint32_t) v = {0};
  uint32_t pushed = 0;
  while (gql_vector_push(a, &v, pushed))
    pushed++;
  cr_assert_gt(pushed, 0);
  cr_assert_eq(v.count, pushed, "the failed push counted nothing");
  cr_assert_geq(v.cap, v.count);
  for (uint32_t i = 0; i < v.count; i++)
    cr_assert_eq(v.items[i], i);
  gql_arena_free(a);
  cr_assert_eq(c.live_bytes, 0);
}
