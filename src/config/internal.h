/* Inside the config part: the YAML node tree and the loader's context. */
#ifndef GQL_CONFIG_INTERNAL_H
#define GQL_CONFIG_INTERNAL_H

#include "config.h"

typedef enum ynode_kind { Y_SCALAR, Y_MAP, Y_SEQ } ynode_kind;

/* A YAML node. A map's items are key, value, key, value... */
typedef struct ynode {
  uint8_t kind; /* ynode_kind */
  bool quoted;  /* a scalar written in quotes or as a block */
  bool is_null; /* a plain ~, null or empty scalar */
  uint32_t len; /* scalar bytes, or items */
  union {
    const char *text; /* scalar (NUL-terminated) */
    struct ynode *items;
  };
  gql_location loc;
} ynode;

/* The loader's state: where errors go, the environment, the base folder. */
typedef struct cfg_ctx {
  gql_settings *st;
  gql_arena *arena; /* the settings' arena */
  const char *path; /* for messages */
  const char *base; /* folder of the file ("" for the current one) */
  const gql_settings_env *env;
  gql_buf errors; /* "PATH:L:C: message\n" lines */
  uint32_t nerrors;
} cfg_ctx;

/* Parses YAML text into a tree in ctx->arena. The root is NULL for an empty
 * file. false after reporting errors. */
bool gql_yaml_read(cfg_ctx *c, const char *text, size_t len, ynode **root);

/* Reports an error at `loc` (line 0: no place). */
void gql_cfg_error(cfg_ctx *c, gql_location loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A scalar's value with ${env.NAME} and ${env.NAME:-default} expanded (in
 * the arena); NULL after reporting an error. */
const char *gql_cfg_expand(cfg_ctx *c, const ynode *n);

/* Decodes the root map into c->st. */
void gql_cfg_decode(cfg_ctx *c, const ynode *root);

/* Compiles a regex as gql will match it (PCRE2); false with a message in
 * why[0..n) when it does not compile. */
bool gql_cfg_regex_ok(const char *pattern, char *why, size_t n);

#endif
