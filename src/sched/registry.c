/* Every scheduler that ships with hyde, in one explicit NULL-terminated
 * table (no constructor tricks: the list is the truth). Each is written
 * against the public API only (<hyde/sched.h>), as a plugin would be. */
#include "config.h"

#include <stddef.h>

#include <hyde/sched.h>

extern const struct hyde_sched_ops sched_fair;
extern const struct hyde_sched_ops sched_delay;
extern const struct hyde_sched_ops sched_corral;
extern const struct hyde_sched_ops sched_coscheduler;
extern const struct hyde_sched_ops sched_neat;
extern const struct hyde_sched_ops sched_minfct;
extern const struct hyde_sched_ops sched_minload;
extern const struct hyde_sched_ops sched_mindist;
extern const struct hyde_sched_ops sched_cobra;
extern const struct hyde_sched_ops sched_default;
extern const struct hyde_sched_ops sched_srs;
extern const struct hyde_sched_ops sched_drs;
extern const struct hyde_sched_ops sched_tetris;
extern const struct hyde_sched_ops sched_nas;
extern const struct hyde_sched_ops sched_shufflewatcher;
extern const struct hyde_sched_ops sched_dawn;

extern const struct hyde_sched_ops *const sched_table[];

const struct hyde_sched_ops *const sched_table[] = {
	&sched_fair,
	&sched_delay,
	&sched_corral,
	&sched_coscheduler,
	&sched_neat,
	&sched_minfct,
	&sched_minload,
	&sched_mindist,
	&sched_cobra,
	&sched_default,
	&sched_srs,
	&sched_drs,
	&sched_tetris,
	&sched_nas,
	&sched_shufflewatcher,
	&sched_dawn,
	NULL,
};
