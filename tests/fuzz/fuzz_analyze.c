/* Fuzz target: the analyzer on a whole run directory. A golden run
 * directory (tests/analyze_fixture.c, with the inputs an interrupted run
 * is read from) is made once; each input replaces one of its files, the
 * first byte saying which and whether the run looks interrupted (no
 * app/jobs.csv); analyze_run reads it all (no plots). The file is put
 * back afterwards, so each input starts from the golden directory. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze_fixture.h"
#include "fuzz.h"

static const char *const targets[] = {
	"pcap/tor0-h0.pcap", "pcap/tor0-up.pcap", "pcap/tor0-ocs.pcap", "pcap/tor1-h0.pcap",
	"manifest.csv", "app/fetches.csv", "app/jobs.csv", "app/coflows.csv",
	"events.log", "inputs/workload.wl", "inputs/topology.topo",
};
#define N_TARGETS (sizeof(targets) / sizeof(targets[0]))

static const char workload_text[] =
	"job id=a user=alice arrival=0s input=2MB shuffle=19344B output=0B maps=2 reduces=2 map_time=1ms reduce_time=1ms\n"
	"job id=b user=bob arrival=5ms input=1MB shuffle=9000B output=0B maps=1 reduces=2 map_time=1ms reduce_time=1ms\n"
	"job id=c user=alice arrival=25ms input=2MB shuffle=162000B output=0B maps=2 reduces=2 map_time=1ms reduce_time=1ms\n";
static const char events_text[] =
	"1700000000000000000 run_start emul fair sunflow\n"
	"1700000000000000000 job_arrive a\n"
	"1700000000001000000 task_start a map 0 r0h0\n"
	"1700000000005000000 job_arrive b\n"
	"1700000000050000000 job_done a\n"
	"1700000000060000000 job_done";

static char dir[256];
static char *golden[N_TARGETS];
static size_t golden_len[N_TARGETS];

static char *path_of(const char *rel)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return p;
}

static void put(const char *rel, const void *data, size_t len)
{
	int fd = open(path_of(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) || close(fd))
		fuzz_fail("cannot write %s", path_of(rel));
}

static void slurp(size_t k)
{
	FILE *fp = fopen(path_of(targets[k]), "r");
	long n;

	if (!fp || fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET))
		fuzz_fail("cannot read %s", path_of(targets[k]));
	golden[k] = malloc((size_t)n + 1);
	golden_len[k] = fread(golden[k], 1, (size_t)n, fp);
	fclose(fp);
}

static void init(void)
{
	const char *tmp = getenv("TMPDIR");
	size_t k;

	snprintf(dir, sizeof(dir), "%s/hyde-fuzz-analyze.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || fixture_write_run(dir, FX_GOOD))
		fuzz_fail("cannot make the golden run directory in %s", dir);
	put("inputs/workload.wl", workload_text, sizeof(workload_text) - 1);
	put("events.log", events_text, sizeof(events_text) - 1);
	for (k = 0; k < N_TARGETS; k++)
		slurp(k);
	fuzz_file(NULL, 0); /* quiet logs */
}

FUZZ_TARGET(analyze)
{
	struct analyze_opts o = { .no_plots = true };
	struct analyze_result res;
	char errbuf[HYDE_ERRBUF_SIZE];
	size_t k;
	bool interrupted;

	if (!dir[0])
		init();
	if (!size)
		return 0;
	k = data[0] % N_TARGETS;
	interrupted = (data[0] / N_TARGETS) % 2;
	put(targets[k], data + 1, size - 1);
	if (interrupted)
		unlink(path_of("app/jobs.csv"));
	if (!analyze_run(dir, &o, &res, errbuf)) {
		if (res.incomplete != interrupted)
			fuzz_fail("an %s run analysed as %s", interrupted ? "interrupted" : "ended",
				  res.incomplete ? "incomplete" : "complete");
		if (res.flows_done > res.flows || res.coflows_complete > res.coflows ||
		    res.jobs_finished > res.jobs)
			fuzz_fail("more flows, coflows or jobs measured than there are");
	}
	put(targets[k], golden[k], golden_len[k]);
	if (interrupted)
		put("app/jobs.csv", golden[6], golden_len[6]);
	return 0;
}
