/* The persisted-operation decision (see persisted.h), in Apollo Router's
 * order: the persisted-documents layer first (an id from documentId or the
 * APQ hash, looked up in the manifest), then the APQ layer (register with
 * a hash that must match, or look the hash up), then the safelist for a
 * freeform body. */
#include "persisted.h"

#include <openssl/evp.h>
#include <stdio.h>

void gql_pq_sha256_hex(const char *s, size_t n, char out[65]) {
  static const char hex[] = "0123456789abcdef";
  unsigned char md[32];
  unsigned int len = 0;
  if (EVP_Digest(s, n, md, &len, EVP_sha256(), NULL) != 1 || len != 32) {
    memset(out, '0', 64); /* never equal to a real hash of anything */
    out[64] = 0;
    return;
  }
  for (int i = 0; i < 32; i++) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  out[64] = 0;
}

/* ---------------------------------------------------------------- errors */

static const struct {
  const char *code;
  int status;
  bool no_cache;
  const char *message;
} errors[] = {{"", 200, false, ""},
#define GQL_PQ_ERROR_ROW_(n, c, s, nc, m) {c, s, nc, m},
              GQL_PQ_ERRORS(GQL_PQ_ERROR_ROW_)
#undef GQL_PQ_ERROR_ROW_
};

const char *gql_pq_error_code(gql_pq_error e) {
  return errors[e].code;
}
int gql_pq_error_status(gql_pq_error e) {
  return errors[e].status;
}
bool gql_pq_error_no_cache(gql_pq_error e) {
  return errors[e].no_cache;
}

static int decide_error(gql_pq_decision *d, gql_pq_error e) {
  d->action = GQL_PQ_ERROR;
  d->error = e;
  d->message = errors[e].message;
  return 0;
}

static int not_in_list(gql_pq_decision *d, gql_str id, gql_arena *arena) {
  decide_error(d, GQL_PQ_ENOT_IN_LIST);
  /* The id as the client sent it, shortened: it is echoed in a JSON
   * string (escaped by the writer), never interpreted. */
  int n = (int)(id.len > 200 ? 200 : id.len);
  char *msg = gql_arena_sprintf(arena, errors[GQL_PQ_ENOT_IN_LIST].message,
                                gql_arena_sprintf(arena, "%.*s", n, id.ptr));
  if (!msg)
    return GQL_ENOMEM;
  d->message = msg;
  return 0;
}

void gql_pq_error_json(const gql_pq_decision *d, gql_buf *out) {
  gql_buf_puts(out, "{\"errors\":[{\"message\":");
  gql_json_write_string(out, gql_cstr(d->message ? d->message : ""));
  gql_buf_puts(out, ",\"extensions\":{\"code\":\"");
  gql_buf_puts(out, errors[d->error].code);
  gql_buf_puts(out, "\"}}]}");
}

/* --------------------------------------------------------------- parsing */

static bool is_hex64(gql_str s) {
  if (s.len != 64)
    return false;
  for (size_t i = 0; i < 64; i++) {
    char c = s.ptr[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
          (c >= 'A' && c <= 'F')))
      return false;
  }
  return true;
}

static void lower_key(gql_str s, char key[65]) {
  for (size_t i = 0; i < 64; i++) {
    char c = s.ptr[i];
    key[i] = c >= 'A' && c <= 'F' ? (char)(c - 'A' + 'a') : c;
  }
  key[64] = 0;
}

typedef struct apq_ext {
  bool present; /* extensions.persistedQuery, not null */
  bool valid;
  gql_pq_error error;
  gql_str hash;
} apq_ext;

/* extensions.persistedQuery: {"version": 1, "sha256Hash": "<64 hex>"}. */
static apq_ext read_apq(const gql_json_value *ext) {
  apq_ext a = {0};
  if (!ext || ext->kind != GQL_JSON_OBJECT)
    return a;
  const gql_json_value *pq = gql_json_get(ext, GQL_STR("persistedQuery"));
  if (!pq || pq->kind == GQL_JSON_NULL)
    return a;
  a.present = true;
  if (pq->kind != GQL_JSON_OBJECT) {
    a.error = GQL_PQ_EBAD_EXTENSION;
    return a;
  }
  /* Apollo Server: any version but 1 is "Unsupported persisted query
   * version"; then the hash must be one. */
  const gql_json_value *ver = gql_json_get(pq, GQL_STR("version"));
  const gql_json_value *hash = gql_json_get(pq, GQL_STR("sha256Hash"));
  if (!ver || ver->kind != GQL_JSON_NUMBER || !ver->is_int ||
      ver->number.i != 1) {
    a.error = GQL_PQ_EBAD_VERSION;
    return a;
  }
  if (!hash || hash->kind != GQL_JSON_STRING || !is_hex64(hash->string)) {
    a.error = GQL_PQ_EBAD_HASH;
    return a;
  }
  a.valid = true;
  a.hash = hash->string;
  return a;
}

/* -------------------------------------------------------------- decision */

static int run(gql_pq_decision *d, gql_str query) {
  d->action = GQL_PQ_RUN;
  d->query = query;
  return 0;
}

/* The APQ layer, reached when the persisted-documents layer did not
 * resolve the request. */
static int apq_layer(const gql_pq_config *cfg, const gql_pq_request *req,
                     const apq_ext *a, gql_pq_decision *d) {
  if (a->present && !cfg->apq)
    return decide_error(d, GQL_PQ_ENOT_SUPPORTED);
  if (a->present && !a->valid)
    return decide_error(d, a->error);
  if (!a->present)
    return 1; /* not an APQ request: the freeform path */
  lower_key(a->hash, d->key);
  if (req->has_query) {
    char computed[65];
    gql_pq_sha256_hex(req->query.ptr, req->query.len, computed);
    if (memcmp(computed, d->key, 64) != 0)
      return decide_error(d, GQL_PQ_EHASH_MISMATCH);
    d->register_apq = true;
    return run(d, req->query);
  }
  d->action = GQL_PQ_LOOKUP;
  d->lookup_apq = true;
  return 0;
}

int gql_pq_decide(const gql_pq_config *cfg, const gql_pq_request *req,
                  gql_arena *arena, gql_pq_decision *d) {
  *d = (gql_pq_decision){0};
  apq_ext a = read_apq(req->extensions);
  if (req->has_document_id &&
      (!req->document_id.len || req->document_id.len > 1024))
    return decide_error(d, GQL_PQ_EBAD_ID);
  bool pq_layer = cfg->manifest || cfg->safelist != GQL_PQ_SAFELIST_OFF;
  bool apq_with_pq = cfg->apq && cfg->safelist == GQL_PQ_SAFELIST_OFF;

  if (pq_layer) {
    /* The id: documentId, else the APQ hash (as Hive Router and Apollo
     * Router take it). */
    bool has_id = req->has_document_id || (a.present && a.valid);
    gql_str id = req->has_document_id ? req->document_id : a.hash;
    if (a.present && !a.valid && !req->has_document_id)
      return decide_error(d, cfg->apq ? a.error : GQL_PQ_ENOT_SUPPORTED);
    if (has_id && req->has_query) {
      /* Both an id and a body: only an APQ registration, and only when
       * APQ works beside persisted documents (no safelisting). */
      if (!(a.present && !req->has_document_id && apq_with_pq))
        return decide_error(d, GQL_PQ_EID_AND_BODY);
    } else if (has_id) {
      gql_str body;
      if (gql_pq_manifest_get(cfg->manifest, id, &body)) {
        d->from_manifest = true;
        return run(d, body);
      }
      if (!apq_with_pq)
        return not_in_list(d, id, arena);
      if (req->has_document_id && !a.present) {
        if (!is_hex64(id))
          return not_in_list(d, id, arena);
        lower_key(id, d->key);
        d->action = GQL_PQ_LOOKUP;
        return 0;
      }
    } else if (cfg->safelist == GQL_PQ_SAFELIST_REQUIRE_ID) {
      return decide_error(d, GQL_PQ_EID_REQUIRED);
    }
  } else if (req->has_document_id && !a.present) {
    /* No manifest: a documentId may name an APQ registration (the same
     * id space), which is how a GET by documentId can be cached. */
    if (!cfg->apq || !is_hex64(req->document_id) || req->has_query)
      return req->has_query ? decide_error(d, GQL_PQ_EID_AND_BODY)
                            : not_in_list(d, req->document_id, arena);
    lower_key(req->document_id, d->key);
    d->action = GQL_PQ_LOOKUP;
    return 0;
  }

  int rc = apq_layer(cfg, req, &a, d);
  if (rc <= 0)
    return rc;
  if (!req->has_query) {
    d->action = GQL_PQ_NO_QUERY;
    return 0;
  }
  if (cfg->safelist == GQL_PQ_SAFELIST_ON &&
      !gql_pq_manifest_allows(cfg->manifest, req->query, arena))
    return decide_error(d, GQL_PQ_ENOT_IN_SAFELIST);
  return run(d, req->query);
}

void gql_pq_found(gql_pq_decision *d, bool found, gql_str text,
                  gql_arena *arena) {
  if (d->action != GQL_PQ_LOOKUP)
    return;
  if (found) {
    run(d, text);
    return;
  }
  if (d->lookup_apq)
    decide_error(d, GQL_PQ_ENOT_FOUND);
  else if (not_in_list(d, (gql_str){d->key, 64}, arena) < 0)
    d->message = errors[GQL_PQ_ENOT_IN_LIST].message;
}
