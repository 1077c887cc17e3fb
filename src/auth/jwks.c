/* JWK Sets → OpenSSL keys, built from the JWK fields with OSSL_PARAM. */
#include "internal.h"

#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <stdio.h>
#include <stdlib.h>

static int b64_value(unsigned char ch) {
  if (ch >= 'A' && ch <= 'Z')
    return ch - 'A';
  if (ch >= 'a' && ch <= 'z')
    return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9')
    return ch - '0' + 52;
  if (ch == '-')
    return 62;
  if (ch == '_')
    return 63;
  return -1;
}

long gql_base64url_decode(const char *in, size_t len, unsigned char *out) {
  if (len % 4 == 1)
    return -1;
  size_t o = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len; i++) {
    int v = b64_value((unsigned char)in[i]);
    if (v < 0)
      return -1;
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (unsigned char)(acc >> bits);
    }
  }
  /* the unused low bits of the last character must be zero (canonical) */
  if (bits && (acc & ((1u << bits) - 1)))
    return -1;
  return (long)o;
}

const char *gql_jwt_alg_name(gql_jwt_alg alg) {
  static const char *const names[] = {
#define GQL_JWT_ALG_NAME_(name) #name,
      GQL_JWT_ALG_MAP(GQL_JWT_ALG_NAME_)
#undef GQL_JWT_ALG_NAME_
  };
  return (unsigned)alg < GQL_JWT_NALGS ? names[alg] : "?";
}

int gql_jwt_alg_from_name(gql_str name) {
  for (int a = 0; a < GQL_JWT_NALGS; a++)
    if (gql_str_eq_cstr(name, gql_jwt_alg_name((gql_jwt_alg)a)))
      return a;
  return -1;
}

/* A base64url member of `obj` decoded into a malloc'ed buffer. */
static unsigned char *member_bytes(const gql_json_value *obj, const char *key,
                                   size_t *len) {
  const gql_json_value *v = gql_json_get(obj, gql_cstr(key));
  if (!v || v->kind != GQL_JSON_STRING || v->string.len == 0 ||
      v->string.len > 8192)
    return NULL;
  unsigned char *buf = malloc(v->string.len * 3 / 4 + 2);
  long n = buf ? gql_base64url_decode(v->string.ptr, v->string.len, buf) : -1;
  if (n <= 0) {
    free(buf);
    return NULL;
  }
  *len = (size_t)n;
  return buf;
}

/* A string member as a slice (not NUL-terminated); ptr NULL when absent. */
static gql_str member_str(const gql_json_value *obj, const char *key) {
  const gql_json_value *v = gql_json_get(obj, gql_cstr(key));
  return v && v->kind == GQL_JSON_STRING ? v->string : (gql_str){NULL, 0};
}

static EVP_PKEY *from_params(const char *type, OSSL_PARAM_BLD *bld) {
  OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
  EVP_PKEY *pkey = NULL;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
      EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
    pkey = NULL;
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  return pkey;
}

static const char *rsa_key(const gql_json_value *o, jwk *k) {
  size_t nlen = 0, elen = 0;
  unsigned char *n = member_bytes(o, "n", &nlen);
  unsigned char *e = member_bytes(o, "e", &elen);
  BIGNUM *bn = n ? BN_bin2bn(n, (int)nlen, NULL) : NULL;
  BIGNUM *be = e ? BN_bin2bn(e, (int)elen, NULL) : NULL;
  OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
  const char *why = NULL;
  if (!n || !e)
    why = "an RSA key needs n and e (base64url)";
  else if (!bn || !be || !bld ||
           !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) ||
           !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be) ||
           !(k->pkey = from_params("RSA", bld)))
    why = "an RSA key OpenSSL does not take";
  else if (EVP_PKEY_get_bits(k->pkey) < 2048)
    why = "an RSA key under 2048 bits (RFC 7518 §3.3)";
  k->kty = KTY_RSA;
  OSSL_PARAM_BLD_free(bld);
  BN_free(bn);
  BN_free(be);
  free(n);
  free(e);
  return why;
}

static const char *ec_key(const gql_json_value *o, jwk *k) {
  gql_str crv = member_str(o, "crv");
  size_t size;
  const char *group;
  if (gql_str_eq_cstr(crv, "P-256")) {
    size = 32;
    group = "prime256v1";
    k->kty = KTY_EC_P256;
  } else if (gql_str_eq_cstr(crv, "P-384")) {
    size = 48;
    group = "secp384r1";
    k->kty = KTY_EC_P384;
  } else
    return "an EC key needs crv P-256 or P-384";
  size_t xlen = 0, ylen = 0;
  unsigned char *x = member_bytes(o, "x", &xlen);
  unsigned char *y = member_bytes(o, "y", &ylen);
  unsigned char pub[1 + 2 * 48];
  const char *why = NULL;
  OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
  if (!x || !y || xlen != size || ylen != size)
    why = "an EC key needs x and y of the curve's size (base64url)";
  else {
    pub[0] = 0x04; /* uncompressed point */
    memcpy(pub + 1, x, size);
    memcpy(pub + 1 + size, y, size);
    if (!bld ||
        !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group,
                                         0) ||
        !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub,
                                          1 + 2 * size) ||
        !(k->pkey = from_params("EC", bld)))
      why = "an EC key OpenSSL does not take (not on the curve?)";
  }
  OSSL_PARAM_BLD_free(bld);
  free(x);
  free(y);
  return why;
}

static const char *oct_key(const gql_json_value *o, jwk *k) {
  k->kty = KTY_OCT;
  if (!(k->secret = member_bytes(o, "k", &k->secret_len)))
    return "an oct key needs k (base64url)";
  return NULL;
}

/* One JWK; *skip for keys gql has no use for. NULL or why it is broken. */
static const char *parse_key(const gql_json_value *o, jwk *k, bool *skip) {
  *skip = false;
  if (o->kind != GQL_JSON_OBJECT)
    return "a key is a JSON object";
  gql_str kty = member_str(o, "kty");
  gql_str use = member_str(o, "use");
  const gql_json_value *ops = gql_json_get(o, GQL_STR("key_ops"));
  const gql_json_value *alg = gql_json_get(o, GQL_STR("alg"));
  const gql_json_value *kid = gql_json_get(o, GQL_STR("kid"));
  k->alg = -1;
  if (!kty.ptr)
    return "a key needs kty";
  if (use.ptr && !gql_str_eq_cstr(use, "sig")) {
    *skip = true; /* an encryption key */
    return NULL;
  }
  if (ops && ops->kind == GQL_JSON_ARRAY) {
    bool verify = false;
    for (size_t i = 0; i < ops->array.count; i++)
      verify =
          verify || (ops->array.items[i].kind == GQL_JSON_STRING &&
                     gql_str_eq_cstr(ops->array.items[i].string, "verify"));
    if (!verify) {
      *skip = true;
      return NULL;
    }
  }
  if (alg && alg->kind == GQL_JSON_STRING &&
      (k->alg = gql_jwt_alg_from_name(alg->string)) < 0) {
    *skip = true; /* EdDSA, RSA-OAEP...: not ours */
    return NULL;
  }
  if (kid && kid->kind == GQL_JSON_STRING &&
      !(k->kid = strndup(kid->string.ptr, kid->string.len)))
    return "out of memory";
  if (gql_str_eq_cstr(kty, "RSA"))
    return rsa_key(o, k);
  if (gql_str_eq_cstr(kty, "EC"))
    return ec_key(o, k);
  if (gql_str_eq_cstr(kty, "oct"))
    return oct_key(o, k);
  *skip = true; /* OKP and others */
  return NULL;
}

static void key_free(jwk *k) {
  EVP_PKEY_free(k->pkey);
  if (k->secret)
    OPENSSL_cleanse(k->secret, k->secret_len);
  free(k->secret);
  free(k->kid);
}

void gql_jwks_free(gql_jwks *s) {
  if (!s)
    return;
  for (uint32_t i = 0; i < s->count; i++)
    key_free(&s->keys[i]);
  free(s->keys);
  free(s);
}

uint32_t gql_jwks_count(const gql_jwks *s) {
  return s ? s->count : 0;
}

int gql_jwks_parse(const char *json, size_t len, gql_jwks **out, char *why,
                   size_t n) {
  *out = NULL;
  if (len > GQL_JWKS_MAX_BYTES) {
    snprintf(why, n, "larger than %zu bytes", GQL_JWKS_MAX_BYTES);
    return GQL_EINVAL;
  }
  gql_arena *a = gql_arena_new(NULL);
  gql_jwks *s = calloc(1, sizeof *s);
  if (!a || !s) {
    gql_arena_free(a);
    free(s);
    return GQL_ENOMEM;
  }
  gql_json_value *root = NULL;
  gql_json_error err;
  gql_json_options jo = {.max_depth = 16, .max_size = GQL_JWKS_MAX_BYTES};
  int rc = gql_json_parse(a, json, len, &jo, &root, &err);
  const gql_json_value *keys = NULL, *one = NULL;
  size_t count = 0;
  if (rc == 0) {
    keys = gql_json_get(root, GQL_STR("keys"));
    if (keys && keys->kind == GQL_JSON_ARRAY)
      count = keys->array.count;
    else if (!keys && gql_json_get(root, GQL_STR("kty")))
      one = root, count = 1;
  }
  if (rc == GQL_ENOMEM) {
    snprintf(why, n, "out of memory");
  } else if (rc) {
    snprintf(why, n, "not JSON: %s", err.message);
    rc = GQL_EINVAL;
  } else if (!keys && !one) {
    snprintf(why, n, "not a JWK Set: no \"keys\" array");
    rc = GQL_EINVAL;
  } else if (count > GQL_JWKS_MAX_KEYS) {
    snprintf(why, n, "more than %u keys", GQL_JWKS_MAX_KEYS);
    rc = GQL_EINVAL;
  } else if (!(s->keys = calloc(count + 1, sizeof(jwk)))) {
    rc = GQL_ENOMEM;
  }
  for (size_t i = 0; rc == 0 && i < count; i++) {
    jwk *k = &s->keys[s->count];
    bool skip;
    const char *bad = parse_key(one ? one : &keys->array.items[i], k, &skip);
    if (bad) {
      snprintf(why, n, "key %zu: %s", i, bad);
      rc = GQL_EINVAL;
    }
    if (bad || skip)
      key_free(k), memset(k, 0, sizeof *k);
    else
      s->count++;
  }
  if (rc == 0 && !s->count) {
    snprintf(why, n, "no signature key gql can use");
    rc = GQL_EINVAL;
  }
  gql_arena_free(a);
  if (rc) {
    gql_jwks_free(s);
    return rc;
  }
  *out = s;
  return 0;
}
