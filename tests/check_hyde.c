/* One Check runner for every suite (as libnl's tests/check-all.c). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_hyde.h"

const char *test_srcpath(const char *rel)
{
	static char buf[8][1024];
	static int next;
	const char *src = getenv("HYDE_SRCDIR");
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", src ? src : ".", rel);
	return b;
}

void test_appendf(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	*buf = realloc(*buf, *len + (size_t)n + 1);
	ck_assert_ptr_nonnull(*buf);
	va_start(ap, fmt);
	vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

char *test_write_tmp(const char *tag, const char *text, const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	size_t len = strlen(text);
	char *path;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	path = malloc(strlen(dir) + strlen(tag) + strlen(suffix) + 16);
	ck_assert_ptr_nonnull(path);
	sprintf(path, "%s/hyde-%s-XXXXXX%s", dir, tag, suffix);
	fd = mkstemps(path, (int)strlen(suffix));
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

int main(void)
{
	SRunner *sr = srunner_create(units_suite());
	int failed;

	srunner_add_suite(sr, topo_suite());
	srunner_add_suite(sr, workload_suite());
	srunner_add_suite(sr, import_suite());
	srunner_add_suite(sr, gen_suite());
	srunner_add_suite(sr, evq_suite());
	srunner_add_suite(sr, coflow_suite());
	srunner_add_suite(sr, cluster_suite());
	srunner_add_suite(sr, sim_suite());
	srunner_add_suite(sr, sched_suite());
	srunner_add_suite(sr, analyze_suite());
	srunner_add_suite(sr, fabric_suite());
	srunner_add_suite(sr, ocs_suite());
	srunner_add_suite(sr, model_suite());
	srunner_add_suite(sr, datanode_suite());
	srunner_add_suite(sr, linkstats_suite());
	srunner_add_suite(sr, shuffle_suite());
	srunner_add_suite(sr, stats_suite());
	srunner_add_suite(sr, neat_suite());
	srunner_add_suite(sr, inspect_suite());
	srunner_add_suite(sr, cobra_suite());
	srunner_add_suite(sr, nas_suite());
	srunner_add_suite(sr, dawn_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
