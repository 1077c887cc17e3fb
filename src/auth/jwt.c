/* Verifying a compact JWS against the verifier's key sets. */
#include "internal.h"

#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>

const char *gql_jwt_status_text(int status) {
  static const char *const texts[] = {
#define GQL_JWT_STATUS_TEXT_(name, text) text,
      GQL_JWT_STATUS_MAP(GQL_JWT_STATUS_TEXT_)
#undef GQL_JWT_STATUS_TEXT_
  };
  return status >= 0 && (size_t)status < GQL_ARRAY_LEN(texts) ? texts[status]
                                                              : "unknown";
}

static char **copy_strs(const char *const *s, uint32_t n) {
  char **out = calloc(n + 1, sizeof(char *));
  for (uint32_t i = 0; out && i < n; i++)
    if (!(out[i] = strdup(s[i]))) {
      while (i--)
        free(out[i]);
      free(out);
      return NULL;
    }
  return out;
}

static void free_strs(char **s, uint32_t n) {
  for (uint32_t i = 0; s && i < n; i++)
    free(s[i]);
  free(s);
}

gql_jwt_verifier *gql_jwt_verifier_new(int64_t leeway_s) {
  static _Atomic uint64_t next_id = 1;
  gql_jwt_verifier *v = calloc(1, sizeof *v);
  if (v) {
    v->leeway = leeway_s < 0 ? 60 : leeway_s;
    v->id = atomic_fetch_add(&next_id, 1);
  }
  return v;
}

int gql_jwt_verifier_add(gql_jwt_verifier *v, gql_jwks *jwks,
                         const gql_jwt_accept *a) {
  jwt_source *grown = realloc(v->sources, sizeof(jwt_source) * (v->count + 1));
  if (!grown) {
    gql_jwks_free(jwks);
    return GQL_ENOMEM;
  }
  v->sources = grown;
  jwt_source s = {.jwks = jwks};
  if (a) {
    s.issuers = a->nissuers ? copy_strs(a->issuers, a->nissuers) : NULL;
    s.nissuers = s.issuers ? a->nissuers : 0;
    s.audiences = a->naudiences ? copy_strs(a->audiences, a->naudiences) : NULL;
    s.naudiences = s.audiences ? a->naudiences : 0;
    s.algorithms = a->algorithms;
    if (s.nissuers != a->nissuers || s.naudiences != a->naudiences) {
      free_strs(s.issuers, s.nissuers);
      free_strs(s.audiences, s.naudiences);
      gql_jwks_free(jwks);
      return GQL_ENOMEM;
    }
  }
  v->sources[v->count++] = s;
  return 0;
}

void gql_jwt_verifier_free(gql_jwt_verifier *v) {
  if (!v)
    return;
  for (uint32_t i = 0; i < v->count; i++) {
    gql_jwks_free(v->sources[i].jwks);
    free_strs(v->sources[i].issuers, v->sources[i].nissuers);
    free_strs(v->sources[i].audiences, v->sources[i].naudiences);
  }
  free(v->sources);
  free(v);
}

/* ------------------------------------------------------------ signatures */

static const EVP_MD *alg_md(int alg) {
  switch (alg) {
  case GQL_JWT_HS256:
  case GQL_JWT_RS256:
  case GQL_JWT_PS256:
  case GQL_JWT_ES256:
    return EVP_sha256();
  case GQL_JWT_HS384:
  case GQL_JWT_RS384:
  case GQL_JWT_PS384:
  case GQL_JWT_ES384:
    return EVP_sha384();
  default:
    return EVP_sha512();
  }
}

/* The key types an algorithm takes. */
static bool alg_fits(int alg, const jwk *k) {
  if (k->alg >= 0 && k->alg != alg)
    return false;
  switch (alg) {
  case GQL_JWT_HS256:
  case GQL_JWT_HS384:
  case GQL_JWT_HS512:
    return k->kty == KTY_OCT;
  case GQL_JWT_ES256:
    return k->kty == KTY_EC_P256;
  case GQL_JWT_ES384:
    return k->kty == KTY_EC_P384;
  default:
    return k->kty == KTY_RSA;
  }
}

static bool verify_hmac(int alg, const jwk *k, const unsigned char *data,
                        size_t len, const unsigned char *sig, size_t siglen) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int maclen = 0;
  if (!HMAC(alg_md(alg), k->secret, (int)k->secret_len, data, len, mac,
            &maclen))
    return false;
  return maclen == siglen && CRYPTO_memcmp(mac, sig, siglen) == 0;
}

/* JWS carries ECDSA signatures as R || S (RFC 7518 §3.4); OpenSSL takes
 * DER. */
static unsigned char *ecdsa_der(const unsigned char *sig, size_t siglen,
                                size_t half, size_t *derlen) {
  if (siglen != 2 * half)
    return NULL;
  ECDSA_SIG *es = ECDSA_SIG_new();
  BIGNUM *r = BN_bin2bn(sig, (int)half, NULL);
  BIGNUM *s = BN_bin2bn(sig + half, (int)half, NULL);
  unsigned char *der = NULL;
  if (es && r && s && ECDSA_SIG_set0(es, r, s)) {
    r = s = NULL; /* owned by es */
    int n = i2d_ECDSA_SIG(es, &der);
    *derlen = n > 0 ? (size_t)n : 0;
    if (n <= 0)
      der = NULL;
  }
  BN_free(r);
  BN_free(s);
  ECDSA_SIG_free(es);
  return der;
}

static bool verify_pkey(int alg, const jwk *k, const unsigned char *data,
                        size_t len, const unsigned char *sig, size_t siglen) {
  unsigned char *der = NULL;
  if (k->kty == KTY_EC_P256 || k->kty == KTY_EC_P384) {
    size_t half = k->kty == KTY_EC_P256 ? 32 : 48;
    if (!(der = ecdsa_der(sig, siglen, half, &siglen)))
      return false;
    sig = der;
  }
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX *pctx = NULL;
  bool ok =
      ctx && EVP_DigestVerifyInit(ctx, &pctx, alg_md(alg), NULL, k->pkey) == 1;
  if (ok && alg >= GQL_JWT_PS256 && alg <= GQL_JWT_PS512)
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) > 0 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) > 0;
  ok = ok && EVP_DigestVerify(ctx, sig, siglen, data, len) == 1;
  EVP_MD_CTX_free(ctx);
  OPENSSL_free(der);
  return ok;
}

/* ---------------------------------------------------------------- claims */

static bool str_in(gql_str s, char *const *list, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (gql_str_eq_cstr(s, list[i]))
      return true;
  return false;
}

/* A NumericDate member: absent (true, *has false), a number, or malformed
 * (false). */
static bool numeric_date(const gql_json_value *claims, const char *name,
                         bool *has, double *out) {
  const gql_json_value *v = gql_json_get(claims, gql_cstr(name));
  *has = v != NULL;
  if (!v)
    return true;
  if (v->kind != GQL_JSON_NUMBER)
    return false;
  *out = v->number.d;
  return true;
}

static int check_claims(const gql_jwt_verifier *v, const jwt_source *src,
                        const gql_json_value *c, int64_t now,
                        int64_t *expires) {
  if (!c || c->kind != GQL_JSON_OBJECT)
    return GQL_JWT_MALFORMED;
  bool has_exp, has_nbf, has_iat;
  double exp = 0, nbf = 0, iat = 0;
  if (!numeric_date(c, "exp", &has_exp, &exp) ||
      !numeric_date(c, "nbf", &has_nbf, &nbf) ||
      !numeric_date(c, "iat", &has_iat, &iat))
    return GQL_JWT_MALFORMED;
  double t = (double)now, leeway = (double)v->leeway;
  if (has_exp && t > exp + leeway)
    return GQL_JWT_EXPIRED;
  if ((has_nbf && t + leeway < nbf) || (has_iat && t + leeway < iat))
    return GQL_JWT_NOT_YET_VALID;
  /* a token without exp is cached for at most an hour */
  *expires = has_exp ? (int64_t)(exp + leeway) : now + 3600;
  if (src->nissuers) {
    const gql_json_value *iss = gql_json_get(c, GQL_STR("iss"));
    if (!iss || iss->kind != GQL_JSON_STRING ||
        !str_in(iss->string, src->issuers, src->nissuers))
      return GQL_JWT_BAD_ISSUER;
  }
  if (src->naudiences) {
    const gql_json_value *aud = gql_json_get(c, GQL_STR("aud"));
    bool ok = false;
    if (aud && aud->kind == GQL_JSON_STRING)
      ok = str_in(aud->string, src->audiences, src->naudiences);
    for (size_t i = 0;
         aud && aud->kind == GQL_JSON_ARRAY && !ok && i < aud->array.count; i++)
      ok = aud->array.items[i].kind == GQL_JSON_STRING &&
           str_in(aud->array.items[i].string, src->audiences, src->naudiences);
    if (!ok)
      return GQL_JWT_BAD_AUDIENCE;
  }
  return GQL_JWT_OK;
}

/* ---------------------------------------------------------------- verify */

/* A base64url part decoded into the arena; NULL when it is not one. */
static unsigned char *part(gql_arena *a, const char *s, size_t len,
                           size_t *out_len) {
  unsigned char *buf = gql_arena_alloc(a, len * 3 / 4 + 2);
  long n = buf ? gql_base64url_decode(s, len, buf) : -1;
  if (n < 0)
    return NULL;
  buf[n] = 0;
  *out_len = (size_t)n;
  return buf;
}

typedef struct jws {
  int alg;
  gql_str kid; /* ptr NULL: none */
  const unsigned char *signed_part;
  size_t signed_len;
  unsigned char *sig;
  size_t sig_len;
  char *payload;
  size_t payload_len;
} jws;

static int split(const char *t, size_t len, gql_arena *a, jws *j) {
  const char *d1 = memchr(t, '.', len);
  const char *d2 = d1 ? memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - t)) : NULL;
  if (!d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - t)) || d1 == t ||
      d2 + 1 == t + len || d2 == d1 + 1)
    return GQL_JWT_MALFORMED;
  size_t hlen;
  char *header = (char *)part(a, t, (size_t)(d1 - t), &hlen);
  j->payload = (char *)part(a, d1 + 1, (size_t)(d2 - d1 - 1), &j->payload_len);
  j->sig = part(a, d2 + 1, len - (size_t)(d2 + 1 - t), &j->sig_len);
  if (!header || !j->payload || !j->sig)
    return GQL_JWT_MALFORMED;
  j->signed_part = (const unsigned char *)t;
  j->signed_len = (size_t)(d2 - t);
  gql_json_value *h = NULL;
  gql_json_options jo = {.max_depth = 8};
  if (gql_json_parse(a, header, hlen, &jo, &h, NULL) ||
      h->kind != GQL_JSON_OBJECT)
    return GQL_JWT_MALFORMED;
  const gql_json_value *alg = gql_json_get(h, GQL_STR("alg"));
  const gql_json_value *kid = gql_json_get(h, GQL_STR("kid"));
  if (!alg || alg->kind != GQL_JSON_STRING ||
      (kid && kid->kind != GQL_JSON_STRING))
    return GQL_JWT_MALFORMED;
  /* "crit" names extensions we would have to understand (RFC 7515 §4.1.11) */
  if (gql_json_get(h, GQL_STR("crit")) ||
      (j->alg = gql_jwt_alg_from_name(alg->string)) < 0)
    return GQL_JWT_UNSUPPORTED_ALG;
  j->kid = kid ? kid->string : (gql_str){NULL, 0};
  return GQL_JWT_OK;
}

/* Tries every key that fits; *src the set whose key verified. */
static int check_signature(const gql_jwt_verifier *v, const jws *j,
                           const jwt_source **src) {
  bool kid_seen = false, candidate = false;
  for (uint32_t s = 0; s < v->count; s++) {
    const jwt_source *x = &v->sources[s];
    if (x->algorithms && !(x->algorithms & (1u << j->alg)))
      continue;
    for (uint32_t i = 0; i < x->jwks->count; i++) {
      const jwk *k = &x->jwks->keys[i];
      if (j->kid.ptr) {
        if (!k->kid || !gql_str_eq_cstr(j->kid, k->kid))
          continue;
        kid_seen = true;
      }
      if (!alg_fits(j->alg, k))
        continue;
      candidate = true;
      bool ok = k->kty == KTY_OCT
                    ? verify_hmac(j->alg, k, j->signed_part, j->signed_len,
                                  j->sig, j->sig_len)
                    : verify_pkey(j->alg, k, j->signed_part, j->signed_len,
                                  j->sig, j->sig_len);
      if (ok) {
        *src = x;
        return GQL_JWT_OK;
      }
    }
  }
  if (candidate)
    return GQL_JWT_BAD_SIGNATURE;
  return j->kid.ptr && !kid_seen ? GQL_JWT_UNKNOWN_KID : GQL_JWT_NO_KEY;
}

static bool parse_claims(gql_arena *a, const char *text, size_t len,
                         gql_jwt_result *r) {
  gql_json_value *c = NULL;
  gql_json_options jo = {.max_depth = 32};
  if (gql_json_parse(a, text, len, &jo, &c, NULL) || c->kind != GQL_JSON_OBJECT)
    return false;
  r->claims = c;
  r->claims_json = (gql_str){text, len};
  return true;
}

void gql_jwt_verify(const gql_jwt_verifier *v, gql_jwt_cache *cache,
                    const char *token, size_t len, int64_t now,
                    gql_arena *arena, gql_jwt_result *r) {
  memset(r, 0, sizeof *r);
  if (len == 0 || len > GQL_JWT_MAX_BYTES) {
    r->status = GQL_JWT_MALFORMED;
    return;
  }
  gql_str text;
  if (cache && gql_jwt_cache_get(cache, v->id, token, len, now, arena, &text)) {
    r->status =
        parse_claims(arena, text.ptr, text.len, r) ? GQL_JWT_OK : GQL_JWT_NOMEM;
    r->cached = true;
    return;
  }
  jws j = {0};
  const jwt_source *src = NULL;
  int64_t expires = 0;
  int st = split(token, len, arena, &j);
  if (st == GQL_JWT_OK)
    st = check_signature(v, &j, &src);
  if (st == GQL_JWT_OK)
    st = parse_claims(arena, j.payload, j.payload_len, r)
             ? check_claims(v, src, r->claims, now, &expires)
             : GQL_JWT_MALFORMED;
  r->status = st;
  if (st != GQL_JWT_OK) {
    r->claims = NULL;
    r->claims_json = (gql_str){NULL, 0};
    return;
  }
  if (cache)
    gql_jwt_cache_put(cache, v->id, token, len, r->claims_json, expires);
}

int gql_jwt_from_header(gql_str value, const char *prefix, gql_str *token) {
  size_t plen = strlen(prefix);
  const char *p = value.ptr, *end = value.ptr + value.len;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (plen) {
    if ((size_t)(end - p) < plen || strncasecmp(p, prefix, plen) != 0 ||
        (p + plen < end && p[plen] != ' ' && p[plen] != '\t'))
      return 0;
    p += plen;
  }
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  if (p == end)
    return -1;
  *token = (gql_str){p, (size_t)(end - p)};
  return 1;
}
