/* Where a job's time goes (Co-scheduler Fig. 4's split), the same on both
 * backends: its JCT cut at its milestones into consecutive parts that add
 * up to it exactly.
 *
 *   parents  arrival -> ready          (a DAG child waiting for its parents)
 *   queue    ready -> first task start (waiting for its first container)
 *   map      -> its last map's end
 *   wait     -> its shuffle's first byte moving, once the maps are done
 *              (reduces waiting for containers, the §IV-A barrier, circuits)
 *   shuffle  -> its shuffle's last byte, the part after the map phase
 *   reduce   -> its end (the reduces' work and output once the shuffle is in)
 * With Hadoop's slowstart the shuffle overlaps the map phase: what of it
 * ran during the maps counts as map time (the critical path is the maps'),
 * and only what ran after them as shuffle. A job without a shuffle has
 * wait = shuffle = 0. A milestone not reached (-1) makes the job's parts
 * unknown (-1), as its JCT is. */
#ifndef HYDE_BREAKDOWN_H
#define HYDE_BREAKDOWN_H

#include <stdint.h>

struct job_milestones {
	int64_t arrival, ready, first_start, maps_done, shuffle_start, shuffle_end, end;
};

enum { BD_PARENTS, BD_QUEUE, BD_MAP, BD_WAIT, BD_SHUFFLE, BD_REDUCE, BD_PARTS };

extern const char *const breakdown_part_names[BD_PARTS];

/* parts[BD_PARTS] in ns; returns 0, or -1 (every part -1) if the job did
 * not finish or a milestone it needs is missing. */
int job_breakdown(const struct job_milestones *m, int64_t *parts);

#endif
