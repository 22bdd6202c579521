/* The options of a run: one table that hyde run, hyde sim and hyde compare
 * share (cli_runopts.c). run and sim parse their whole command line from
 * it; compare parses the options marked RUNOPT_PASS with the same code,
 * checks them against the backend it runs, and hands each run the words
 * it parsed, unchanged, as many as the user gave. */
#ifndef HYDE_CLI_RUNOPTS_H
#define HYDE_CLI_RUNOPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

struct ctl_opts;

/* getopt_long's codes of the long options without a letter: one meaning
 * in every subcommand (a short option is its own letter). */
enum cli_opt_code {
	OPT_SEED = 256,
	OPT_COPIES,
	OPT_HEARTBEAT,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_PREFIX,
	OPT_NO_ANALYZE,
	OPT_COFLOW_ONLY,
	OPT_RATES,
	OPT_RATE_QUANTUM,
	OPT_NO_IO,
	OPT_OCS_FETCH,
	OPT_FETCH_ORDER,
	OPT_NET,
	OPT_COFLOW,
	OPT_SNAPLEN,
	OPT_CAPTURE_WINDOW,
	OPT_ESTIMATE,
	OPT_HORIZON,
	/* hyde compare's own */
	OPT_BACKEND,
	OPT_RUNS,
	OPT_FROM,
	OPT_BASELINE,
	OPT_REPLAY,
	OPT_DRAWS,
};

/* RUNOPT_PASS: hyde compare takes it and passes it on to every run. */
#define RUNOPT_PASS 1u

struct runopt {
	const char *name; /* long name, or NULL */
	int letter;	  /* short option, or 0 */
	int has_arg;	  /* getopt_long's */
	int code;	  /* letter, or an OPT_* */
	unsigned flags;
	/* the --help lines of hyde run and hyde sim, as printed (NULL:
	 * printed by the command itself) */
	const char *help;
};

/* The run options, in --help order, ending with { 0 }. */
extern const struct runopt runopt_table[];

/* The entry of code, or NULL. */
const struct runopt *runopt_find(int code);

/* getopt_long's table: the entries of runopt_table with flags (all if
 * flags is 0), then extra (ending with a zero entry). The caller frees it.
 * shortopts gets the letters of those entries, then extra_short. */
struct option *runopt_longopts(unsigned flags, const struct option *extra,
			       const char *extra_short, char **shortopts);

/* What parsing a command line gathers beyond struct ctl_opts. */
struct runopt_state {
	bool emul;
	bool copies;	/* --copies given */
	int progress;	/* -1: not given; 0 or 1 */
	bool no_analyze;
	bool estimate;	/* --estimate: say what the run costs, run nothing */
	/* the simulator's rate model as the options leave it (--rates,
	 * --net, -B rates=), and the fabric's prefix (--prefix, -B
	 * prefix=): NULL if not given */
	const char *rates, *prefix;
	/* the backend options the aliases made (o->backend_kv points here) */
	char **owned;
	size_t n_owned;
	/* every option parsed, as words for another command line: "-S",
	 * "k=v", "--net", "las", ... (its own copies) */
	char **words;
	size_t n_words, cap_words;
};

void runopt_state_init(struct runopt_state *st, bool emul);
void runopt_state_free(struct runopt_state *st);

/* Apply one option of the table (code, arg as getopt_long gave them) to
 * o, for the backend st->emul, and remember its words. 0; EXIT_USAGE with
 * the message on stderr (cmd names the subcommand); -ENOENT: code is not
 * in the table. o->sched_kv grows as needed (the caller frees it). */
int runopt_apply(struct ctl_opts *o, struct runopt_state *st, const char *cmd, int code,
		 const char *arg);
/* Checks across options, once all are in: 0 or EXIT_USAGE. */
int runopt_check(const struct ctl_opts *o, const struct runopt_state *st, const char *cmd);

/* The help lines of the table's entries with flags (all if 0); own
 * prints those whose help is NULL. */
void runopt_print_help(FILE *fp, unsigned flags,
		       void (*own)(FILE *fp, const struct runopt *e, void *arg), void *arg);

#endif
