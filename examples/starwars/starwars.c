/* The Star Wars example: the schema of examples/starwars/schema.graphql with
 * static C data and synchronous C resolvers (the data of the benchmark
 * README). gql_starwars_schema builds it; `gql exec --example starwars` uses
 * it. */
#include "starwars.h"

#include <stddef.h>
#include <string.h>

static const char sdl[] =
    "schema { query: Query }\n"
    "enum Episode { NEW_HOPE EMPIRE JEDI }\n"
    "\"A character in the Star Wars Trilogy\"\n"
    "interface Character {\n"
    "  \"The id of the character\" id: String!\n"
    "  \"The name of the character\" name: String\n"
    "  \"The friends of the character\" friends: [Character!]!\n"
    "  \"Which movies they appear in\" appearsIn: [Episode!]!\n"
    "}\n"
    "\"A mechanical creature in the Star Wars universe.\"\n"
    "type Droid implements Character {\n"
    "  id: String! name: String friends: [Character!]! appearsIn: "
    "[Episode!]!\n"
    "  \"The primary function of the droid\" primaryFunction: String\n"
    "}\n"
    "\"A humanoid creature in the Star Wars universe.\"\n"
    "type Human implements Character {\n"
    "  id: String! name: String friends: [Character!]! appearsIn: "
    "[Episode!]!\n"
    "  \"The home planet of the human\" homePlanet: String\n"
    "}\n"
    "\"The root query object of the schema\"\n"
    "type Query {\n"
    "  human(\"id of the human\" id: String!): Human\n"
    "  droid(\"id of the droid\" id: String!): Droid\n"
    "  hero(\"If omitted, returns the hero of the whole saga. If provided, "
    "returns the hero of that particular episode\" episode: Episode): "
    "Character\n"
    "}\n";

gql_str gql_starwars_sdl(void) {
  return (gql_str){sdl, sizeof sdl - 1};
}

/* Strings as slices (no strlen per call), friends as pointers into the
 * table (as a real server's loaded objects would be) and episodes as
 * indices of Episode's values in SDL order (NEW_HOPE, EMPIRE, JEDI). */
typedef struct character {
  gql_str id;
  bool droid;
  gql_str name;
  const void *friends[4]; /* const character * */
  uint8_t nfriends;
  gql_str extra; /* homePlanet or primaryFunction; ptr NULL: null */
  const uint8_t *episodes;
  uint8_t nepisodes;
} character;

static const uint8_t all_episodes[] = {0, 1, 2}, new_hope[] = {0};

#define S(lit)                                                                 \
  { lit, sizeof lit - 1 }
#define NONE                                                                   \
  { NULL, 0 }
#define F(i) &characters[i]
#define ALL all_episodes, 3
static const character characters[7];
/* clang-format off */
static const character characters[7] = {
    {S("1000"), false, S("Luke Skywalker"), {F(2), F(3), F(5), F(6)}, 4, S("Tatooine"), ALL},
    {S("1001"), false, S("Darth Vader"), {F(4)}, 1, S("Tatooine"), ALL},
    {S("1002"), false, S("Han Solo"), {F(0), F(3), F(6)}, 3, NONE, ALL},
    {S("1003"), false, S("Leia Organa"), {F(0), F(2), F(5), F(6)}, 4, S("Alderaan"), ALL},
    {S("1004"), false, S("Wilhuff Tarkin"), {F(1)}, 1, NONE, new_hope, 1},
    {S("2000"), true, S("C-3PO"), {F(0), F(2), F(3), F(6)}, 4, S("Protocol"), ALL},
    {S("2001"), true, S("R2-D2"), {F(0), F(2), F(3)}, 3, S("Astromech"), ALL},
};
/* clang-format on */
#undef S
#undef NONE
#undef F
#undef ALL

enum { LUKE = 0, R2D2 = 6 };

typedef struct types {
  uint32_t human, droid;
} types;

/* The type indices follow from the SDL (graphql-js type order); the build
 * checks them, so the resolvers need no mutable state. */
static const types starwars_types = {.human = 4, .droid = 3};

static const character *find(gql_str id) {
  for (size_t i = 0; i < sizeof characters / sizeof *characters; i++)
    if (characters[i].id.len == id.len &&
        memcmp(characters[i].id.ptr, id.ptr, id.len) == 0)
      return &characters[i];
  return NULL;
}

static uint32_t type_of(const character *c) {
  return c->droid ? starwars_types.droid : starwars_types.human;
}

static void out_character(gql_out *out, const character *c) {
  if (!c)
    gql_out_null(out);
  else
    gql_out_object(out, c, type_of(c));
}

static void q_hero(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_str ep = gql_value_string(gql_arg(info, "episode"));
  bool empire = ep.len == 6 && memcmp(ep.ptr, "EMPIRE", 6) == 0;
  out_character(out, &characters[empire ? LUKE : R2D2]);
}

static void q_by_id(const gql_resolve_info *info, const void *parent,
                    gql_out *out, bool droid) {
  const character *c = find(gql_value_string(gql_arg(info, "id")));
  out_character(out, c && c->droid == droid ? c : NULL);
}

static void q_human(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  q_by_id(info, parent, out, false);
}

static void q_droid(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  q_by_id(info, parent, out, true);
}

static void c_id(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  const character *c = parent;
  gql_out_string(out, c->id.ptr, c->id.len);
}

static void c_name(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  const character *c = parent;
  gql_out_string(out, c->name.ptr, c->name.len);
}

static void c_extra(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  const character *c = parent;
  if (c->extra.ptr)
    gql_out_string(out, c->extra.ptr, c->extra.len);
  else
    gql_out_null(out);
}

/* Friends by pointer, each typed by Character's resolve_type (below). */
static void c_friends(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  const character *c = parent;
  gql_out_object_ptrs(out, c->friends, c->nfriends, GQL_TYPE_AUTO);
}

static void c_appears_in(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  const character *c = parent;
  gql_out_enum_indices(out, c->episodes, c->nepisodes);
}

static int64_t character_type(const gql_resolve_info *info, const void *value) {
  (void)info;
  return type_of(value);
}

/* The list members of gql_starwars_schema_members: what c_friends and
 * c_appears_in read, read by the executor. */
static const gql_list_member friends_member = {
    .kind = GQL_LIST_OBJECT_PTRS,
    .items_inline = true,
    .items_offset = offsetof(character, friends),
    .count_offset = offsetof(character, nfriends),
    .count_size = sizeof(uint8_t),
    .type = GQL_TYPE_AUTO};
static const gql_list_member episodes_member = {
    .kind = GQL_LIST_ENUM_U8,
    .items_offset = offsetof(character, episodes),
    .count_offset = offsetof(character, nepisodes),
    .count_size = sizeof(uint8_t)};

int gql_starwars_set_resolvers(gql_schema *s, bool members) {
  types *t = (types *)&starwars_types; /* passed as data, never written */
  if (gql_schema_type_by_name(s, "Human", 5) != t->human ||
      gql_schema_type_by_name(s, "Droid", 5) != t->droid)
    return GQL_ESCHEMA;
  int rc = 0;
  const unsigned sync = GQL_RESOLVER_SYNC;
  static const char *const kinds[] = {"Human", "Droid"};
  rc |= gql_schema_set_resolver(s, "Query", "hero", q_hero, t, sync);
  rc |= gql_schema_set_resolver(s, "Query", "human", q_human, t, sync);
  rc |= gql_schema_set_resolver(s, "Query", "droid", q_droid, t, sync);
  for (int k = 0; k < 2; k++) {
    if (members) {
      const char *extra = k ? "primaryFunction" : "homePlanet";
      rc |= gql_schema_set_member(s, kinds[k], "id", GQL_MEMBER_STR,
                                  offsetof(character, id));
      rc |= gql_schema_set_member(s, kinds[k], "name", GQL_MEMBER_STR,
                                  offsetof(character, name));
      rc |= gql_schema_set_member(s, kinds[k], extra, GQL_MEMBER_STR,
                                  offsetof(character, extra));
    } else {
      rc |= gql_schema_set_resolver(s, kinds[k], "id", c_id, t, sync);
      rc |= gql_schema_set_resolver(s, kinds[k], "name", c_name, t, sync);
      rc |= gql_schema_set_resolver(
          s, kinds[k], k ? "primaryFunction" : "homePlanet", c_extra, t, sync);
    }
    if (members) {
      rc |= gql_schema_set_list_member(s, kinds[k], "friends", &friends_member);
      rc |= gql_schema_set_list_member(s, kinds[k], "appearsIn",
                                       &episodes_member);
    } else {
      rc |= gql_schema_set_resolver(s, kinds[k], "friends", c_friends, t, sync);
      rc |= gql_schema_set_resolver(s, kinds[k], "appearsIn", c_appears_in, t,
                                    sync);
    }
  }
  rc |= gql_schema_set_resolve_type(s, "Character", character_type);
  return rc < 0 ? GQL_EINVAL : 0;
}

static int build(gql_schema **out, bool members) {
  gql_schema *s;
  int rc = gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL);
  if (rc < 0)
    return rc;
  if ((rc = gql_starwars_set_resolvers(s, members)) < 0) {
    gql_schema_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

int gql_starwars_schema(gql_schema **out) {
  return build(out, false);
}

int gql_starwars_schema_members(gql_schema **out) {
  return build(out, true);
}
