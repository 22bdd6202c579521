/* fuzz_replay TARGET FILE|DIR...: run a fuzz target (fuzz.h) on each file
 * (a directory: each file in it), as libFuzzer would run one input. Built
 * by `make check` with the project's compiler (and, in the sanitizer
 * build, under ASan and UBSan): tests/fuzz.sh replays every seed and every
 * input that once crashed a target. Prints how many inputs ran. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static const struct {
	const char *name;
	int (*fn)(const uint8_t *, size_t);
} targets[] = {
	{ "topo", fuzz_topo },	       { "workload", fuzz_workload }, { "swim", fuzz_swim },
	{ "coflow", fuzz_coflow },     { "pcap", fuzz_pcap },	      { "analyze", fuzz_analyze },
	{ "ocs", fuzz_ocs },	       { "shuffle", fuzz_shuffle },
};

static unsigned long runs;

static void one(int (*fn)(const uint8_t *, size_t), const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!fp) {
		perror(path);
		exit(2);
	}
	do {
		if (cap - len < 65536) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n);
	fclose(fp);
	fn(buf, len);
	free(buf);
	runs++;
}

static void walk(int (*fn)(const uint8_t *, size_t), const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[4096];
	DIR *d;

	if (stat(path, &st)) {
		perror(path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		one(fn, path);
		return;
	}
	d = opendir(path);
	if (!d) {
		perror(path);
		exit(2);
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		walk(fn, sub);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	size_t k;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: fuzz_replay TARGET FILE|DIR...\n");
		return 2;
	}
	for (k = 0; k < sizeof(targets) / sizeof(targets[0]); k++)
		if (!strcmp(targets[k].name, argv[1]))
			break;
	if (k == sizeof(targets) / sizeof(targets[0])) {
		fprintf(stderr, "fuzz_replay: no target '%s'\n", argv[1]);
		return 2;
	}
	for (i = 2; i < argc; i++)
		walk(targets[k].fn, argv[i]);
	printf("%s: %lu input(s), no crash\n", argv[1], runs);
	return 0;
}
