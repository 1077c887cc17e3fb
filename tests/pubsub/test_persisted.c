/* The persisted-operation rules without I/O: APQ registration and lookup,
 * Apollo's errors (codes, messages, statuses), the manifest formats, and
 * safelisting with Apollo Router's normalization. */
#include "pubsub/persisted.h"

#include <criterion/criterion.h>
#include <stdio.h>

static gql_arena *arena;

static void setup(void) {
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
}

TestSuite(persisted, .init = setup, .fini = teardown);

/* The request {"query": q, "documentId": id, "extensions": ext_json}. */
static gql_pq_decision decide(const gql_pq_config *cfg, const char *query,
                              const char *id, const char *ext_json) {
  gql_pq_request req = {0};
  if (query) {
    req.has_query = true;
    req.query = gql_cstr(query);
  }
  if (id) {
    req.has_document_id = true;
    req.document_id = gql_cstr(id);
  }
  if (ext_json) {
    gql_json_value *v = NULL;
    cr_assert_eq(
        gql_json_parse(arena, ext_json, strlen(ext_json), NULL, &v, NULL), 0);
    req.extensions = v;
  }
  gql_pq_decision d;
  cr_assert_eq(gql_pq_decide(cfg, &req, arena, &d), 0);
  return d;
}

static const char *apq_ext(const char *hash) {
  return gql_arena_sprintf(
      arena, "{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"%s\"}}",
      hash);
}

static const char *hash_of(const char *s) {
  char *h = gql_arena_alloc(arena, 65);
  gql_pq_sha256_hex(s, strlen(s), h);
  return h;
}

static void assert_error(gql_pq_decision d, gql_pq_error e, const char *code,
                         int status) {
  cr_assert_eq(d.action, GQL_PQ_ERROR, "action %d, not an error", d.action);
  cr_assert_eq(d.error, e, "error %d, expected %d", d.error, e);
  cr_assert_str_eq(gql_pq_error_code(d.error), code);
  cr_assert_eq(gql_pq_error_status(d.error), status);
}

Test(persisted, sha256_is_the_standard_digest) {
  char h[65];
  gql_pq_sha256_hex("", 0, h);
  cr_assert_str_eq(
      h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  /* Apollo's documentation example: the hash of {__typename}. */
  gql_pq_sha256_hex("{__typename}", 12, h);
  cr_assert_str_eq(
      h, "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38");
}

/* ------------------------------------------------------------------ APQ */

Test(persisted, hash_only_is_a_lookup_and_a_miss_is_persisted_query_not_found) {
  gql_pq_config cfg = {.apq = true};
  const char *h = hash_of("{ hero { name } }");
  gql_pq_decision d = decide(&cfg, NULL, NULL, apq_ext(h));
  cr_assert_eq(d.action, GQL_PQ_LOOKUP);
  cr_assert_str_eq(d.key, h);
  gql_pq_found(&d, false, (gql_str){0}, arena);
  assert_error(d, GQL_PQ_ENOT_FOUND, "PERSISTED_QUERY_NOT_FOUND", 200);
  cr_assert_str_eq(d.message, "PersistedQueryNotFound");
  cr_assert(gql_pq_error_no_cache(d.error));
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_pq_error_json(&d, &b);
  cr_assert_str_eq(gql_buf_cstr(&b),
                   "{\"errors\":[{\"message\":\"PersistedQueryNotFound\","
                   "\"extensions\":{\"code\":\"PERSISTED_QUERY_NOT_FOUND\"}}]"
                   "}");
  gql_buf_free(&b);
}

Test(persisted, a_lookup_hit_runs_the_stored_text) {
  gql_pq_config cfg = {.apq = true};
  const char *q = "{ hero { name } }";
  gql_pq_decision d = decide(&cfg, NULL, NULL, apq_ext(hash_of(q)));
  gql_pq_found(&d, true, gql_cstr(q), arena);
  cr_assert_eq(d.action, GQL_PQ_RUN);
  cr_assert(gql_str_eq_cstr(d.query, q));
  cr_assert(!d.register_apq);
}

Test(persisted, query_and_matching_hash_registers) {
  gql_pq_config cfg = {.apq = true};
  const char *q = "{ hero { name } }";
  /* Uppercase hex is the same hash; the key is lowercase. */
  char *upper = gql_arena_strndup(arena, hash_of(q), 64);
  for (char *p = upper; *p; p++)
    if (*p >= 'a' && *p <= 'f')
      *p = (char)(*p - 'a' + 'A');
  gql_pq_decision d = decide(&cfg, q, NULL, apq_ext(upper));
  cr_assert_eq(d.action, GQL_PQ_RUN);
  cr_assert(d.register_apq);
  cr_assert_str_eq(d.key, hash_of(q));
}

Test(persisted, a_hash_that_does_not_match_the_query_is_refused) {
  gql_pq_config cfg = {.apq = true};
  gql_pq_decision d = decide(&cfg, "{ hero { name } }", NULL,
                             apq_ext(hash_of("{ hero { id } }")));
  assert_error(d, GQL_PQ_EHASH_MISMATCH, "PERSISTED_QUERY_HASH_MISMATCH", 400);
  cr_assert_str_eq(d.message, "provided sha does not match query");
}

Test(persisted, apq_off_answers_persisted_query_not_supported) {
  gql_pq_config cfg = {.apq = false};
  gql_pq_decision d = decide(&cfg, NULL, NULL, apq_ext(hash_of("{a}")));
  assert_error(d, GQL_PQ_ENOT_SUPPORTED, "PERSISTED_QUERY_NOT_SUPPORTED", 200);
  cr_assert_str_eq(d.message, "PersistedQueryNotSupported");
  /* Even with the query: the extension itself is not supported. */
  d = decide(&cfg, "{a}", NULL, apq_ext(hash_of("{a}")));
  cr_assert_eq(d.error, GQL_PQ_ENOT_SUPPORTED);
}

Test(persisted, malformed_extensions_get_a_clear_error) {
  gql_pq_config cfg = {.apq = true};
  gql_pq_decision d = decide(&cfg, NULL, NULL, "{\"persistedQuery\":[]}");
  assert_error(d, GQL_PQ_EBAD_EXTENSION, "BAD_REQUEST", 400);
  d = decide(&cfg, NULL, NULL,
             "{\"persistedQuery\":{\"version\":2,\"sha256Hash\":\"ab\"}}");
  assert_error(d, GQL_PQ_EBAD_VERSION, "BAD_REQUEST", 400);
  cr_assert_str_eq(d.message, "Unsupported persisted query version");
  d = decide(&cfg, NULL, NULL, "{\"persistedQuery\":{\"sha256Hash\":\"ab\"}}");
  cr_assert_eq(d.error, GQL_PQ_EBAD_VERSION);
  d = decide(&cfg, NULL, NULL,
             "{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"abc\"}}");
  assert_error(d, GQL_PQ_EBAD_HASH, "BAD_REQUEST", 400);
  d = decide(&cfg, NULL, NULL,
             "{\"persistedQuery\":{\"version\":1,\"sha256Hash\":7}}");
  cr_assert_eq(d.error, GQL_PQ_EBAD_HASH);
  /* 64 characters, not all hex. */
  char bad[65];
  memset(bad, 'g', 64);
  bad[64] = 0;
  d = decide(&cfg, NULL, NULL, apq_ext(bad));
  cr_assert_eq(d.error, GQL_PQ_EBAD_HASH);
}

Test(persisted, no_extension_runs_the_query_or_reports_none) {
  gql_pq_config cfg = {.apq = true};
  gql_pq_decision d = decide(&cfg, "{a}", NULL, "{\"other\":1}");
  cr_assert_eq(d.action, GQL_PQ_RUN);
  cr_assert(!d.register_apq);
  d = decide(&cfg, NULL, NULL, NULL);
  cr_assert_eq(d.action, GQL_PQ_NO_QUERY);
  d = decide(&cfg, NULL, NULL, "{\"persistedQuery\":null}");
  cr_assert_eq(d.action, GQL_PQ_NO_QUERY);
}

/* ------------------------------------------------------------ manifests */

static gql_pq_manifest *manifest(const char *json) {
  gql_pq_manifest *m = NULL;
  char err[256] = "";
  int rc = gql_pq_manifest_parse(json, strlen(json), NULL, &m, err, sizeof err);
  cr_assert_eq(rc, 0, "%s", err);
  return m;
}

static const char apollo_manifest[] =
    "{\"format\":\"apollo-persisted-query-manifest\",\"version\":1,"
    "\"operations\":["
    "{\"id\":\"hero-1\",\"name\":\"Hero\",\"type\":\"query\","
    "\"body\":\"query Hero { hero { name ...F } } fragment F on Character { "
    "id }\"},"
    "{\"id\":\"add\",\"name\":\"Add\",\"type\":\"mutation\","
    "\"body\":\"mutation Add { add }\",\"clientName\":\"web\"}]}";

Test(persisted, reads_apollos_manifest_and_a_plain_map) {
  gql_pq_manifest *m = manifest(apollo_manifest);
  cr_assert_eq(gql_pq_manifest_count(m), 2);
  gql_str body;
  cr_assert(gql_pq_manifest_get(m, GQL_STR("add"), &body));
  cr_assert(gql_str_eq_cstr(body, "mutation Add { add }"));
  cr_assert(!gql_pq_manifest_get(m, GQL_STR("nope"), &body));
  gql_pq_manifest_free(m);
  m = manifest("{\"abc\":\"{ a }\",\"def\":\"query Q { b }\"}");
  cr_assert_eq(gql_pq_manifest_count(m), 2);
  cr_assert(gql_pq_manifest_get(m, GQL_STR("def"), &body));
  cr_assert(gql_str_eq_cstr(body, "query Q { b }"));
  gql_pq_manifest_free(m);
  m = manifest("{}");
  cr_assert_eq(gql_pq_manifest_count(m), 0);
  gql_pq_manifest_free(m);
}

Test(persisted, a_bad_manifest_says_where) {
  static const struct {
    const char *json, *msg;
    int rc;
  } cases[] = {
      {"[1]", "a manifest is a JSON object", GQL_EINVAL},
      {"{\"a\":", "", GQL_EJSON},
      {"{\"format\":\"other\",\"version\":1,\"operations\":[]}",
       "format:", GQL_EINVAL},
      {"{\"format\":\"apollo-persisted-query-manifest\",\"version\":2,"
       "\"operations\":[]}",
       "version: expected 1", GQL_EINVAL},
      {"{\"format\":\"apollo-persisted-query-manifest\",\"version\":1}",
       "operations: expected an array", GQL_EINVAL},
      {"{\"format\":\"apollo-persisted-query-manifest\",\"version\":1,"
       "\"operations\":[{\"id\":\"x\"}]}",
       "operations[0].body: expected a string", GQL_EINVAL},
      {"{\"format\":\"apollo-persisted-query-manifest\",\"version\":1,"
       "\"operations\":[{\"id\":\"x\",\"body\":\"{a}\",\"type\":\"q\"}]}",
       "operations[0].type", GQL_EINVAL},
      {"{\"format\":\"apollo-persisted-query-manifest\",\"version\":1,"
       "\"operations\":[{\"id\":\"\",\"body\":\"{a}\"}]}",
       "operations[0]: the id must be", GQL_EINVAL},
      {"{\"x\":\"{a}\",\"x\":\"{b}\"}", "listed twice", GQL_EINVAL},
      {"{\"x\":1}", "\"x\": expected a document", GQL_EINVAL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    gql_pq_manifest *m = NULL;
    char err[256] = "";
    int rc = gql_pq_manifest_parse(cases[i].json, strlen(cases[i].json), NULL,
                                   &m, err, sizeof err);
    cr_assert_eq(rc, cases[i].rc, "case %zu: rc %d (%s)", i, rc, err);
    cr_assert_null(m);
    cr_assert_neq(err[0], 0, "case %zu: no message", i);
    cr_assert(strstr(err, cases[i].msg), "case %zu: %s", i, err);
  }
  /* The same id twice with the same body is fine. */
  gql_pq_manifest *m = manifest("{\"x\":\"{a}\",\"x\":\"{a}\"}");
  cr_assert_eq(gql_pq_manifest_count(m), 1);
  gql_pq_manifest_free(m);
  /* Limits. */
  gql_pq_manifest_options o = {.max_operations = 1};
  char err[256];
  const char two[] = "{\"a\":\"{a}\",\"b\":\"{b}\"}";
  cr_assert_eq(
      gql_pq_manifest_parse(two, sizeof two - 1, &o, &m, err, sizeof err),
      GQL_ELIMIT);
  cr_assert(strstr(err, "more than 1"), "%s", err);
}

/* ---------------------------------------------------- persisted documents */

Test(persisted, a_document_id_runs_the_manifest_body) {
  gql_pq_manifest *m = manifest(apollo_manifest);
  gql_pq_config cfg = {.apq = true, .manifest = m};
  gql_pq_decision d = decide(&cfg, NULL, "add", NULL);
  cr_assert_eq(d.action, GQL_PQ_RUN);
  cr_assert(d.from_manifest);
  cr_assert(gql_str_eq_cstr(d.query, "mutation Add { add }"));
  /* The APQ hash is an id too (Apollo Router), and a manifest hit needs no
   * APQ: even with APQ off it runs. */
  gql_pq_config off = {.apq = false, .manifest = m};
  d = decide(&off, NULL, NULL,
             "{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"hero-1\"}}");
  cr_assert_eq(d.action, GQL_PQ_ERROR, "hero-1 is no SHA-256: not an APQ id");
  gql_pq_manifest_free(m);
}

Test(persisted, an_unknown_id_is_not_in_list_unless_apq_may_have_it) {
  gql_pq_manifest *m = manifest(apollo_manifest);
  gql_pq_config cfg = {.apq = false, .manifest = m};
  gql_pq_decision d = decide(&cfg, NULL, "nope", NULL);
  assert_error(d, GQL_PQ_ENOT_IN_LIST, "PERSISTED_QUERY_NOT_IN_LIST", 404);
  cr_assert_str_eq(
      d.message,
      "Persisted query 'nope' not found in the persisted query list");
  cr_assert(gql_pq_error_no_cache(d.error));
  /* With APQ on and no safelisting, an unknown APQ hash goes to the APQ
   * store instead. */
  gql_pq_config apq = {.apq = true, .manifest = m};
  d = decide(&apq, NULL, NULL, apq_ext(hash_of("{x}")));
  cr_assert_eq(d.action, GQL_PQ_LOOKUP);
  cr_assert(d.lookup_apq);
  /* A documentId that is a SHA-256 is looked up there too; its miss is
   * NOT_IN_LIST, not NOT_FOUND (nothing will resend it). */
  d = decide(&apq, NULL, hash_of("{x}"), NULL);
  cr_assert_eq(d.action, GQL_PQ_LOOKUP);
  gql_pq_found(&d, false, (gql_str){0}, arena);
  cr_assert_eq(d.error, GQL_PQ_ENOT_IN_LIST);
  gql_pq_manifest_free(m);
}

Test(persisted, id_and_body_together_are_refused_but_apq_registration) {
  gql_pq_manifest *m = manifest(apollo_manifest);
  gql_pq_config cfg = {.apq = true, .manifest = m};
  gql_pq_decision d = decide(&cfg, "{a}", "add", NULL);
  assert_error(d, GQL_PQ_EID_AND_BODY, "CANNOT_SEND_PQ_ID_AND_BODY", 400);
  d = decide(&cfg, "{a}", NULL, apq_ext(hash_of("{a}")));
  cr_assert_eq(d.action, GQL_PQ_RUN);
  cr_assert(d.register_apq);
  /* With safelisting, APQ registration is no longer allowed. */
  cfg.safelist = GQL_PQ_SAFELIST_ON;
  d = decide(&cfg, "{a}", NULL, apq_ext(hash_of("{a}")));
  cr_assert_eq(d.error, GQL_PQ_EID_AND_BODY);
  gql_pq_manifest_free(m);
}

Test(persisted, the_safelist_compares_normalized_bodies) {
  gql_pq_manifest *m = manifest(apollo_manifest);
  gql_pq_config cfg = {
      .apq = true, .manifest = m, .safelist = GQL_PQ_SAFELIST_ON};
  /* Other whitespace, commas, a comment and the fragment first: allowed. */
  gql_pq_decision d = decide(&cfg,
                             "# saved\nfragment F on Character {id}\n"
                             "query Hero{hero{name,...F}}",
                             NULL, NULL);
  cr_assert_eq(d.action, GQL_PQ_RUN, "error %d", d.error);
  /* Field order matters. */
  d = decide(&cfg,
             "query Hero { hero { ...F name } } fragment F on Character { id }",
             NULL, NULL);
  assert_error(d, GQL_PQ_ENOT_IN_SAFELIST, "QUERY_NOT_IN_SAFELIST", 403);
  cr_assert_str_eq(
      d.message,
      "The operation body was not found in the persisted query safelist");
  /* An unparsable body matches only itself. */
  d = decide(&cfg, "}}}", NULL, NULL);
  cr_assert_eq(d.error, GQL_PQ_ENOT_IN_SAFELIST);
  gql_pq_manifest_free(m);
  m = manifest("{\"broken\":\"}}}\"}");
  cfg.manifest = m;
  d = decide(&cfg, "}}}", NULL, NULL);
  cr_assert_eq(d.action, GQL_PQ_RUN);
  gql_pq_manifest_free(m);
}

Test(persisted, require_id_refuses_every_freeform_request) {
  gql_pq_manifest *m = manifest(apollo_manifest);
  gql_pq_config cfg = {
      .apq = true, .manifest = m, .safelist = GQL_PQ_SAFELIST_REQUIRE_ID};
  gql_pq_decision d = decide(
      &cfg, "query Hero { hero { name ...F } } fragment F on Character { id }",
      NULL, NULL);
  assert_error(d, GQL_PQ_EID_REQUIRED, "PERSISTED_QUERY_ID_REQUIRED", 400);
  cr_assert(strstr(d.message, "does not allow freeform GraphQL requests"));
  d = decide(&cfg, NULL, "hero-1", NULL);
  cr_assert_eq(d.action, GQL_PQ_RUN);
  /* No APQ store behind a safelist: an unknown hash is not in the list. */
  d = decide(&cfg, NULL, NULL, apq_ext(hash_of("{x}")));
  cr_assert_eq(d.error, GQL_PQ_ENOT_IN_LIST);
  gql_pq_manifest_free(m);
}

Test(persisted, a_document_id_without_a_manifest_names_an_apq_registration) {
  gql_pq_config cfg = {.apq = true};
  gql_pq_decision d = decide(&cfg, NULL, hash_of("{a}"), NULL);
  cr_assert_eq(d.action, GQL_PQ_LOOKUP);
  d = decide(&cfg, NULL, "not-a-hash", NULL);
  cr_assert_eq(d.error, GQL_PQ_ENOT_IN_LIST);
  d = decide(&cfg, NULL, "", NULL);
  assert_error(d, GQL_PQ_EBAD_ID, "BAD_REQUEST", 400);
}

Test(persisted, the_error_message_escapes_the_id) {
  gql_pq_manifest *m = manifest(apollo_manifest);
  gql_pq_config cfg = {.manifest = m};
  gql_pq_decision d = decide(&cfg, NULL, "a\"b\\c</script>", NULL);
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_pq_error_json(&d, &b);
  const gql_value *v = NULL;
  cr_assert_eq(gql_value_parse(arena, b.data, b.len, &v), 0, "%.*s", (int)b.len,
               b.data);
  gql_buf_free(&b);
  gql_pq_manifest_free(m);
}
