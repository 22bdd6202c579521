/* A job's time cut at its milestones (breakdown.h). */
#include "config.h"

#include "breakdown.h"

const char *const breakdown_part_names[BD_PARTS] = {
	"parents", "queue", "map", "wait", "shuffle", "reduce",
};

static int64_t later(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

int job_breakdown(const struct job_milestones *m, int64_t *parts)
{
	int64_t ready, first, maps, s0, s1;
	int k;

	for (k = 0; k < BD_PARTS; k++)
		parts[k] = -1;
	if (m->arrival < 0 || m->end < m->arrival || m->first_start < 0 || m->maps_done < 0)
		return -1;
	/* each milestone no earlier than the one before: a job is ready
	 * when it arrives if it has no parents */
	ready = later(m->ready >= 0 ? m->ready : m->arrival, m->arrival);
	first = later(m->first_start, ready);
	maps = later(m->maps_done, first);
	/* a job ends after its maps; the records of an emulated run come
	 * from several processes, a map-only job's last map may be logged a
	 * few microseconds after the job's end */
	if (maps > m->end)
		maps = m->end;
	if (first > m->end)
		return -1; /* not a job's times */
	if (m->shuffle_start >= 0 && m->shuffle_end >= 0) {
		s0 = later(m->shuffle_start, maps);
		s1 = later(m->shuffle_end, s0);
	} else {
		s0 = s1 = maps;
	}
	if (s1 > m->end)
		s1 = m->end; /* a flow that ended with the job */
	if (s0 > s1)
		s0 = s1;
	parts[BD_PARENTS] = ready - m->arrival;
	parts[BD_QUEUE] = first - ready;
	parts[BD_MAP] = maps - first;
	parts[BD_WAIT] = s0 - maps;
	parts[BD_SHUFFLE] = s1 - s0;
	parts[BD_REDUCE] = m->end - s1;
	return 0;
}
