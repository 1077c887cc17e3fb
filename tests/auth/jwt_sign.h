/* Test and benchmark support: keys made on the spot with OpenSSL, their
 * JWKs, and tokens signed with them (the issuer's side of what src/auth
 * verifies). Nothing here is used by gql itself. */
#ifndef GQL_TESTS_JWT_SIGN_H
#define GQL_TESTS_JWT_SIGN_H

#include "auth/auth.h"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *ts_b64url(const unsigned char *d, size_t n) {
  static const char t[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  char *out = malloc(n * 4 / 3 + 4), *o = out;
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
    *o++ = t[v >> 18];
    *o++ = t[(v >> 12) & 63];
    *o++ = t[(v >> 6) & 63];
    *o++ = t[v & 63];
  }
  if (n - i == 1) {
    uint32_t v = (uint32_t)d[i] << 16;
    *o++ = t[v >> 18];
    *o++ = t[(v >> 12) & 63];
  } else if (n - i == 2) {
    uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8;
    *o++ = t[v >> 18];
    *o++ = t[(v >> 12) & 63];
    *o++ = t[(v >> 6) & 63];
  }
  *o = 0;
  return out;
}

static char *ts_b64url_str(const char *s) {
  return ts_b64url((const unsigned char *)s, strlen(s));
}

static char *ts_bn_b64(EVP_PKEY *k, const char *param, int pad) {
  BIGNUM *bn = NULL;
  if (!EVP_PKEY_get_bn_param(k, param, &bn))
    return NULL;
  int len = pad ? pad : BN_num_bytes(bn);
  unsigned char *buf = malloc((size_t)len);
  BN_bn2binpad(bn, buf, len);
  char *s = ts_b64url(buf, (size_t)len);
  free(buf);
  BN_free(bn);
  return s;
}

/* The public JWK of an RSA or EC key ({...} text, malloc'ed). kid and alg
 * may be NULL. */
static char *ts_jwk(EVP_PKEY *k, const char *kid, const char *alg) {
  char extra[200] = "";
  size_t used = 0;
  if (kid)
    used += (size_t)snprintf(extra + used, sizeof extra - used,
                             ",\"kid\":\"%s\"", kid);
  if (alg)
    snprintf(extra + used, sizeof extra - used, ",\"alg\":\"%s\"", alg);
  char *out = malloc(4096);
  if (EVP_PKEY_is_a(k, "RSA")) {
    char *n = ts_bn_b64(k, OSSL_PKEY_PARAM_RSA_N, 0);
    char *e = ts_bn_b64(k, OSSL_PKEY_PARAM_RSA_E, 0);
    snprintf(out, 4096,
             "{\"kty\":\"RSA\",\"use\":\"sig\",\"n\":\"%s\",\"e\":\"%s\"%s}", n,
             e, extra);
    free(n);
    free(e);
  } else {
    int bits = EVP_PKEY_get_bits(k);
    int size = bits == 256 ? 32 : 48;
    char *x = ts_bn_b64(k, OSSL_PKEY_PARAM_EC_PUB_X, size);
    char *y = ts_bn_b64(k, OSSL_PKEY_PARAM_EC_PUB_Y, size);
    snprintf(out, 4096,
             "{\"kty\":\"EC\",\"crv\":\"%s\",\"x\":\"%s\",\"y\":\"%s\"%s}",
             bits == 256 ? "P-256" : "P-384", x, y, extra);
    free(x);
    free(y);
  }
  return out;
}

static char *ts_jwk_oct(const char *secret, const char *kid) {
  char *k = ts_b64url_str(secret);
  char *out = malloc(strlen(k) + 200);
  sprintf(out, "{\"kty\":\"oct\",\"k\":\"%s\"%s%s%s}", k,
          kid ? ",\"kid\":\"" : "", kid ? kid : "", kid ? "\"" : "");
  free(k);
  return out;
}

static const EVP_MD *ts_md(const char *alg) {
  return strstr(alg, "256")   ? EVP_sha256()
         : strstr(alg, "384") ? EVP_sha384()
                              : EVP_sha512();
}

/* A compact JWS: header {"alg":ALG[,"kid":KID]} (or `header` when not
 * NULL), `payload` as given. HS* sign with `secret`, others with `key`. */
static char *ts_sign(const char *alg, const char *kid, const char *header,
                     const char *payload, EVP_PKEY *key, const char *secret) {
  char hbuf[256];
  if (!header) {
    if (kid)
      snprintf(hbuf, sizeof hbuf,
               "{\"alg\":\"%s\",\"typ\":\"JWT\",\"kid\":\"%s\"}", alg, kid);
    else
      snprintf(hbuf, sizeof hbuf, "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
    header = hbuf;
  }
  char *h = ts_b64url_str(header), *p = ts_b64url_str(payload);
  size_t dlen = strlen(h) + 1 + strlen(p);
  char *data = malloc(dlen + 1);
  sprintf(data, "%s.%s", h, p);
  unsigned char sig[1024];
  size_t siglen = sizeof sig;
  if (alg[0] == 'H') {
    unsigned int n = 0;
    HMAC(ts_md(alg), secret, (int)strlen(secret), (unsigned char *)data, dlen,
         sig, &n);
    siglen = n;
  } else {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    EVP_DigestSignInit(ctx, &pctx, ts_md(alg), NULL, key);
    if (alg[0] == 'P') {
      EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
      EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
    }
    EVP_DigestSign(ctx, sig, &siglen, (unsigned char *)data, dlen);
    EVP_MD_CTX_free(ctx);
    if (alg[0] == 'E') { /* DER → R || S */
      const unsigned char *q = sig;
      ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &q, (long)siglen);
      int half = strstr(alg, "256") ? 32 : 48;
      BN_bn2binpad(ECDSA_SIG_get0_r(es), sig, half);
      BN_bn2binpad(ECDSA_SIG_get0_s(es), sig + half, half);
      siglen = (size_t)(2 * half);
      ECDSA_SIG_free(es);
    }
  }
  char *s = ts_b64url(sig, siglen);
  char *tok = malloc(dlen + strlen(s) + 2);
  sprintf(tok, "%s.%s", data, s);
  free(h);
  free(p);
  free(data);
  free(s);
  return tok;
}

static EVP_PKEY *ts_key_for(const char *alg) {
  if (alg[0] == 'E')
    return EVP_EC_gen(strstr(alg, "256") ? "P-256" : "P-384");
  if (alg[0] == 'R' || alg[0] == 'P')
    return EVP_RSA_gen(2048);
  return NULL;
}

/* A verifier over one key set made of `jwk_set` text. */
static gql_jwt_verifier *
ts_verifier(const char *jwk_set, const gql_jwt_accept *accept, int64_t leeway) {
  gql_jwks *s = NULL;
  char why[200];
  if (gql_jwks_parse(jwk_set, strlen(jwk_set), &s, why, sizeof why)) {
    fprintf(stderr, "jwks: %s\n", why);
    return NULL;
  }
  gql_jwt_verifier *v = gql_jwt_verifier_new(leeway);
  if (gql_jwt_verifier_add(v, s, accept)) {
    gql_jwt_verifier_free(v);
    return NULL;
  }
  return v;
}

#endif
