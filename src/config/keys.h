/* The key tables and the value decoders the sections share. */
#ifndef GQL_CONFIG_KEYS_H
#define GQL_CONFIG_KEYS_H

#include "internal.h"

typedef enum cfg_key_type {
  K_SECTION,     /* a map of keys (sub) */
  K_CUSTOM,      /* fn decodes it */
  K_BOOL,        /* gql_cfg_bool */
  K_FLAG,        /* bool */
  K_U32,         /* uint32_t in [min, max] */
  K_BYTES,       /* uint64_t byte size in [min, max] */
  K_DURATION_MS, /* uint64_t milliseconds in [min, max] */
  K_DURATION_S,  /* int64_t seconds, at most max ms */
  K_STRING,      /* const char * */
  K_PATH,        /* const char *, relative to the file's folder */
  K_STRS         /* gql_cfg_strs (a list, or one string) */
} cfg_key_type;

typedef void (*cfg_key_fn)(cfg_ctx *c, const ynode *v, void *field,
                           const char *what);

typedef struct cfg_key {
  const char *name; /* NULL ends a table */
  uint8_t type;     /* cfg_key_type */
  size_t offset;    /* of the field in the section's struct */
  uint64_t min, max;
  const struct cfg_key *sub; /* K_SECTION */
  cfg_key_fn fn;             /* K_CUSTOM */
} cfg_key;

/* Decodes map `n` into the struct at `base` by table `t` (unknown and
 * repeated keys are errors). `section` names it in messages ("" at the
 * top). */
void cfg_decode_map(cfg_ctx *c, const ynode *n, void *base, const cfg_key *t,
                    const char *section);
void cfg_decode_value(cfg_ctx *c, const ynode *v, void *field, const cfg_key *k,
                      const char *what);

/* Scalars; NULL / false after reporting an error about `what`. */
const char *cfg_string(cfg_ctx *c, const ynode *n, const char *what);
bool cfg_bool(cfg_ctx *c, const ynode *n, const char *what, bool *out);
bool cfg_strs(cfg_ctx *c, const ynode *n, const char *what, gql_cfg_strs *out);
bool cfg_duration_ms(cfg_ctx *c, const ynode *n, const char *what, uint64_t min,
                     uint64_t max, uint64_t *out);

/* An HTTP header name (token characters), lower-cased; NULL after an
 * error. A header value: no CR, LF or NUL. */
const char *cfg_header_name(cfg_ctx *c, const ynode *n, const char *what);
const char *cfg_header_value(cfg_ctx *c, const ynode *n, const char *what);

/* The sections with decoders of their own. */
void gql_cfg_decode_headers(cfg_ctx *c, const ynode *v, void *field,
                            const char *what);
void gql_cfg_decode_cors(cfg_ctx *c, const ynode *v, void *field,
                         const char *what);
void gql_cfg_decode_jwt(cfg_ctx *c, const ynode *v, void *field,
                        const char *what);

/* keys_persisted.c: apq, persisted_queries, demand_control, redis (its
 * offsets from gql_settings.redis_url). */
extern const cfg_key gql_cfg_apq_keys[];
extern const cfg_key gql_cfg_persisted_keys[];
extern const cfg_key gql_cfg_demand_control_keys[];
extern const cfg_key gql_cfg_redis_keys[];
extern const cfg_key gql_cfg_graphiql_keys[]; /* from gql_settings.graphiql */
/* keys_subscription.c: subscription.mode (from gql_cfg_subscription.mode) */
extern const cfg_key gql_cfg_subscription_mode_keys[];

#endif
