/* Schemas, data, resolvers, JSON documents and the C floor of the seven
 * execution operations (see ops.h and ../shared/bench/README.md). */
#include "ops_data.h"

#include "../../examples/starwars/starwars.h"
#include "schema/schema.h"
#include "json/json.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ data */

const gql_str bench_roles[3] = {{"ADMIN", 5}, {"USER", 4}, {"GUEST", 5}};

/* clang-format off */
#define S(lit) {lit, sizeof lit - 1}
const sw_char bench_sw[7] = {
    {S("Human"), S("1000"), S("Luke Skywalker"), S("Tatooine"), "homePlanet", {2, 3, 5, 6}, 4, 3},
    {S("Human"), S("1001"), S("Darth Vader"), S("Tatooine"), "homePlanet", {4}, 1, 3},
    {S("Human"), S("1002"), S("Han Solo"), {NULL, 0}, "homePlanet", {0, 3, 6}, 3, 3},
    {S("Human"), S("1003"), S("Leia Organa"), S("Alderaan"), "homePlanet", {0, 2, 5, 6}, 4, 3},
    {S("Human"), S("1004"), S("Wilhuff Tarkin"), {NULL, 0}, "homePlanet", {1}, 1, 1},
    {S("Droid"), S("2000"), S("C-3PO"), S("Protocol"), "primaryFunction", {0, 2, 3, 6}, 4, 3},
    {S("Droid"), S("2001"), S("R2-D2"), S("Astromech"), "primaryFunction", {0, 2, 3}, 3, 3},
};
/* clang-format on */
const gql_str bench_sw_episodes[3] = {S("NEW_HOPE"), S("EMPIRE"), S("JEDI")};
#undef S

struct bench_ops {
  bench_op ops[OP_COUNT];
  data *d;
  gql_schema *minimal, *flat, *nested, *starwars;
  gql_schema *flat_members, *nested_members, *starwars_members;
  gql_schema *minimal_json, *flat_json, *nested_json, *starwars_json;
  gql_arena *json_arena; /* the JSON documents */
};

static void die(const char *what) {
  fprintf(stderr, "bench_exec: %s\n", what);
  exit(2);
}

static void make_data(data *d) {
  size_t cap = 1000 * 64 + 1000 * 32 + 1000 * 16, used = 0;
  d->strings = malloc(cap);
  if (!d->strings)
    die("out of memory");
#define PUT(dst, ...)                                                          \
  do {                                                                         \
    int n_ = snprintf(d->strings + used, cap - used, __VA_ARGS__);             \
    (dst) = (gql_str){d->strings + used, (size_t)n_};                          \
    used += (size_t)n_ + 1;                                                    \
  } while (0)
  for (int i = 0; i < 1000; i++) {
    item *it = &d->items[i];
    it->id = i;
    PUT(it->name, "item%d", i);
    PUT(it->email, "item%d@example.com", i);
    it->active = i % 2 == 0;
    it->score = i * 0.5;
    it->role = (uint8_t)(i % 3);
  }
  for (int g = 0; g < 10; g++) {
    group *gr = &d->groups[g];
    gr->id = g;
    PUT(gr->name, "group%d", g);
    gr->nchildren = 10;
    for (int c = 0; c < 10; c++) {
      child *ch = &gr->children[c];
      ch->nleaves = 10;
      ch->id = 10 * g + c;
      PUT(ch->name, "child%" PRId64, ch->id);
      for (int l = 0; l < 10; l++) {
        ch->leaves[l].id = 100 * g + 10 * c + l;
        ch->leaves[l].value = (double)ch->leaves[l].id;
      }
    }
  }
#undef PUT
}

/* ------------------------------------------------------------- resolvers */

static void r_hello(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  gql_out_string(out, "world", 5);
}

static void r_items(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  const data *d = gql_info_data(info);
  gql_out_object_array(out, d->items, 1000, sizeof d->items[0], d->item_type);
}
static void r_item_id(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  gql_out_int(out, ((const item *)parent)->id);
}
static void r_item_name(const gql_resolve_info *info, const void *parent,
                        gql_out *out) {
  const item *it = parent;
  gql_out_string(out, it->name.ptr, it->name.len);
}
static void r_item_email(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  const item *it = parent;
  gql_out_string(out, it->email.ptr, it->email.len);
}
static void r_item_active(const gql_resolve_info *info, const void *parent,
                          gql_out *out) {
  gql_out_bool(out, ((const item *)parent)->active);
}
static void r_item_score(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  gql_out_float(out, ((const item *)parent)->score);
}
static void r_item_role(const gql_resolve_info *info, const void *parent,
                        gql_out *out) {
  gql_out_enum_index(out, ((const item *)parent)->role); /* Role's order */
}

static void r_groups(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  const data *d = gql_info_data(info);
  gql_out_object_array(out, d->groups, 10, sizeof d->groups[0], d->group_type);
}
static void r_group_id(const gql_resolve_info *info, const void *parent,
                       gql_out *out) {
  gql_out_int(out, ((const group *)parent)->id);
}
static void r_group_name(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  const group *g = parent;
  gql_out_string(out, g->name.ptr, g->name.len);
}
static void r_group_children(const gql_resolve_info *info, const void *parent,
                             gql_out *out) {
  const group *g = parent;
  gql_out_object_array(out, g->children, 10, sizeof g->children[0],
                       g->child_type);
}
static void r_child_id(const gql_resolve_info *info, const void *parent,
                       gql_out *out) {
  gql_out_int(out, ((const child *)parent)->id);
}
static void r_child_name(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  const child *c = parent;
  gql_out_string(out, c->name.ptr, c->name.len);
}
static void r_child_leaves(const gql_resolve_info *info, const void *parent,
                           gql_out *out) {
  const child *c = parent;
  gql_out_object_array(out, c->leaves, 10, sizeof c->leaves[0], c->leaf_type);
}
static void r_leaf_id(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  gql_out_int(out, ((const leaf *)parent)->id);
}
static void r_leaf_value(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  gql_out_float(out, ((const leaf *)parent)->value);
}

/* --------------------------------------------------------------- schemas */

/* The scalar fields as struct members (gql_schema_set_member), for the
 * "gql members" column: the same data, no resolver function per field. */
typedef struct member_def {
  const char *type, *field;
  gql_member_kind kind;
  size_t offset;
} member_def;

static const member_def flat_members[] = {
    {"Item", "id", GQL_MEMBER_INT64, offsetof(item, id)},
    {"Item", "name", GQL_MEMBER_STR, offsetof(item, name)},
    {"Item", "email", GQL_MEMBER_STR, offsetof(item, email)},
    {"Item", "active", GQL_MEMBER_BOOL, offsetof(item, active)},
    {"Item", "score", GQL_MEMBER_DOUBLE, offsetof(item, score)},
    {"Item", "role", GQL_MEMBER_ENUM_U8, offsetof(item, role)}};
static const member_def nested_members[] = {
    {"Group", "id", GQL_MEMBER_INT64, offsetof(group, id)},
    {"Group", "name", GQL_MEMBER_STR, offsetof(group, name)},
    {"Child", "id", GQL_MEMBER_INT64, offsetof(child, id)},
    {"Child", "name", GQL_MEMBER_STR, offsetof(child, name)},
    {"Leaf", "id", GQL_MEMBER_INT64, offsetof(leaf, id)},
    {"Leaf", "value", GQL_MEMBER_DOUBLE, offsetof(leaf, value)}};

/* nested_lists' inner lists as list members: the structs of the arrays
 * in the parent (what r_group_children and r_child_leaves hand over). */
static const gql_list_member children_member = {
    .kind = GQL_LIST_STRUCTS,
    .items_inline = true,
    .items_offset = offsetof(group, children),
    .count_offset = offsetof(group, nchildren),
    .count_size = sizeof(uint8_t),
    .stride = sizeof(child),
    .type = GQL_TYPE_AUTO};
static const gql_list_member leaves_member = {
    .kind = GQL_LIST_STRUCTS,
    .items_inline = true,
    .items_offset = offsetof(child, leaves),
    .count_offset = offsetof(child, nleaves),
    .count_size = sizeof(uint8_t),
    .stride = sizeof(leaf),
    .type = GQL_TYPE_AUTO};

static void set_members(gql_schema *s, const member_def *defs, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (gql_schema_set_member(s, defs[i].type, defs[i].field, defs[i].kind,
                              defs[i].offset) < 0)
      die("cannot set a member field");
}

static const char minimal_sdl[] = "type Query { hello: String! }";
static const char flat_sdl[] =
    "enum Role { ADMIN USER GUEST } type Item { id: Int! name: String! "
    "email: String! active: Boolean! score: Float! role: Role! } type Query "
    "{ items: [Item!]! }";
static const char nested_sdl[] =
    "type Leaf { id: Int! value: Float! } type Child { id: Int! name: "
    "String! leaves: [Leaf!]! } type Group { id: Int! name: String! "
    "children: [Child!]! } type Query { groups: [Group!]! }";

/* Every schema gets graphql-js 17's @defer and @stream (bench_ops_new_with;
 * set while the schemas are built). */
static bool with_defer_stream;

static gql_schema *schema_of(const char *sdl, size_t len) {
  gql_schema *s;
  gql_schema_build_options bo = {.defer_stream = with_defer_stream};
  if (gql_schema_build(sdl, len, NULL, &bo, &s, NULL) < 0)
    die("cannot build a schema");
  return s;
}

static gql_schema *starwars_of(bool members) {
  gql_str sdl = gql_starwars_sdl();
  gql_schema *s = schema_of(sdl.ptr, sdl.len);
  if (gql_starwars_set_resolvers(s, members) < 0 || gql_schema_finalize(s) < 0)
    die("cannot build the Star Wars schema");
  return s;
}

static uint32_t type_index(gql_schema *s, const char *name) {
  int64_t t = gql_schema_type_by_name(s, name, strlen(name));
  if (t < 0)
    die("missing type");
  return (uint32_t)t;
}

typedef struct resolver_def {
  const char *type, *field;
  gql_resolver_fn fn;
} resolver_def;

static void set_resolvers(gql_schema *s, const resolver_def *defs, size_t n,
                          void *d) {
  for (size_t i = 0; i < n; i++)
    if (gql_schema_set_resolver(s, defs[i].type, defs[i].field, defs[i].fn, d,
                                GQL_RESOLVER_SYNC) < 0)
      die("cannot set a resolver");
  if (gql_schema_finalize(s) < 0)
    die("cannot finalize a schema");
}

/* ------------------------------------------------------------- the floor */

static void floor_minimal(floor_buf *b, const void *unused) {
  b->len = 0;
  FB_LIT(b, "{\"data\":{\"hello\":\"world\"}}");
}

static void floor_flat(floor_buf *b, const void *dp) {
  const data *d = dp;
  b->len = 0;
  FB_LIT(b, "{\"data\":{\"items\":[");
  for (int i = 0; i < 1000; i++) {
    const item *it = &d->items[i];
    if (i)
      FB_LIT(b, ",");
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
    FB_LIT(b, "}");
  }
  FB_LIT(b, "]}}");
}

static void floor_nested(floor_buf *b, const void *dp) {
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
        FB_LIT(b, "{\"id\":");
        fb_int(b, ch->leaves[l].id);
        FB_LIT(b, ",\"value\":");
        fb_double(b, ch->leaves[l].value);
        FB_LIT(b, "}");
      }
      FB_LIT(b, "]}");
    }
    FB_LIT(b, "]}");
  }
  FB_LIT(b, "]}}");
}

/* { hero { id name friends { name appearsIn friends { name } } } } */
static void floor_star_wars(floor_buf *b, const void *unused) {
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
      FB_LIT(b, "{\"name\":");
      fb_str(b, bench_sw[f->friends[j]].name);
      FB_LIT(b, "}");
    }
    FB_LIT(b, "]}");
  }
  FB_LIT(b, "]}}}");
}

/* The Star Wars JSON document for the default resolver: the hero with its
 * friends two levels deep, every character with __typename. */
static void sw_json(floor_buf *b, const sw_char *c, int depth) {
  FB_LIT(b, "{\"__typename\":");
  fb_str(b, c->typename);
  FB_LIT(b, ",\"id\":");
  fb_str(b, c->id);
  FB_LIT(b, ",\"name\":");
  fb_str(b, c->name);
  FB_LIT(b, ",\"appearsIn\":[");
  for (int e = 0; e < c->nepisodes; e++) {
    if (e)
      FB_LIT(b, ",");
    fb_str(b, bench_sw_episodes[c->nepisodes == 1 ? 0 : e]);
  }
  FB_LIT(b, "],\"");
  fb_raw(b, c->extra_key, strlen(c->extra_key));
  FB_LIT(b, "\":");
  if (c->extra.ptr)
    fb_str(b, c->extra);
  else
    FB_LIT(b, "null");
  FB_LIT(b, ",\"friends\":[");
  for (int i = 0; depth > 0 && i < c->nfriends; i++) {
    if (i)
      FB_LIT(b, ",");
    sw_json(b, &bench_sw[c->friends[i]], depth - 1);
  }
  FB_LIT(b, "]}");
}

/* Parses `json` into the arena (kept alive with it); `member` picks the
 * member of the root object (NULL: the root). */
static const gql_value *parse_doc(gql_arena *a, floor_buf *b,
                                  const char *member) {
  char *copy = gql_arena_alloc(a, b->len + 1);
  if (!copy)
    die("out of memory");
  memcpy(copy, b->data, b->len);
  copy[b->len] = 0;
  const gql_value *v;
  if (gql_value_parse(a, copy, b->len, &v) < 0)
    die("cannot parse a JSON document");
  if (member && !(v = gql_value_get(v, member, strlen(member))))
    die("JSON document without its member");
  return v;
}

/* ------------------------------------------------------------------- ops */

static const char *const names[OP_COUNT] = {"minimal",
                                            "flat_list",
                                            "nested_lists",
                                            "star_wars",
                                            "fragments",
                                            "introspection",
                                            "introspection_without_one_of"};

int bench_op_by_name(const char *name) {
  for (int i = 0; i < OP_COUNT; i++)
    if (strcmp(names[i], name) == 0)
      return i;
  return -1;
}

static char *dup_text(const char *s, size_t *len) {
  *len = strlen(s);
  char *p = malloc(*len + 1);
  if (!p)
    die("out of memory");
  memcpy(p, s, *len + 1);
  return p;
}

static char *read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "bench_exec: cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
    die("cannot read a file");
  fclose(f);
  buf[n] = 0;
  *len = (size_t)n;
  return buf;
}

/* The query without its isOneOf line. */
static char *without_one_of(const char *q, size_t *len) {
  const char *at = strstr(q, "isOneOf");
  if (!at)
    die("the introspection query has no isOneOf line");
  const char *start = at, *end = at;
  while (start > q && start[-1] != '\n')
    start--;
  while (*end && *end != '\n')
    end++;
  if (*end)
    end++;
  size_t n = strlen(q);
  char *p = malloc(n + 1);
  if (!p)
    die("out of memory");
  size_t head = (size_t)(start - q);
  memcpy(p, q, head);
  memcpy(p + head, end, n - (size_t)(end - q) + 1);
  *len = strlen(p);
  return p;
}

static const char star_wars_query[] =
    "{ hero { id name friends { name appearsIn friends { name } } } }";
static const char fragments_query[] =
    "query Fragments {\n"
    "  luke: human(id: \"1000\") { ...HumanFields }\n"
    "  leia: human(id: \"1003\") { ...HumanFields }\n"
    "  threepio: droid(id: \"2000\") { ...DroidFields }\n"
    "  empireHero: hero(episode: EMPIRE) { ...CharacterFields }\n"
    "  jediHero: hero(episode: JEDI) { ...CharacterFields }\n"
    "}\n"
    "fragment CharacterFields on Character { __typename id name appearsIn "
    "... on Human { homePlanet } ... on Droid { primaryFunction } friends { "
    "...FriendFields } }\n"
    "fragment HumanFields on Human { id name homePlanet appearsIn friends { "
    "...FriendFields } }\n"
    "fragment DroidFields on Droid { id name primaryFunction appearsIn "
    "friends { ...FriendFields } }\n"
    "fragment FriendFields on Character { __typename name ... on Human { "
    "homePlanet } ... on Droid { primaryFunction } }\n";

bench_ops *bench_ops_new(const char *shared) {
  return bench_ops_new_with(shared, false);
}

bench_ops *bench_ops_new_with(const char *shared, bool defer_stream) {
  with_defer_stream = defer_stream;
  bench_ops *o = calloc(1, sizeof *o);
  data *d = o ? calloc(1, sizeof *d) : NULL;
  if (!d)
    die("out of memory");
  o->d = d;
  make_data(d);

  o->minimal = schema_of(minimal_sdl, sizeof minimal_sdl - 1);
  static const resolver_def minimal_r[] = {{"Query", "hello", r_hello}};
  set_resolvers(o->minimal, minimal_r, 1, NULL);

  o->flat = schema_of(flat_sdl, sizeof flat_sdl - 1);
  d->item_type = type_index(o->flat, "Item");
  static const resolver_def flat_r[] = {
      {"Query", "items", r_items},       {"Item", "id", r_item_id},
      {"Item", "name", r_item_name},     {"Item", "email", r_item_email},
      {"Item", "active", r_item_active}, {"Item", "score", r_item_score},
      {"Item", "role", r_item_role}};
  set_resolvers(o->flat, flat_r, sizeof flat_r / sizeof *flat_r, d);
  o->flat_members = schema_of(flat_sdl, sizeof flat_sdl - 1);
  if (type_index(o->flat_members, "Item") != d->item_type)
    die("type indices differ");
  set_members(o->flat_members, flat_members,
              sizeof flat_members / sizeof *flat_members);
  set_resolvers(o->flat_members, flat_r, 1, d); /* Query.items */

  o->nested = schema_of(nested_sdl, sizeof nested_sdl - 1);
  d->group_type = type_index(o->nested, "Group");
  for (int g = 0; g < 10; g++) {
    d->groups[g].child_type = type_index(o->nested, "Child");
    for (int c = 0; c < 10; c++)
      d->groups[g].children[c].leaf_type = type_index(o->nested, "Leaf");
  }
  static const resolver_def nested_r[] = {
      {"Query", "groups", r_groups},
      {"Group", "id", r_group_id},
      {"Group", "name", r_group_name},
      {"Group", "children", r_group_children},
      {"Child", "id", r_child_id},
      {"Child", "name", r_child_name},
      {"Child", "leaves", r_child_leaves},
      {"Leaf", "id", r_leaf_id},
      {"Leaf", "value", r_leaf_value}};
  set_resolvers(o->nested, nested_r, sizeof nested_r / sizeof *nested_r, d);
  o->nested_members = schema_of(nested_sdl, sizeof nested_sdl - 1);
  if (type_index(o->nested_members, "Group") != d->group_type ||
      type_index(o->nested_members, "Child") != d->groups[0].child_type ||
      type_index(o->nested_members, "Leaf") !=
          d->groups[0].children[0].leaf_type)
    die("type indices differ");
  set_members(o->nested_members, nested_members,
              sizeof nested_members / sizeof *nested_members);
  if (gql_schema_set_list_member(o->nested_members, "Group", "children",
                                 &children_member) < 0 ||
      gql_schema_set_list_member(o->nested_members, "Child", "leaves",
                                 &leaves_member) < 0)
    die("cannot set a list member");
  set_resolvers(o->nested_members, nested_r, 1, d); /* Query.groups */

  o->starwars = starwars_of(false);
  o->starwars_members = starwars_of(true);

  /* The JSON documents (written by the floor writers, so that they hold
   * exactly the data the resolvers return). */
  o->minimal_json = schema_of(minimal_sdl, sizeof minimal_sdl - 1);
  o->flat_json = schema_of(flat_sdl, sizeof flat_sdl - 1);
  o->nested_json = schema_of(nested_sdl, sizeof nested_sdl - 1);
  gql_str sw_sdl = gql_starwars_sdl();
  o->starwars_json = schema_of(sw_sdl.ptr, sw_sdl.len);
  if (!(o->json_arena = gql_arena_new(NULL)))
    die("out of memory");
  floor_buf b;
  gql_buf_init(&b, NULL);
  const gql_value *json[4];
  floor_minimal(&b, d);
  json[0] = parse_doc(o->json_arena, &b, "data");
  floor_flat(&b, d);
  json[1] = parse_doc(o->json_arena, &b, "data");
  floor_nested(&b, d);
  json[2] = parse_doc(o->json_arena, &b, "data");
  b.len = 0;
  FB_LIT(&b, "{\"hero\":");
  sw_json(&b, &bench_sw[6], 2);
  FB_LIT(&b, "}");
  json[3] = parse_doc(o->json_arena, &b, NULL);
  gql_buf_free(&b);

  char path[4096];
  snprintf(path, sizeof path,
           "%s/conformance/introspection/graphql16.15-all-options.graphql",
           shared);
  size_t ilen;
  char *introspection = read_text(path, &ilen);

  bench_op *op = o->ops;
  op[OP_MINIMAL] = (bench_op){.schema = o->minimal,
                              .json_schema = o->minimal_json,
                              .json_root = json[0]};
  op[OP_MINIMAL].query = dup_text("{ hello }", &op[OP_MINIMAL].query_len);
  op[OP_FLAT_LIST] = (bench_op){.schema = o->flat,
                                .member_schema = o->flat_members,
                                .json_schema = o->flat_json,
                                .json_root = json[1],
                                .floor = floor_flat};
  op[OP_FLAT_LIST].query =
      dup_text("{ items { id name email active score role } }",
               &op[OP_FLAT_LIST].query_len);
  op[OP_NESTED_LISTS] = (bench_op){.schema = o->nested,
                                   .member_schema = o->nested_members,
                                   .json_schema = o->nested_json,
                                   .json_root = json[2],
                                   .floor = floor_nested};
  op[OP_NESTED_LISTS].query = dup_text(
      "{ groups { id name children { id name leaves { id value } } } }",
      &op[OP_NESTED_LISTS].query_len);
  op[OP_STAR_WARS] = (bench_op){.schema = o->starwars,
                                .member_schema = o->starwars_members,
                                .json_schema = o->starwars_json,
                                .json_root = json[3],
                                .floor = floor_star_wars};
  op[OP_STAR_WARS].query =
      dup_text(star_wars_query, &op[OP_STAR_WARS].query_len);
  op[OP_FRAGMENTS] =
      (bench_op){.schema = o->starwars, .member_schema = o->starwars_members};
  op[OP_FRAGMENTS].query =
      dup_text(fragments_query, &op[OP_FRAGMENTS].query_len);
  op[OP_INTROSPECTION] = (bench_op){.schema = o->starwars};
  op[OP_INTROSPECTION].query = introspection;
  op[OP_INTROSPECTION].query_len = ilen;
  op[OP_INTROSPECTION_WITHOUT_ONE_OF] = (bench_op){.schema = o->starwars};
  op[OP_INTROSPECTION_WITHOUT_ONE_OF].query = without_one_of(
      introspection, &op[OP_INTROSPECTION_WITHOUT_ONE_OF].query_len);
  for (int i = 0; i < OP_COUNT; i++)
    op[i].name = names[i];
  return o;
}

void bench_ops_free(bench_ops *o) {
  if (!o)
    return;
  for (int i = 0; i < OP_COUNT; i++)
    free(o->ops[i].query);
  gql_schema *all[] = {
      o->minimal,      o->flat,           o->nested,          o->starwars,
      o->minimal_json, o->flat_json,      o->nested_json,     o->starwars_json,
      o->flat_members, o->nested_members, o->starwars_members};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    gql_schema_free(all[i]);
  gql_arena_free(o->json_arena);
  free(o->d->strings);
  free(o->d);
  free(o);
}

const bench_op *bench_ops_get(const bench_ops *o, int op) {
  return &o->ops[op];
}

const void *bench_ops_floor_data(const bench_ops *o) {
  return o->d;
}
