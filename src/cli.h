/* The hyde command line: subcommands in a table, as iproute2's ip does. */
#ifndef HYDE_CLI_H
#define HYDE_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes. */
#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2

struct hyde_cmd {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the subcommand */
	const char *summary;
	const char *missing; /* NULL when built; else what it still needs */
};

int hyde_main(int argc, char **argv);

/* Subcommands (cli_*.c). */
int cmd_validate(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_sim(int argc, char **argv);

struct backend_ops;
/* hyde sim / hyde run: the same options, another backend. */
int cli_run_common(int argc, char **argv, const struct backend_ops *backend);
/* hyde sim's SIGINT and SIGTERM: the first ends the run before its next
 * event, as a failed run that still writes its files (ctl_interrupt); a
 * second one of the same kind ends the process at once. */
void cli_catch_interrupts(void);
int cmd_topo(int argc, char **argv);  /* cli_topo.c */
int cmd_clean(int argc, char **argv); /* cli_topo.c */
int cmd_topo_stats(int argc, char **argv); /* cli_topo_stats.c */
int cmd_ocs(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv); /* cli_compare.c */
int cmd_sweep(int argc, char **argv);	/* cli_sweep.c */
/* A run directory whose run finished with every job done. */
bool sweep_run_done(const char *dir);
struct analyze_result;
void cli_analyze_print(const char *dir, const struct analyze_result *r);
int cmd_task(int argc, char **argv);	 /* cli_task.c */
int cmd_shuffled(int argc, char **argv); /* cli_task.c */
int cmd_capture(int argc, char **argv);	 /* cli_task.c */
int cmd_datanode(int argc, char **argv); /* cli_datanode.c */
int cmd_pcap(int argc, char **argv);	 /* cli_pcap.c */
int cmd_top(int argc, char **argv);	 /* cli_top.c */
int cmd_fidelity(int argc, char **argv); /* cli_fidelity.c */
/* hyde fidelity's join of two run directories (hyde compare --backend
 * both): 0, or an exit status, having said why. Per level (flows,
 * coflows, jobs): pairs joined, pairs timed on both, the ratio
 * emulated / simulated's median and p90 (NAN: none); and the jobs that
 * placed every task alike, of those with tasks (0 of 0: none known). */
struct fidelity_summary {
	size_t flows_e, flows_s;
	size_t joined[3], n[3];
	double ratio_med[3], ratio_p90[3];
	size_t jobs_alike, jobs_placed;
	/* the flows between hosts (the per-flow goal's): timed on both, the
	 * ratio's median and p90; and the flows the simulation did not end */
	size_t hosts_n, untimed_s;
	double hosts_med, hosts_p90;
	/* with 3 SIM_RUNs or more: the model's own spread, each run against
	 * the median of the others (hyde fidelity's line), the median over
	 * them of that p90; NAN and 0 otherwise */
	size_t spread_n;
	double spread_p90;
};
int fidelity_run(const char *emul, const char *sim, const char *out, bool quiet,
		 struct fidelity_summary *fs);
/* The same against several simulated runs of the same decisions (draws):
 * each simulated time the median of its times over them. */
int fidelity_run_n(const char *emul, const char *const *sims, size_t nsim, const char *out,
		   bool quiet, struct fidelity_summary *fs);

/* Helpers for subcommands. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Write what fn produces to path atomically (temporary file, then rename),
 * or to stdout if path is NULL or "-". */
int cli_write_file(const char *path, int (*fn)(FILE *fp, void *arg), void *arg,
		   char *errbuf);
const struct hyde_cmd *cli_commands(void);

#endif
