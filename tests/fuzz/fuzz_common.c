/* Helpers shared by the fuzz targets (fuzz.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/log.h"
#include "core/workload.h"
#include "fuzz.h"

const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	size_t off = 0;

	if (fd < 0) {
		fd = memfd_create("hyde-fuzz", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		log_set_level(LOG_LVL_ERR);
	}
	if (ftruncate(fd, 0))
		abort();
	while (off < size) {
		ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	return path;
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz: property broken: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

void fuzz_check_workload(const struct workload *wl, const char *what)
{
	char errbuf[HYDE_ERRBUF_SIZE], *buf = NULL;
	struct workload *back;
	uint32_t *order;
	size_t len = 0, i;
	FILE *fp;

	order = wl_arrival_order(wl);
	for (i = 1; i < wl->n_jobs; i++)
		if (wl->jobs[order[i]].arrival < wl->jobs[order[i - 1]].arrival)
			fuzz_fail("%s: arrival order out of order at %zu", what, i);
	free(order);
	(void)wl_dag_depth(wl);
	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *j = &wl->jobs[i];
		uint64_t sum = 0;
		uint32_t m, r;

		if (!j->maps || !j->reduces || (uint64_t)j->maps * j->reduces > 4096)
			continue; /* a sample: the sum is checked on small jobs */
		for (r = 0; r < j->reduces; r++) {
			uint64_t rb = 0;

			for (m = 0; m < j->maps; m++)
				rb += wl_partition_bytes(j, m, r);
			if (rb != wl_reduce_bytes(j, r))
				fuzz_fail("%s: job %s: reduce %u's partitions add up to %llu, not %llu",
					  what, j->id, r, (unsigned long long)rb,
					  (unsigned long long)wl_reduce_bytes(j, r));
			sum += rb;
		}
		if (sum != j->shuffle)
			fuzz_fail("%s: job %s: partitions add up to %llu, shuffle is %llu", what,
				  j->id, (unsigned long long)sum, (unsigned long long)j->shuffle);
	}
	fp = open_memstream(&buf, &len);
	if (!fp || wl_write(wl, fp) || fclose(fp))
		fuzz_fail("%s: wl_write failed", what);
	fp = fmemopen(buf, len, "r");
	if (!fp)
		fuzz_fail("fmemopen");
	if (wl_parse(fp, "written", &back, errbuf))
		fuzz_fail("%s: what wl_write wrote does not parse back: %s", what, errbuf);
	fclose(fp);
	if (back->n_jobs != wl->n_jobs)
		fuzz_fail("%s: %zu jobs written, %zu read back", what, wl->n_jobs, back->n_jobs);
	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *a = &wl->jobs[i], *b = &back->jobs[i];

		if (strcmp(a->id, b->id) || strcmp(a->user, b->user) || a->arrival != b->arrival ||
		    a->input != b->input || a->shuffle != b->shuffle || a->output != b->output ||
		    a->maps != b->maps || a->reduces != b->reduces || a->map_time != b->map_time ||
		    a->reduce_time != b->reduce_time || a->n_parents != b->n_parents)
			fuzz_fail("%s: job %s does not read back the same", what, a->id);
	}
	wl_free(back);
	free(buf);
}
