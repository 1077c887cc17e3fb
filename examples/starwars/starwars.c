/* The Star Wars example: the schema of examples/starwars/schema.graphql with
 * static C data and synchronous C resolvers (the data of the benchmark
 * README). gql_starwars_schema builds it; `gql exec --example starwars` uses
 * it. */
#include "starwars.h"

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

gql_str gql_starwars_sdl(void) { return (gql_str){sdl, sizeof sdl - 1}; }

typedef struct character {
  const char *id;
  bool droid;
  const char *name;
  const char *friends[4];
  const char *extra; /* homePlanet or primaryFunction; NULL: null */
  int nepisodes;     /* 3: all three, 1: NEW_HOPE */
} character;

static const character characters[] = {
    {"1000",
     false,
     "Luke Skywalker",
     {"1002", "1003", "2000", "2001"},
     "Tatooine",
     3},
    {"1001", false, "Darth Vader", {"1004"}, "Tatooine", 3},
    {"1002", false, "Han Solo", {"1000", "1003", "2001"}, NULL, 3},
    {"1003",
     false,
     "Leia Organa",
     {"1000", "1002", "2000", "2001"},
     "Alderaan",
     3},
    {"1004", false, "Wilhuff Tarkin", {"1001"}, NULL, 1},
    {"2000", true, "C-3PO", {"1000", "1002", "1003", "2001"}, "Protocol", 3},
    {"2001", true, "R2-D2", {"1000", "1002", "1003"}, "Astromech", 3},
};

static const char *const episodes[] = {"NEW_HOPE", "EMPIRE", "JEDI"};

typedef struct types {
  uint32_t human, droid;
} types;

static const character *find(const char *id, size_t len) {
  for (size_t i = 0; i < sizeof characters / sizeof *characters; i++)
    if (strlen(characters[i].id) == len &&
        memcmp(characters[i].id, id, len) == 0)
      return &characters[i];
  return NULL;
}

static void out_character(gql_out *out, const character *c, const types *t) {
  if (!c)
    gql_out_null(out);
  else
    gql_out_object(out, c, c->droid ? t->droid : t->human);
}

static void q_hero(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_str ep = gql_value_string(gql_arg(info, "episode"));
  bool empire = ep.len == 6 && memcmp(ep.ptr, "EMPIRE", 6) == 0;
  out_character(out, find(empire ? "1000" : "2001", 4), gql_info_data(info));
}

static void q_by_id(const gql_resolve_info *info, const void *parent,
                    gql_out *out, bool droid) {
  gql_str id = gql_value_string(gql_arg(info, "id"));
  const character *c = find(id.ptr, id.len);
  out_character(out, c && c->droid == droid ? c : NULL, gql_info_data(info));
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
  gql_out_string(out, c->id, strlen(c->id));
}

static void c_name(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  const character *c = parent;
  gql_out_string(out, c->name, strlen(c->name));
}

static void c_extra(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  const character *c = parent;
  if (c->extra)
    gql_out_string(out, c->extra, strlen(c->extra));
  else
    gql_out_null(out);
}

/* Friends are written with GQL_TYPE_AUTO: the executor asks
 * Character's resolve_type for the concrete type. */
static void friend_item(const void *list, size_t i, gql_out *out) {
  const character *c = list;
  const character *f = find(c->friends[i], strlen(c->friends[i]));
  gql_out_object(out, f, GQL_TYPE_AUTO);
}

static void c_friends(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  const character *c = parent;
  size_t n = 0;
  while (n < 4 && c->friends[n])
    n++;
  gql_out_list(out, c, n, friend_item);
}

static void episode_item(const void *list, size_t i, gql_out *out) {
  const character *c = list;
  size_t e = c->nepisodes == 1 ? 0 : i;
  gql_out_enum(out, episodes[e], strlen(episodes[e]));
}

static void c_appears_in(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  const character *c = parent;
  gql_out_list(out, c, (size_t)c->nepisodes, episode_item);
}

static int64_t character_type(const gql_resolve_info *info, const void *value) {
  const character *c = value;
  const types *t = gql_info_data(info);
  if (!t) /* resolvers without data: look the index up */
    return -1;
  return c->droid ? t->droid : t->human;
}

/* The type indices follow from the SDL (graphql-js type order); the build
 * checks them, so the resolvers need no mutable state. */
static const types starwars_types = {.human = 4, .droid = 3};

int gql_starwars_schema(gql_schema **out) {
  gql_schema *s;
  int rc = gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL, NULL, NULL);
  if (rc < 0)
    return rc;
  types *t = (types *)&starwars_types; /* passed as data, never written */
  if (gql_schema_type_by_name(s, "Human", 5) != t->human ||
      gql_schema_type_by_name(s, "Droid", 5) != t->droid) {
    gql_schema_free(s);
    return GQL_ESCHEMA;
  }
  const unsigned sync = GQL_RESOLVER_SYNC;
  static const char *const kinds[] = {"Human", "Droid"};
  rc |= gql_schema_set_resolver(s, "Query", "hero", q_hero, t, sync);
  rc |= gql_schema_set_resolver(s, "Query", "human", q_human, t, sync);
  rc |= gql_schema_set_resolver(s, "Query", "droid", q_droid, t, sync);
  for (int k = 0; k < 2; k++) {
    rc |= gql_schema_set_resolver(s, kinds[k], "id", c_id, t, sync);
    rc |= gql_schema_set_resolver(s, kinds[k], "name", c_name, t, sync);
    rc |= gql_schema_set_resolver(s, kinds[k], "friends", c_friends, t, sync);
    rc |= gql_schema_set_resolver(s, kinds[k], "appearsIn", c_appears_in, t,
                                  sync);
    rc |= gql_schema_set_resolver(
        s, kinds[k], k ? "primaryFunction" : "homePlanet", c_extra, t, sync);
  }
  rc |= gql_schema_set_resolve_type(s, "Character", character_type);
  if (rc < 0) {
    gql_schema_free(s);
    return GQL_EINVAL;
  }
  *out = s;
  return 0;
}
