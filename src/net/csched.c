#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "core/opts.h"
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

/* "sunflow, greedy or none" */
static void csched_names(char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; csched_table[i]; i++) {
		strncat(buf, csched_table[i]->name, len - strlen(buf) - 1);
		strncat(buf, ", ", len - strlen(buf) - 1);
	}
	if (i)
		buf[strlen(buf) - 2] = '\0';
	strncat(buf, " or none", len - strlen(buf) - 1);
}

int csched_new(const char *spec, const struct csched_ops **ops, void **priv, char *errbuf)
{
	char *s = xstrdup(spec), *save = NULL, *name = strtok_r(s, ":", &save), *kv;
	const struct csched_ops *cs = name ? csched_find(name) : NULL;
	char names[128], msg[HYDE_ERRBUF_SIZE];
	void *p = NULL;

	*ops = NULL;
	*priv = NULL;
	if (!cs) {
		csched_names(names, sizeof(names));
		errbuf_set(errbuf, "unknown circuit scheduler '%s' (expected %s)", name ? name : spec,
			   names);
		free(s);
		return -EINVAL;
	}
	if (cs->priv_size) {
		p = xcalloc(1, cs->priv_size);
		if (cs->defaults)
			cs->defaults(p);
	}
	while ((kv = strtok_r(NULL, ":", &save))) {
		if (!cs->n_opts) {
			errbuf_set(errbuf, "circuit scheduler %s: unknown option '%.*s' (it has none)",
				   cs->name, (int)strcspn(kv, "="), kv);
			goto err;
		}
		if (opts_set(p, cs->opts, cs->n_opts, kv, msg)) {
			errbuf_set(errbuf, "circuit scheduler %s: %s", cs->name, msg);
			goto err;
		}
	}
	free(s);
	*ops = cs;
	*priv = p;
	return 0;
err:
	free(p);
	free(s);
	return -EINVAL;
}

void csched_print_options(void *fp)
{
	size_t i;

	for (i = 0; csched_table[i]; i++) {
		const struct csched_ops *cs = csched_table[i];
		void *p;

		if (!cs->n_opts)
			continue;
		p = xcalloc(1, cs->priv_size);
		if (cs->defaults)
			cs->defaults(p);
		fprintf(fp, "  %s:\n", cs->name);
		opts_print(p, cs->opts, cs->n_opts, fp);
		free(p);
	}
}

void cs_plan_reset(struct cs_plan *p)
{
	p->n = 0;
	p->replan_at = -1;
	p->more = false;
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
