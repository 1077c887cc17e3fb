/* A batch of span records into one OTLP/HTTP request body (an
 * ExportTraceServiceRequest), JSON or protobuf: the exporter's side of
 * the records (otlp_batch.c). */
#ifndef GQL_OTLP_BATCH_H
#define GQL_OTLP_BATCH_H

#include "otlp_records.h"

typedef struct otlp_batch {
  gql_buf *b;
  const char *service;
  gql_otlp_protocol protocol;
  size_t spans_at; /* protobuf: where the spans start in b */
  bool any;        /* JSON: a span was written */
  otlp_reader r;
} otlp_batch;

/* Opens a batch in b (emptied; its memory is reused) for `service`. */
void gql_otlp_batch_begin(otlp_batch *ob, gql_buf *b, const char *service,
                          gql_otlp_protocol protocol, otlp_to_ns_fn to_ns,
                          const void *ctx);
/* Adds the spans of one chunk of records (gql_tracer_push's); GQL_EINVAL
 * for a malformed record (the batch is then not to be sent). */
int gql_otlp_batch_add(otlp_batch *ob, const char *rec, size_t len);
/* Closes the batch: the request body (inside b), or {NULL, 0} when a
 * record was malformed or memory ran out. */
gql_str gql_otlp_batch_end(otlp_batch *ob);

#endif
