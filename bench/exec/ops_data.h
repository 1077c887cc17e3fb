/* The data of the execution operations as the hand-written C floors read
 * it, and the floors' writing primitives: shared by ops.c's plain floors
 * and bench/defer/floor.c's @defer floors, so that both read the same
 * structs and write with the same calls. Private to the benchmarks. */
#ifndef GQL_BENCH_EXEC_OPS_DATA_H
#define GQL_BENCH_EXEC_OPS_DATA_H

#include "ops.h"

#include "json/json.h"

#include <stdint.h>
#include <string.h>

typedef struct item {
  int64_t id;
  gql_str name, email;
  bool active;
  double score;
  uint8_t role;
} item;

typedef struct leaf {
  int64_t id;
  double value;
} leaf;

/* A child and a group carry the type index of their list's items, which
 * their list resolvers cannot get from a resolve info. */
typedef struct child {
  int64_t id;
  gql_str name;
  uint32_t leaf_type;
  uint8_t nleaves; /* 10, for the list member */
  leaf leaves[10];
} child;

typedef struct group {
  int64_t id;
  gql_str name;
  uint32_t child_type;
  uint8_t nchildren; /* 10, for the list member */
  child children[10];
} group;

/* Star Wars for the floor: the same table as examples/starwars, with the
 * friends as pointers (the best a hand-written server could do). */
typedef struct sw_char {
  gql_str typename, id, name, extra; /* extra.ptr NULL: null */
  const char *extra_key;             /* homePlanet or primaryFunction */
  int friends[4];
  int nfriends;
  int nepisodes;
} sw_char;

/* What bench_ops_floor_data returns. */
typedef struct data {
  item items[1000];
  group groups[10];
  uint32_t item_type, group_type;
  char *strings; /* every name and email */
} data;

/* Role's values in order; the Star Wars characters (R2-D2, the hero, is
 * bench_sw[6]) and episodes. */
extern const gql_str bench_roles[3];
extern const sw_char bench_sw[7];
extern const gql_str bench_sw_episodes[3];

/* The floor writes with the JSON writer's string, integer and double
 * primitives (what any response costs). */
#define FB_LIT(b, lit) fb_raw((b), (lit), sizeof(lit) - 1)
static inline void fb_raw(floor_buf *b, const char *s, size_t n) {
  if (b->cap - b->len < n && !gql_buf_reserve(b, n))
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
}
static inline void fb_str(floor_buf *b, gql_str s) {
  gql_json_write_string(b, s);
}
static inline void fb_int(floor_buf *b, int64_t v) {
  gql_json_write_int(b, v);
}
static inline void fb_double(floor_buf *b, double d) {
  gql_json_write_double(b, d);
}

#endif
