/* mkfixture VARIANT DIR: write one of the analyzer's golden run
 * directories (tests/analyze_fixture.c) for the shell tests. */
#include "config.h"

#include <stdio.h>
#include <sys/stat.h>

#include "analyze_fixture.h"

int main(int argc, char **argv)
{
	int v;

	if (argc != 3 || (v = fixture_variant(argv[1])) < 0) {
		fprintf(stderr, "usage: mkfixture good|truncated|corrupt|linktype|manifest-topo|manifest-run|manifest-header|fetch-conn|many DIR\n");
		return 2;
	}
	mkdir(argv[2], 0777);
	if (fixture_write_run(argv[2], (enum fx_variant)v)) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
