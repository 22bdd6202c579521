/* Every scheduler, in one explicit NULL-terminated table (no constructor
 * tricks: the list is the truth). */
#include "config.h"

#include <stddef.h>

#include "sched/sched.h"

extern const struct hyde_sched_ops sched_fair;
extern const struct hyde_sched_ops sched_delay;
extern const struct hyde_sched_ops sched_corral;
extern const struct hyde_sched_ops sched_coscheduler;

const struct hyde_sched_ops *const sched_table[] = {
	&sched_fair,
	&sched_delay,
	&sched_corral,
	&sched_coscheduler,
	NULL,
};
