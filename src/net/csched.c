#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "net/csched.h"

const struct csched_ops *const csched_table[] = {
	&csched_sunflow,
	&csched_greedy,
	NULL,
};

const struct csched_ops *csched_find(const char *name)
{
	size_t i;

	for (i = 0; csched_table[i]; i++)
		if (!strcmp(csched_table[i]->name, name))
			return csched_table[i];
	return NULL;
}

void cs_plan_reset(struct cs_plan *p)
{
	p->n = 0;
	p->replan_at = -1;
}

void cs_plan_add(struct cs_plan *p, uint32_t coflow, uint32_t src,
		 uint32_t dst, int64_t start, int64_t end)
{
	xgrow((void **)&p->r, &p->cap, p->n + 1, sizeof(*p->r));
	p->r[p->n++] = (struct cs_resv){ coflow, src, dst, start, end };
}

void cs_plan_free(struct cs_plan *p)
{
	if (p->cache && p->cache_free)
		p->cache_free(p->cache);
	free(p->r);
	memset(p, 0, sizeof(*p));
}
