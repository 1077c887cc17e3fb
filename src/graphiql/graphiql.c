/* The GraphiQL page (see graphiql.h). The template follows graphql-yoga's
 * own page for the same bundle: Monaco's workers are fetched and started
 * from blob: URLs (a worker script must be same-origin, the CDN's is not),
 * then renderYogaGraphiQL mounts GraphiQL with our options. */
#include "graphiql.h"

#include <string.h>

const char *const gql_graphiql_files[] = {
    "graphiql.css",
    "yoga-graphiql.umd.js",
    "monacoeditorwork/editor.worker.bundle.js",
    "monacoeditorwork/json.worker.bundle.js",
    /* sic: the file's name in the 4.5.0 package */
    "monacoeditorwork/graphql.worker..bundle.js",
    NULL,
};

const char *gql_graphiql_asset_type(gql_str rel) {
  for (int i = 0; gql_graphiql_files[i]; i++) {
    if (gql_str_eq_cstr(rel, gql_graphiql_files[i]))
      return rel.len > 4 && memcmp(rel.ptr + rel.len - 4, ".css", 4) == 0
                 ? "text/css; charset=utf-8"
                 : "text/javascript; charset=utf-8";
  }
  return NULL;
}

static bool valid_utf8(const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = gql_utf8_decode(s + i, n - i, &cp);
    if (k == 0)
      return false;
    i += k;
  }
  return true;
}

/* http(s)://... or /...: no byte that could end an attribute or a string,
 * start a tag or a character reference, or hide in whitespace. */
static bool url_ok(const char *u) {
  if (!(strncmp(u, "https://", 8) == 0 || strncmp(u, "http://", 7) == 0 ||
        (u[0] == '/' && u[1] != '/')))
    return false;
  for (const unsigned char *p = (const unsigned char *)u; *p; p++)
    if (*p <= ' ' || *p == '"' || *p == '\'' || *p == '<' || *p == '>' ||
        *p == '\\' || *p == '`' || *p == '&' || *p >= 0x7f)
      return false;
  return true;
}

/* Text or attribute value in HTML. */
static void put_html(gql_buf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&':
      gql_buf_puts(b, "&amp;");
      break;
    case '<':
      gql_buf_puts(b, "&lt;");
      break;
    case '>':
      gql_buf_puts(b, "&gt;");
      break;
    case '"':
      gql_buf_puts(b, "&quot;");
      break;
    case '\'':
      gql_buf_puts(b, "&#39;");
      break;
    default:
      gql_buf_putc(b, *s);
    }
  }
}

/* A JavaScript string literal that is safe inside <script>: no '<' (so no
 * </script> or <!--), no '>' or '&', U+2028 / U+2029 escaped (line
 * terminators in older engines), control characters as \u00XX. */
static void put_js_string(gql_buf *b, const char *s) {
  static const char hex[] = "0123456789abcdef";
  gql_buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    if (c == '"' || c == '\\') {
      gql_buf_putc(b, '\\');
      gql_buf_putc(b, (char)c);
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f) {
      char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      gql_buf_put(b, e, 6);
    } else if (c == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
      gql_buf_puts(b, p[2] == 0xa8 ? "\\u2028" : "\\u2029");
      p += 2;
    } else {
      gql_buf_putc(b, (char)c);
    }
  }
  gql_buf_putc(b, '"');
}

int gql_graphiql_page(const gql_graphiql_options *o, gql_buf *out) {
  gql_graphiql_options d = o ? *o : (gql_graphiql_options){0};
  if (!d.assets)
    d.assets = GQL_GRAPHIQL_CDN;
  if (!d.endpoint)
    d.endpoint = "/graphql";
  if (!d.title)
    d.title = "gql GraphiQL";
  if (!url_ok(d.assets) || !url_ok(d.endpoint) || !valid_utf8(d.title) ||
      (d.default_query && !valid_utf8(d.default_query)))
    return GQL_EINVAL;
  size_t alen = strlen(d.assets);
  const char *slash = alen && d.assets[alen - 1] == '/' ? "" : "/";

  /* The title as HTML (GraphiQL renders the option as HTML too). */
  gql_buf title;
  gql_buf_init(&title, NULL);
  put_html(&title, d.title);
  const char *title_html = gql_buf_cstr(&title);
  if (!title_html) {
    gql_buf_free(&title);
    return GQL_ENOMEM;
  }

  gql_buf_puts(out, "<!doctype html>\n<html lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, "
                    "initial-scale=1\">\n<title>");
  gql_buf_puts(out, title_html);
  gql_buf_puts(out, "</title>\n<link rel=\"stylesheet\" crossorigin href=\"");
  put_html(out, d.assets);
  gql_buf_puts(out, slash);
  gql_buf_puts(out, "graphiql.css\">\n"
                    "<style>html,body,#root{height:100%;margin:0}</style>\n"
                    "</head>\n<body class=\"no-focus-outline\">\n"
                    "<noscript>GraphiQL needs JavaScript.</noscript>\n"
                    "<div id=\"root\">Loading ");
  gql_buf_puts(out, title_html);
  gql_buf_puts(out, "&hellip;</div>\n<script>\n(function () {\n  var base = ");
  gql_buf free_base;
  gql_buf_init(&free_base, NULL);
  gql_buf_puts(&free_base, d.assets);
  gql_buf_puts(&free_base, slash);
  put_js_string(out, gql_buf_cstr(&free_base) ? gql_buf_cstr(&free_base) : "");
  gql_buf_free(&free_base);
  gql_buf_puts(
      out,
      ";\n  var urls = {\n"
      "    editorWorkerService: base + \"monacoeditorwork/"
      "editor.worker.bundle.js\",\n"
      "    json: base + \"monacoeditorwork/json.worker.bundle.js\",\n"
      "    graphql: base + \"monacoeditorwork/graphql.worker..bundle.js\"\n"
      "  };\n  var workers = {};\n"
      "  self.MonacoEnvironment = {\n    globalAPI: false,\n"
      "    getWorkerUrl: function (id, label) { return workers[label]; }\n"
      "  };\n"
      "  window.gqlPrepareWorkers = function () {\n"
      "    return Promise.all(Object.keys(urls).map(function (label) {\n"
      "      return fetch(urls[label]).then(function (res) {\n"
      "        if (!res.ok) throw new Error(urls[label] + \": \" + "
      "res.status);\n"
      "        return res.text();\n"
      "      }).then(function (text) {\n"
      "        workers[label] = URL.createObjectURL(\n"
      "          new Blob([text], { type: \"application/javascript\" }));\n"
      "      });\n    }));\n  };\n})();\n</script>\n"
      "<script crossorigin src=\"");
  put_html(out, d.assets);
  gql_buf_puts(out, slash);
  gql_buf_puts(out, "yoga-graphiql.umd.js\"></script>\n<script>\n"
                    "gqlPrepareWorkers().catch(function (e) {\n"
                    "  console.error(\"GraphiQL workers:\", e);\n"
                    "}).finally(function () {\n"
                    "  YogaGraphiQL.renderYogaGraphiQL("
                    "document.getElementById(\"root\"), {\n    endpoint: ");
  put_js_string(out, d.endpoint);
  gql_buf_puts(out, ",\n    title: ");
  put_js_string(out, title_html);
  gql_buf_puts(out, ",\n    logo: \"\"");
  if (d.default_query) {
    gql_buf_puts(out, ",\n    defaultQuery: ");
    put_js_string(out, d.default_query);
  }
  gql_buf_puts(out, "\n  });\n});\n</script>\n</body>\n</html>\n");
  gql_buf_free(&title);
  return out->failed ? GQL_ENOMEM : 0;
}
