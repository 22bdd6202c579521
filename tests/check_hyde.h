#ifndef HYDE_CHECK_HYDE_H
#define HYDE_CHECK_HYDE_H

#include <check.h>

Suite *units_suite(void);
Suite *topo_suite(void);
Suite *workload_suite(void);
Suite *import_suite(void);
Suite *gen_suite(void);
Suite *evq_suite(void);
Suite *coflow_suite(void);
Suite *cluster_suite(void);
Suite *sim_suite(void);
Suite *sched_suite(void);
Suite *analyze_suite(void);
Suite *fabric_suite(void);
Suite *ocs_suite(void);
Suite *model_suite(void);
Suite *datanode_suite(void);
Suite *linkstats_suite(void);
Suite *shuffle_suite(void);
Suite *stats_suite(void);
Suite *neat_suite(void);
Suite *inspect_suite(void);
Suite *cobra_suite(void);
Suite *nas_suite(void);
Suite *dawn_suite(void);

/* $HYDE_SRCDIR/rel (the source tree, also under make distcheck). */
const char *test_srcpath(const char *rel);
/* A new file $TMPDIR/hyde-TAG-XXXXXXSUFFIX (/tmp without TMPDIR) holding
 * text; the caller unlinks and frees the path. */
char *test_write_tmp(const char *tag, const char *text, const char *suffix);
/* printf onto the end of a growing string *buf of *len characters. */
void test_appendf(char **buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
