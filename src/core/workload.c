#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "util.h"
#include "wl_gen.h"
#include "wl_import.h"
#include "workload.h"

#define WL_MAX_BYTES 1000000000000000000ULL /* 1 EB: beyond is a typo */
#define WL_MAX_TIME (365LL * 24 * 3600 * NSEC_PER_SEC)

struct workload *wl_new(void)
{
	return xcalloc(1, sizeof(struct workload));
}

static void wl_job_clear(struct wl_job *j)
{
	free(j->id);
	free(j->user);
	free(j->parents);
	free(j->map_racks);
	free(j->input_racks);
	free(j->reduce_racks);
	free(j->reduce_bytes);
	free(j->input_hosts);
	free(j->block_bytes);
	free(j->app);
}

void wl_free(struct workload *wl)
{
	size_t i;

	if (!wl)
		return;
	for (i = 0; i < wl->n_jobs; i++)
		wl_job_clear(&wl->jobs[i]);
	for (i = 0; i < wl->n_users; i++)
		free(wl->users[i]);
	free(wl->jobs);
	free(wl->users);
	free(wl->user_of);
	for (i = 0; i < wl->n_apps; i++)
		free(wl->apps[i]);
	free(wl->apps);
	free(wl->app_of);
	free(wl);
}

struct wl_job *wl_add_job(struct workload *wl, const char *id, const char *user)
{
	struct wl_job *j;

	/* grow by doubling: the capacity is the next power of two */
	if ((wl->n_jobs & (wl->n_jobs - 1)) == 0) {
		size_t cap = wl->n_jobs ? wl->n_jobs * 2 : 1;

		wl->jobs = xrealloc(wl->jobs, cap * sizeof(*wl->jobs));
	}
	j = &wl->jobs[wl->n_jobs++];
	memset(j, 0, sizeof(*j));
	j->id = xstrdup(id);
	j->user = xstrdup(user ? user : "default");
	return j;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= WL_ID_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return 0;
	return 1;
}

/* ---- job id lookup: open addressing on a hash of the id ---- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

struct id_index {
	uint32_t *slot; /* job index + 1, 0 empty */
	size_t mask;
};

static void id_index_build(struct id_index *ix, const struct workload *wl)
{
	size_t cap = 16;

	while (cap < wl->n_jobs * 2)
		cap *= 2;
	ix->slot = xcalloc(cap, sizeof(*ix->slot));
	ix->mask = cap - 1;
}

/* Insert job i; returns the index of an earlier job with the same id, or -1. */
static long id_index_add(struct id_index *ix, const struct workload *wl,
			 uint32_t i)
{
	size_t h = hash_str(wl->jobs[i].id) & ix->mask;

	while (ix->slot[h]) {
		uint32_t o = ix->slot[h] - 1;

		if (!strcmp(wl->jobs[o].id, wl->jobs[i].id))
			return o;
		h = (h + 1) & ix->mask;
	}
	ix->slot[h] = i + 1;
	return -1;
}

static long id_index_find(const struct id_index *ix, const struct workload *wl,
			  const char *id)
{
	size_t h = hash_str(id) & ix->mask;

	while (ix->slot[h]) {
		uint32_t o = ix->slot[h] - 1;

		if (!strcmp(wl->jobs[o].id, id))
			return o;
		h = (h + 1) & ix->mask;
	}
	return -1;
}

/* ---- parsing ---- */

struct wl_parser {
	const char *path;
	unsigned line;
	char *errbuf;
	struct workload *wl;
	char **parent_names; /* per job: the raw "a,b" list, resolved later */
	size_t parent_cap;
	unsigned seen_directive[4];
};

static int perr(struct wl_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(struct wl_parser *p, const char *fmt, ...)
{
	char msg[HYDE_ERRBUF_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errbuf_set(p->errbuf, "%s:%u: %s", p->path, p->line, msg);
	return -EINVAL;
}

/* Comma-separated list of n items into a new array, each parsed by fn. */
static int parse_list(const char *val, uint32_t want, size_t elsz,
		      int (*fn)(const char *s, void *out), void **out,
		      uint32_t *count)
{
	char *copy = xstrdup(val), *save = NULL, *tok;
	uint32_t n = 0;
	char *arr;
	int r = 0;

	for (tok = copy; *tok; tok++)
		n += *tok == ',';
	n++;
	arr = xcalloc(n, elsz);
	n = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		r = fn(tok, arr + (size_t)n * elsz);
		if (r)
			break;
		n++;
	}
	/* empty items ("1,,2" or a trailing comma) are errors */
	if (!r && (val[0] == ',' || val[strlen(val) - 1] == ',' || strstr(val, ",,")))
		r = -EINVAL;
	if (!r && want && n != want)
		r = -ERANGE;
	free(copy);
	if (r) {
		free(arr);
		return r;
	}
	*out = arr;
	*count = n;
	return 0;
}

static int parse_rack_item(const char *s, void *out)
{
	uint64_t v;
	int r = parse_uint(s, 0, 1U << 20, &v);

	if (!r)
		*(uint32_t *)out = (uint32_t)v;
	return r;
}

/* r<rack>h<host>, as topologies name hosts */
static int parse_host_item(const char *s, void *out)
{
	struct wl_host *h = out;
	unsigned long r, k;
	char *end;

	if (s[0] != 'r' || !isdigit((unsigned char)s[1]))
		return -EINVAL;
	r = strtoul(s + 1, &end, 10);
	if (*end != 'h' || !isdigit((unsigned char)end[1]))
		return -EINVAL;
	k = strtoul(end + 1, &end, 10);
	if (*end || r > (1U << 20) || k > (1U << 20))
		return -EINVAL;
	h->rack = (uint32_t)r;
	h->host = (uint32_t)k;
	return 0;
}

static int parse_size_item(const char *s, void *out)
{
	return unit_parse_size(s, (uint64_t *)out);
}

enum job_field {
	F_ID, F_USER, F_ARRIVAL, F_INPUT, F_SHUFFLE, F_SIR, F_OUTPUT, F_MAPS,
	F_REDUCES, F_MAP_TIME, F_REDUCE_TIME, F_WORK, F_PARENTS, F_MAP_RACKS,
	F_REDUCE_RACKS, F_REDUCE_BYTES, F_INPUT_RACKS, F_INPUT_HOSTS, F_BLOCK_BYTES,
	F_REMOTE, F_APP, F_MAP_CPU, F_MAP_MEM, F_REDUCE_CPU, F_REDUCE_MEM, F_CLASS, F_COUNT
};

static const char *const job_fields[F_COUNT] = {
	"id", "user", "arrival", "input", "shuffle", "sir", "output", "maps",
	"reduces", "map_time", "reduce_time", "work", "parents", "map_racks",
	"reduce_racks", "reduce_bytes", "input_racks", "input_hosts", "block_bytes",
	"remote", "app", "map_cpu", "map_mem", "reduce_cpu", "reduce_mem", "class",
};

static const char job_fields_list[] =
	"id, user, arrival, input, shuffle or sir, output, maps, reduces, map_time, reduce_time, work, parents, map_racks, reduce_racks, reduce_bytes, input_racks, input_hosts, block_bytes, remote, app, map_cpu, map_mem, reduce_cpu, reduce_mem, class";

static int parse_job_size(struct wl_parser *p, const char *key,
			  const char *val, uint64_t *out)
{
	if (unit_parse_size(val, out))
		return perr(p, "%s: expected %s, got '%s'", key, unit_size_expect, val);
	if (*out > WL_MAX_BYTES)
		return perr(p, "%s: %s is absurdly large", key, val);
	return 0;
}

static int parse_job_time(struct wl_parser *p, const char *key,
			  const char *val, int64_t *out)
{
	if (unit_parse_time(val, out))
		return perr(p, "%s: expected %s, got '%s'", key, unit_time_expect, val);
	if (*out > WL_MAX_TIME)
		return perr(p, "%s: %s is more than a year", key, val);
	return 0;
}

static int parse_job_count(struct wl_parser *p, const char *key,
			   const char *val, uint64_t min, uint32_t *out)
{
	uint64_t v;

	if (parse_uint(val, min, WL_MAX_TASKS, &v))
		return perr(p, "%s: expected a whole number from %" PRIu64 " to %d, got '%s'",
			    key, min, WL_MAX_TASKS, val);
	*out = (uint32_t)v;
	return 0;
}

/* input_hosts=, block_bytes=, remote= (flow-level workloads) */
static int parse_flow_keys(struct wl_parser *p, struct wl_job *j, const char *const *val)
{
	uint32_t cnt, i;
	void *arr;

	if (val[F_INPUT_HOSTS]) {
		if (j->input_from_parents || j->input_racks)
			return perr(p, "input_hosts: job '%s' has its input placed otherwise (input=parents or input_racks=)",
				    j->id);
		if (parse_list(val[F_INPUT_HOSTS], 0, sizeof(struct wl_host), parse_host_item, &arr,
			       &cnt))
			return perr(p, "input_hosts: expected host names (r<rack>h<host>) separated by commas, got '%s'",
				    val[F_INPUT_HOSTS]);
		j->input_hosts = arr;
		j->n_input_hosts = cnt;
	}
	if (val[F_BLOCK_BYTES]) {
		uint64_t sum = 0;

		if (j->input_from_parents)
			return perr(p, "block_bytes: job '%s' reads its parents' output (input=parents): its splits are even",
				    j->id);
		if (parse_list(val[F_BLOCK_BYTES], j->maps, sizeof(uint64_t), parse_size_item, &arr,
			       &cnt))
			return perr(p, "block_bytes: expected %u sizes separated by commas (one per map), got '%s'",
				    j->maps, val[F_BLOCK_BYTES]);
		j->block_bytes = arr;
		for (i = 0; i < cnt; i++) {
			if (j->block_bytes[i] == 0 || j->block_bytes[i] > WL_MAX_BYTES)
				return perr(p, "block_bytes: every block needs bytes, and not absurdly many");
			sum += j->block_bytes[i];
		}
		if (sum != j->input)
			return perr(p, "job '%s': block_bytes add up to %" PRIu64 " bytes but input=%s",
				    j->id, sum, val[F_INPUT]);
	}
	if (val[F_REMOTE]) {
		if (!strcmp(val[F_REMOTE], "yes"))
			j->remote = true;
		else if (strcmp(val[F_REMOTE], "no"))
			return perr(p, "remote: expected 'yes' or 'no', got '%s'", val[F_REMOTE]);
	}
	return 0;
}

static int parse_job_line(struct wl_parser *p, char **f, int nf)
{
	struct workload *wl = p->wl;
	const char *val[F_COUNT] = { 0 };
	struct wl_job *j;
	uint64_t shuffle = 0;
	uint32_t cnt;
	void *arr;
	double sir = 0;
	int i, k, r;

	for (i = 1; i < nf; i++) {
		char *eq = strchr(f[i], '=');

		if (!eq || eq == f[i])
			return perr(p, "expected key=value, got '%s' (keys: %s)", f[i],
				    job_fields_list);
		*eq = '\0';
		for (k = 0; k < F_COUNT; k++)
			if (!strcmp(f[i], job_fields[k]))
				break;
		if (k == F_COUNT)
			return perr(p, "unknown job key '%s' (expected one of: %s)",
				    f[i], job_fields_list);
		if (val[k])
			return perr(p, "job key '%s' given twice", f[i]);
		if (!eq[1])
			return perr(p, "%s: empty value", f[i]);
		val[k] = eq + 1;
	}
	if (!val[F_ID])
		return perr(p, "job without id= (expected 'job id=NAME ...')");
	if (!valid_name(val[F_ID]))
		return perr(p, "id: expected 1 to %d letters, digits, '_', '.' or '-', got '%s'",
			    WL_ID_MAX - 1, val[F_ID]);
	if (val[F_USER] && !valid_name(val[F_USER]))
		return perr(p, "user: expected 1 to %d letters, digits, '_', '.' or '-', got '%s'",
			    WL_ID_MAX - 1, val[F_USER]);
	{
		static const int required[] = { F_ARRIVAL, F_INPUT, F_OUTPUT,
						F_MAPS, F_REDUCES };
		for (i = 0; i < (int)ARRAY_SIZE(required); i++)
			if (!val[required[i]])
				return perr(p, "job '%s': missing %s=", val[F_ID],
					    job_fields[required[i]]);
	}
	if (val[F_SHUFFLE] && val[F_SIR])
		return perr(p, "job '%s': give shuffle= or sir=, not both", val[F_ID]);
	if (!val[F_SHUFFLE] && !val[F_SIR] && !val[F_REDUCE_BYTES])
		return perr(p, "job '%s': missing shuffle= (or sir=, the shuffle/input ratio)",
			    val[F_ID]);

	j = wl_add_job(wl, val[F_ID], val[F_USER]);
	j->line = p->line;
	xgrow((void **)&p->parent_names, &p->parent_cap, wl->n_jobs,
	      sizeof(*p->parent_names));

	if (!strcmp(val[F_INPUT], "parents")) {
		/* data lineage: the parents' output parts, summed in
		 * wl_finish once every parent is known */
		if (!val[F_PARENTS])
			return perr(p, "input=parents: job '%s' has no parents= to read from",
				    val[F_ID]);
		j->input_from_parents = true;
	} else if ((r = parse_job_size(p, "input", val[F_INPUT], &j->input))) {
		return r;
	}
	if ((r = parse_job_time(p, "arrival", val[F_ARRIVAL], &j->arrival)) ||
	    (r = parse_job_size(p, "output", val[F_OUTPUT], &j->output)) ||
	    (r = parse_job_count(p, "maps", val[F_MAPS], 1, &j->maps)) ||
	    (r = parse_job_count(p, "reduces", val[F_REDUCES], 0, &j->reduces)))
		return r;
	if (j->input == 0 && !j->input_from_parents)
		return perr(p, "input: a job needs input bytes (got 0)");
	if (val[F_SHUFFLE]) {
		if ((r = parse_job_size(p, "shuffle", val[F_SHUFFLE], &shuffle)))
			return r;
		j->shuffle = shuffle;
	} else if (val[F_SIR]) {
		if (parse_double(val[F_SIR], 0, 1e6, &sir))
			return perr(p, "sir: expected a shuffle/input ratio from 0 to 1e6, got '%s'",
				    val[F_SIR]);
		j->sir = sir;
		j->shuffle = (uint64_t)((double)j->input * sir + 0.5);
	}
	j->map_time = j->reduce_time = -1;
	if (val[F_MAP_TIME] &&
	    (r = parse_job_time(p, "map_time", val[F_MAP_TIME], &j->map_time)))
		return r;
	if (val[F_REDUCE_TIME] &&
	    (r = parse_job_time(p, "reduce_time", val[F_REDUCE_TIME], &j->reduce_time)))
		return r;
	if (val[F_WORK]) {
		if (!strcmp(val[F_WORK], "sleep"))
			j->work = WL_WORK_SLEEP;
		else if (!strcmp(val[F_WORK], "cpu"))
			j->work = WL_WORK_CPU;
		else
			return perr(p, "work: expected 'sleep' or 'cpu', got '%s'", val[F_WORK]);
	}
	if (val[F_MAP_RACKS]) {
		if (parse_list(val[F_MAP_RACKS], j->maps, sizeof(uint32_t),
			       parse_rack_item, &arr, &cnt))
			return perr(p, "map_racks: expected %u rack numbers separated by commas (one per map), got '%s'",
				    j->maps, val[F_MAP_RACKS]);
		j->map_racks = arr;
	}
	if (val[F_REDUCE_RACKS]) {
		/* the list is the job's as soon as it is made: freed with it
		 * on any error (a leak when reduces=0, found by fuzzing) */
		if (parse_list(val[F_REDUCE_RACKS], j->reduces, sizeof(uint32_t),
			       parse_rack_item, &arr, &cnt) ||
		    (j->reduce_racks = arr, j->reduces == 0))
			return perr(p, "reduce_racks: expected %u rack numbers separated by commas (one per reduce), got '%s'",
				    j->reduces, val[F_REDUCE_RACKS]);
	}
	if (val[F_INPUT_RACKS]) {
		if (j->input_from_parents)
			return perr(p, "input_racks: job '%s' reads its parents' output (input=parents): it is where they wrote it",
				    val[F_ID]);
		if (parse_list(val[F_INPUT_RACKS], 0, sizeof(uint32_t), parse_rack_item, &arr, &cnt))
			return perr(p, "input_racks: expected rack numbers separated by commas, got '%s'",
				    val[F_INPUT_RACKS]);
		j->input_racks = arr;
		j->n_input_racks = cnt;
	}
	if (val[F_REDUCE_BYTES]) {
		uint64_t sum = 0;

		if (val[F_SIR])
			return perr(p, "job '%s': reduce_bytes= fixes the shuffle; sir= cannot be given too",
				    val[F_ID]);
		if (parse_list(val[F_REDUCE_BYTES], j->reduces, sizeof(uint64_t),
			       parse_size_item, &arr, &cnt) ||
		    (j->reduce_bytes = arr, j->reduces == 0))
			return perr(p, "reduce_bytes: expected %u sizes separated by commas (one per reduce), got '%s'",
				    j->reduces, val[F_REDUCE_BYTES]);
		for (i = 0; i < (int)cnt; i++) {
			if (j->reduce_bytes[i] > WL_MAX_BYTES)
				return perr(p, "reduce_bytes: absurdly large size");
			sum += j->reduce_bytes[i];
		}
		if (val[F_SHUFFLE] && sum != j->shuffle)
			return perr(p, "job '%s': reduce_bytes add up to %" PRIu64 " bytes but shuffle=%s",
				    val[F_ID], sum, val[F_SHUFFLE]);
		j->shuffle = sum;
	}
	if ((r = parse_flow_keys(p, j, val)))
		return r;
	if (val[F_CLASS]) {
		for (i = 0; i < 3 && strcmp(val[F_CLASS], wl_class_name((enum wl_class)i)); i++)
			;
		if (i == 3)
			return perr(p, "class: expected light, medium or heavy, got '%s'",
				    val[F_CLASS]);
		j->has_class = true;
		j->cls = (enum wl_class)i;
	}
	if (val[F_APP]) {
		if (!valid_name(val[F_APP]))
			return perr(p, "app: expected 1 to %d letters, digits, '_', '.' or '-', got '%s'",
				    WL_ID_MAX - 1, val[F_APP]);
		j->app = xstrdup(val[F_APP]);
	}
	if (val[F_MAP_CPU] && parse_double(val[F_MAP_CPU], 1e-6, 4096, &j->map_cpu))
		return perr(p, "map_cpu: expected a number of cores from 0.000001 to 4096, got '%s'",
			    val[F_MAP_CPU]);
	if (val[F_REDUCE_CPU] && parse_double(val[F_REDUCE_CPU], 1e-6, 4096, &j->reduce_cpu))
		return perr(p, "reduce_cpu: expected a number of cores from 0.000001 to 4096, got '%s'",
			    val[F_REDUCE_CPU]);
	if ((val[F_MAP_MEM] && (r = parse_job_size(p, "map_mem", val[F_MAP_MEM], &j->map_mem))) ||
	    (val[F_REDUCE_MEM] &&
	     (r = parse_job_size(p, "reduce_mem", val[F_REDUCE_MEM], &j->reduce_mem))))
		return r;
	if ((val[F_MAP_MEM] && !j->map_mem) || (val[F_REDUCE_MEM] && !j->reduce_mem))
		return perr(p, "%s: a task's memory must be more than 0 bytes",
			    val[F_MAP_MEM] && !j->map_mem ? "map_mem" : "reduce_mem");
	if (val[F_PARENTS])
		p->parent_names[wl->n_jobs - 1] = xstrdup(val[F_PARENTS]);
	return 0;
}

enum { D_MAP_RATE, D_REDUCE_RATE, D_MAP_BASE, D_REDUCE_BASE };

static int parse_directive(struct wl_parser *p, char **f, int nf)
{
	static const char *const names[] = { "map_rate", "reduce_rate",
					     "map_base", "reduce_base" };
	struct workload *wl = p->wl;
	unsigned d;

	for (d = 0; d < ARRAY_SIZE(names); d++)
		if (!strcmp(f[0], names[d]))
			break;
	if (d == ARRAY_SIZE(names))
		return perr(p, "unknown directive '%s' (expected 'job key=value...', map_rate, reduce_rate, map_base or reduce_base)",
			    f[0]);
	if (nf != 2)
		return perr(p, "expected '%s %s'", f[0], d < 2 ? "RATE" : "TIME");
	if (p->seen_directive[d])
		return perr(p, "'%s' given twice (first on line %u)", f[0],
			    p->seen_directive[d]);
	p->seen_directive[d] = p->line;
	if (d < 2) {
		uint64_t v;

		if (unit_parse_rate(f[1], &v) || v == 0)
			return perr(p, "%s: expected a processing rate such as 50MB/s, got '%s'",
				    f[0], f[1]);
		if (d == D_MAP_RATE)
			wl->map_rate = v;
		else
			wl->reduce_rate = v;
	} else {
		int64_t v;
		int r = parse_job_time(p, f[0], f[1], &v);

		if (r)
			return r;
		if (d == D_MAP_BASE)
			wl->map_base = v;
		else
			wl->reduce_base = v;
	}
	return 0;
}

static int resolve_parents(struct wl_parser *p, const struct id_index *ix)
{
	struct workload *wl = p->wl;
	size_t i;

	for (i = 0; i < wl->n_jobs; i++) {
		char *names = p->parent_names[i], *save = NULL, *tok;
		struct wl_job *j = &wl->jobs[i];
		uint32_t n = 1, k;

		if (!names)
			continue;
		p->line = j->line;
		for (tok = names; *tok; tok++)
			n += *tok == ',';
		if (names[0] == ',' || tok[-1] == ',' || strstr(names, ",,"))
			return perr(p, "parents: expected job ids separated by commas, got '%s'", names);
		j->parents = xcalloc(n, sizeof(uint32_t));
		for (tok = strtok_r(names, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			long o = id_index_find(ix, wl, tok);

			if (o < 0)
				return perr(p, "parents: job '%s' has parent '%s', which is not a job of this workload",
					    j->id, tok);
			for (k = 0; k < j->n_parents; k++)
				if (j->parents[k] == (uint32_t)o)
					return perr(p, "parents: '%s' listed twice", tok);
			j->parents[j->n_parents++] = (uint32_t)o;
		}
	}
	return 0;
}

static void wl_job_name_err(const struct workload *wl, const struct wl_job *j,
			    const char *path, char *errbuf, const char *msg)
{
	(void)wl;
	if (j->line)
		errbuf_set(errbuf, "%s:%u: job '%s': %s", path, j->line, j->id, msg);
	else
		errbuf_set(errbuf, "%s: job '%s': %s", path, j->id, msg);
}

/* Kahn's algorithm: depth of every job; fails on a cycle. */
static int dag_levels(const struct workload *wl, unsigned *level, long *cyclic)
{
	size_t n = wl->n_jobs, i, head = 0, tail = 0, done = 0;
	uint32_t *indeg = xcalloc(n, sizeof(uint32_t));
	uint32_t *queue = xcalloc(n, sizeof(uint32_t));
	uint32_t *nchild = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *child, *fill;
	uint32_t k;

	/* children lists in CSR form */
	for (i = 0; i < n; i++)
		for (k = 0; k < wl->jobs[i].n_parents; k++)
			nchild[wl->jobs[i].parents[k] + 1]++;
	for (i = 0; i < n; i++)
		nchild[i + 1] += nchild[i];
	child = xcalloc(nchild[n] + 1, sizeof(uint32_t));
	fill = xcalloc(n, sizeof(uint32_t));
	for (i = 0; i < n; i++)
		for (k = 0; k < wl->jobs[i].n_parents; k++) {
			uint32_t par = wl->jobs[i].parents[k];

			child[nchild[par] + fill[par]++] = (uint32_t)i;
		}
	for (i = 0; i < n; i++) {
		indeg[i] = wl->jobs[i].n_parents;
		level[i] = 1;
		if (!indeg[i])
			queue[tail++] = (uint32_t)i;
	}
	while (head < tail) {
		uint32_t u = queue[head++];

		done++;
		for (k = nchild[u]; k < nchild[u + 1]; k++) {
			uint32_t c = child[k];

			if (level[c] < level[u] + 1)
				level[c] = level[u] + 1;
			if (--indeg[c] == 0)
				queue[tail++] = c;
		}
	}
	*cyclic = -1;
	if (done < n)
		for (i = 0; i < n; i++)
			if (indeg[i]) {
				*cyclic = (long)i;
				break;
			}
	free(indeg);
	free(queue);
	free(nchild);
	free(child);
	free(fill);
	return *cyclic < 0 ? 0 : -ELOOP;
}

unsigned wl_dag_depth(const struct workload *wl)
{
	unsigned *level = xcalloc(wl->n_jobs + 1, sizeof(unsigned));
	unsigned depth = 0;
	long cyc;
	size_t i;

	if (dag_levels(wl, level, &cyc) == 0)
		for (i = 0; i < wl->n_jobs; i++)
			if (level[i] > depth)
				depth = level[i];
	free(level);
	return depth;
}

/* input=parents: the sum of the parents' outputs (Dawn §2: a child reads
 * what its parents wrote); sir= applies to it. */
static int input_from_parents(struct workload *wl, struct wl_job *j, const char *path,
			      char *errbuf)
{
	uint64_t sum = 0;
	uint32_t k;

	if (!j->n_parents) {
		wl_job_name_err(wl, j, path, errbuf, "reads input=parents but has no parents");
		return -EINVAL;
	}
	for (k = 0; k < j->n_parents; k++)
		sum += wl->jobs[j->parents[k]].output;
	if (sum == 0) {
		wl_job_name_err(wl, j, path, errbuf,
				"reads input=parents but its parents write no output (output=0B)");
		return -EINVAL;
	}
	j->input = sum;
	if (j->sir > 0)
		j->shuffle = (uint64_t)((double)j->input * j->sir + 0.5);
	return 0;
}

/* Distinct names (users, apps) in order of first appearance, and each
 * job's index among them. */
static void resolve_names(struct workload *wl, const char *(*name_of)(const struct wl_job *),
			  char ***names, size_t *n_names, uint32_t **of)
{
	size_t cap = 16, i, u;
	uint32_t *slot;

	while (cap < wl->n_jobs * 2)
		cap *= 2;
	slot = xcalloc(cap, sizeof(uint32_t));
	for (i = 0; i < *n_names; i++)
		free((*names)[i]);
	free(*names);
	free(*of);
	*names = NULL;
	*n_names = 0;
	*of = xcalloc(wl->n_jobs + 1, sizeof(uint32_t));
	for (i = 0; i < wl->n_jobs; i++) {
		const char *nm = name_of(&wl->jobs[i]);
		size_t h = hash_str(nm) & (cap - 1);

		for (;;) {
			if (!slot[h]) {
				if ((*n_names & (*n_names - 1)) == 0)
					*names = xrealloc(*names,
						(*n_names ? *n_names * 2 : 1) * sizeof(char *));
				(*names)[(*n_names)++] = xstrdup(nm);
				slot[h] = (uint32_t)*n_names;
				break;
			}
			u = slot[h] - 1;
			if (!strcmp((*names)[u], nm))
				break;
			h = (h + 1) & (cap - 1);
		}
		(*of)[i] = slot[h] - 1;
	}
	free(slot);
}

static const char *user_name(const struct wl_job *j)
{
	return j->user;
}

static const char *app_name(const struct wl_job *j)
{
	return j->app ? j->app : j->id;
}

static int resolve_users(struct workload *wl)
{
	resolve_names(wl, user_name, &wl->users, &wl->n_users, &wl->user_of);
	resolve_names(wl, app_name, &wl->apps, &wl->n_apps, &wl->app_of);
	return 0;
}

/* Task time from a processing rate: base + bytes / rate. */
static int64_t derive_time(int64_t base, uint64_t bytes, uint64_t rate_bps)
{
	double t = (double)bytes * 8.0 / (double)rate_bps * 1e9;

	return base + (int64_t)(t + 0.5);
}

/* The bounds the parser puts on each value, on what an importer or a
 * derivation made (a derived time, a shuffle from sir=): a workload that
 * passes wl_finish can be written and read back (found by fuzzing the
 * importers: a SWIM trace spanning years, arrivals before the start). */
static int check_limits(const struct workload *wl, const struct wl_job *j,
			const char *path, char *errbuf)
{
	const char *what = NULL;

	if (j->arrival < 0)
		what = "arrives before the run starts (expected an arrival of 0 or more)";
	else if (j->arrival > WL_MAX_TIME)
		what = "arrives more than a year after the start";
	else if (j->map_time > WL_MAX_TIME || j->reduce_time > WL_MAX_TIME)
		what = "has a task time of more than a year";
	else if (!j->input || j->input > WL_MAX_BYTES || j->shuffle > WL_MAX_BYTES ||
		 j->output > WL_MAX_BYTES)
		what = "has a size of 0 input bytes or of more than 1EB";
	else if (!j->maps || j->maps > WL_MAX_TASKS || j->reduces > WL_MAX_TASKS)
		what = "has no map, or more than 1000000 maps or reduces";
	if (!what)
		return 0;
	wl_job_name_err(wl, j, path, errbuf, what);
	return -EINVAL;
}

int wl_finish(struct workload *wl, const char *path, char *errbuf)
{
	struct id_index ix;
	unsigned *level;
	size_t i;
	long o, cyc;
	int r = 0;

	if (wl->n_jobs == 0) {
		errbuf_set(errbuf, "%s: no jobs (expected at least one 'job id=...' line)", path);
		return -EINVAL;
	}
	id_index_build(&ix, wl);
	for (i = 0; i < wl->n_jobs; i++) {
		struct wl_job *j = &wl->jobs[i];
		char msg[256];

		o = id_index_add(&ix, wl, (uint32_t)i);
		if (o >= 0) {
			snprintf(msg, sizeof(msg), "duplicate id (first defined%s%u)",
				 wl->jobs[o].line ? " on line " : " as job #",
				 wl->jobs[o].line ? wl->jobs[o].line : (unsigned)o);
			wl_job_name_err(wl, j, path, errbuf, msg);
			r = -EINVAL;
			goto out;
		}
		if (j->input_from_parents && (r = input_from_parents(wl, j, path, errbuf)))
			goto out;
		if (!valid_name(j->id) || !valid_name(j->user)) {
			/* an importer's names, as the parser wants them: else
			 * a written workload does not read back (found by
			 * fuzzing the SWIM importer) */
			char shown[WL_ID_MAX + 4];
			const char *bad = valid_name(j->id) ? j->user : j->id;
			size_t k;

			for (k = 0; bad[k] && k < WL_ID_MAX; k++)
				shown[k] = isprint((unsigned char)bad[k]) ? bad[k] : '?';
			strcpy(shown + k, bad[k] ? "..." : "");
			errbuf_set(errbuf, "%s:%u: %s '%s': expected 1 to %d letters, digits, '_', '.' or '-'",
				   path, j->line, bad == j->id ? "job id" : "user", shown,
				   WL_ID_MAX - 1);
			r = -EINVAL;
			goto out;
		}
		if (j->shuffle > 0 && j->reduces == 0) {
			wl_job_name_err(wl, j, path, errbuf,
					"has shuffle bytes but reduces=0 (expected reduces >= 1)");
			r = -EINVAL;
			goto out;
		}
		if (j->map_time < 0) {
			if (!wl->map_rate) {
				wl_job_name_err(wl, j, path, errbuf,
						"no map_time= and no 'map_rate' directive to derive it");
				r = -EINVAL;
				goto out;
			}
			j->map_time = derive_time(wl->map_base, j->input / j->maps,
						  wl->map_rate);
		}
		if (j->reduce_time < 0) {
			if (j->reduces == 0) {
				j->reduce_time = 0;
			} else if (!wl->reduce_rate) {
				wl_job_name_err(wl, j, path, errbuf,
						"no reduce_time= and no 'reduce_rate' directive to derive it");
				r = -EINVAL;
				goto out;
			} else {
				j->reduce_time = derive_time(wl->reduce_base,
							     j->shuffle / j->reduces,
							     wl->reduce_rate);
			}
		}
		if ((r = check_limits(wl, j, path, errbuf)))
			goto out;
	}
	level = xcalloc(wl->n_jobs, sizeof(unsigned));
	for (i = 0; i < wl->n_jobs && !r; i++) {
		uint32_t k;

		for (k = 0; k < wl->jobs[i].n_parents; k++)
			if (wl->jobs[i].parents[k] == i) {
				wl_job_name_err(wl, &wl->jobs[i], path, errbuf,
						"lists itself as a parent (a cycle)");
				r = -ELOOP;
			}
	}
	if (!r && dag_levels(wl, level, &cyc)) {
		wl_job_name_err(wl, &wl->jobs[cyc], path, errbuf,
				"is on a dependency cycle (parents= must form a DAG)");
		r = -ELOOP;
	}
	free(level);
	if (!r)
		resolve_users(wl);
out:
	free(ix.slot);
	return r;
}

int wl_parse(FILE *fp, const char *path, struct workload **out, char *errbuf)
{
	struct wl_parser p = { .path = path, .errbuf = errbuf };
	char *buf = NULL, *f[64];
	size_t cap = 0, i;
	long n;
	int nf, r = 0;

	p.wl = wl_new();
	while ((n = read_line(fp, &buf, &cap)) != -1) {
		p.line++;
		if (n == -2) {
			r = perr(&p, "not a text file (NUL byte)");
			goto err;
		}
		nf = str_split_fields(buf, f, (int)ARRAY_SIZE(f) - 1);
		if (nf == 0)
			continue;
		if (nf >= (int)ARRAY_SIZE(f)) {
			r = perr(&p, "too many fields (at most %zu)", ARRAY_SIZE(f) - 1);
			goto err;
		}
		if (!strcmp(f[0], "job"))
			r = parse_job_line(&p, f, nf);
		else
			r = parse_directive(&p, f, nf);
		if (r)
			goto err;
	}
	if (ferror(fp)) {
		errbuf_set(errbuf, "%s: read error", path);
		r = -EIO;
		goto err;
	}
	xgrow((void **)&p.parent_names, &p.parent_cap, p.wl->n_jobs + 1,
	      sizeof(*p.parent_names));
	{
		struct id_index ix;

		/* duplicates are reported by wl_finish; build an index that
		 * keeps the first definition for parent lookups */
		id_index_build(&ix, p.wl);
		for (i = 0; i < p.wl->n_jobs; i++)
			id_index_add(&ix, p.wl, (uint32_t)i);
		r = resolve_parents(&p, &ix);
		free(ix.slot);
	}
	if (r)
		goto err;
	r = wl_finish(p.wl, path, errbuf);
	if (r)
		goto err;
	for (i = 0; i < p.parent_cap; i++)
		free(p.parent_names[i]);
	free(p.parent_names);
	free(buf);
	*out = p.wl;
	return 0;
err:
	for (i = 0; i < p.parent_cap; i++)
		free(p.parent_names[i]);
	free(p.parent_names);
	free(buf);
	wl_free(p.wl);
	return r;
}

int wl_load(const char *path, struct workload **out, char *errbuf)
{
	FILE *fp;
	int r;

	if ((r = file_open_read(path, &fp, errbuf)))
		return r;
	r = wl_parse(fp, path, out, errbuf);
	fclose(fp);
	return r;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/* "KIND:PATH[,key=value...]": split off the options and apply each with
 * set(); a bad one is reported against the spec. *path is the caller's. */
static int spec_opts(const char *spec, void *o,
		     int (*set)(void *o, const char *kv, char *errbuf),
		     char **path, char *errbuf)
{
	const char *rest = strchr(spec, ':') + 1;
	char *copy = xstrdup(rest), *kv, *save = NULL, msg[HYDE_ERRBUF_SIZE];
	size_t n = strcspn(copy, ",");

	if (copy[n]) {
		copy[n] = '\0';
		for (kv = strtok_r(copy + n + 1, ",", &save); kv;
		     kv = strtok_r(NULL, ",", &save))
			if (set(o, kv, msg)) {
				errbuf_set(errbuf, "%s: %s", spec, msg);
				free(copy);
				return -EINVAL;
			}
	}
	*path = copy;
	return 0;
}

static int set_swim(void *o, const char *kv, char *errbuf)
{
	return swim_opts_set(o, kv, errbuf);
}

static int set_coflow(void *o, const char *kv, char *errbuf)
{
	return coflow_opts_set(o, kv, errbuf);
}

static int set_gen_fb(void *o, const char *kv, char *errbuf)
{
	return gen_fb_opts_set(o, kv, errbuf);
}

static int set_gen_dag(void *o, const char *kv, char *errbuf)
{
	return gen_dag_opts_set(o, kv, errbuf);
}

/* "gen:fb[,key=value...]" and "gen:dag[,...]": drawn here, with the run's
 * seed unless the spec gives its own. */
static int gen_open(const char *spec, uint64_t seed, struct workload **out, char *errbuf)
{
	struct gen_fb_opts fb;
	struct gen_dag_opts dag;
	char *name;
	int r;

	gen_fb_opts_default(&fb);
	gen_dag_opts_default(&dag);
	fb.seed = dag.seed = seed;
	if (!strncmp(spec + 4, "fb", 2) && (!spec[6] || spec[6] == ',')) {
		if ((r = spec_opts(spec, &fb, set_gen_fb, &name, errbuf)))
			return r;
		free(name);
		return wl_gen_fb(&fb, out, errbuf);
	}
	if (!strncmp(spec + 4, "dag", 3) && (!spec[7] || spec[7] == ',')) {
		if ((r = spec_opts(spec, &dag, set_gen_dag, &name, errbuf)))
			return r;
		free(name);
		return wl_gen_dag(&dag, out, errbuf);
	}
	errbuf_set(errbuf, "%s: expected gen:fb or gen:dag, then ,KEY=VALUE options", spec);
	return -EINVAL;
}

int wl_open(const char *spec, struct workload **out, char *errbuf)
{
	return wl_open_seed(spec, 1, out, errbuf);
}

int wl_open_seed(const char *spec, uint64_t seed, struct workload **out, char *errbuf)
{
	char *path;
	int r;

	if (!strncmp(spec, "gen:", 4))
		return gen_open(spec, seed, out, errbuf);

	if (!strncmp(spec, "swim:", 5)) {
		struct swim_opts o;

		swim_opts_default(&o);
		if ((r = spec_opts(spec, &o, set_swim, &path, errbuf)))
			return r;
		r = wl_import_swim(path, &o, out, errbuf);
		free(path);
		return r;
	}
	if (!strncmp(spec, "coflow:", 7)) {
		struct coflow_opts o;

		coflow_opts_default(&o);
		if ((r = spec_opts(spec, &o, set_coflow, &path, errbuf)))
			return r;
		r = wl_import_coflow(path, &o, out, errbuf);
		free(path);
		return r;
	}
	if (!strncmp(spec, "wl:", 3))
		return wl_load(spec + 3, out, errbuf);
	if (has_suffix(spec, ".tsv")) {
		struct swim_opts o;

		swim_opts_default(&o);
		return wl_import_swim(spec, &o, out, errbuf);
	}
	return wl_load(spec, out, errbuf);
}

/* ---- writing ---- */

static void write_list_u32(FILE *fp, const char *key, const uint32_t *v,
			   uint32_t n)
{
	uint32_t i;

	fprintf(fp, " %s=", key);
	for (i = 0; i < n; i++)
		fprintf(fp, "%s%" PRIu32, i ? "," : "", v[i]);
}

/* The shortest decimal that reads back as v. */
static const char *fmt_double(double v, char *buf, size_t len)
{
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return buf;
	}
	snprintf(buf, len, "%.17g", v);
	return buf;
}

int wl_write(const struct workload *wl, FILE *fp)
{
	char a[64], b[64], c[64], d[64];
	size_t i;
	uint32_t k;

	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *j = &wl->jobs[i];

		fprintf(fp, "job id=%s user=%s arrival=%s input=%s shuffle=%s output=%s",
			j->id, j->user, unit_fmt_time(j->arrival, a, sizeof(a)),
			j->input_from_parents ? "parents" : unit_fmt_size(j->input, b, sizeof(b)),
			unit_fmt_size(j->shuffle, c, sizeof(c)),
			unit_fmt_size(j->output, d, sizeof(d)));
		fprintf(fp, " maps=%" PRIu32 " reduces=%" PRIu32 " map_time=%s reduce_time=%s",
			j->maps, j->reduces, unit_fmt_time(j->map_time, a, sizeof(a)),
			unit_fmt_time(j->reduce_time, b, sizeof(b)));
		if (j->work == WL_WORK_CPU)
			fputs(" work=cpu", fp);
		if (j->app)
			fprintf(fp, " app=%s", j->app);
		if (j->map_cpu > 0)
			fprintf(fp, " map_cpu=%s", fmt_double(j->map_cpu, a, sizeof(a)));
		if (j->map_mem)
			fprintf(fp, " map_mem=%s", unit_fmt_size(j->map_mem, a, sizeof(a)));
		if (j->reduce_cpu > 0)
			fprintf(fp, " reduce_cpu=%s", fmt_double(j->reduce_cpu, a, sizeof(a)));
		if (j->reduce_mem)
			fprintf(fp, " reduce_mem=%s", unit_fmt_size(j->reduce_mem, a, sizeof(a)));
		if (j->n_parents) {
			fputs(" parents=", fp);
			for (k = 0; k < j->n_parents; k++)
				fprintf(fp, "%s%s", k ? "," : "", wl->jobs[j->parents[k]].id);
		}
		if (j->map_racks)
			write_list_u32(fp, "map_racks", j->map_racks, j->maps);
		if (j->reduce_racks)
			write_list_u32(fp, "reduce_racks", j->reduce_racks, j->reduces);
		if (j->input_racks)
			write_list_u32(fp, "input_racks", j->input_racks, j->n_input_racks);
		if (j->reduce_bytes) {
			fputs(" reduce_bytes=", fp);
			for (k = 0; k < j->reduces; k++)
				fprintf(fp, "%s%s", k ? "," : "",
					unit_fmt_size(j->reduce_bytes[k], a, sizeof(a)));
		}
		if (j->input_hosts) {
			fputs(" input_hosts=", fp);
			for (k = 0; k < j->n_input_hosts; k++)
				fprintf(fp, "%sr%" PRIu32 "h%" PRIu32, k ? "," : "",
					j->input_hosts[k].rack, j->input_hosts[k].host);
		}
		if (j->block_bytes) {
			fputs(" block_bytes=", fp);
			for (k = 0; k < j->maps; k++)
				fprintf(fp, "%s%s", k ? "," : "",
					unit_fmt_size(j->block_bytes[k], a, sizeof(a)));
		}
		if (j->remote)
			fputs(" remote=yes", fp);
		if (j->has_class)
			fprintf(fp, " class=%s", wl_class_name(j->cls));
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}

/* ---- queries ---- */

uint64_t wl_block_bytes(const struct wl_job *j, uint32_t m)
{
	if (j->block_bytes)
		return j->block_bytes[m];
	return j->input / j->maps + (m < j->input % j->maps);
}

uint64_t wl_reduce_bytes(const struct wl_job *j, uint32_t r)
{
	if (j->reduce_bytes)
		return j->reduce_bytes[r];
	return j->shuffle / j->reduces + (r < j->shuffle % j->reduces);
}

uint64_t wl_partition_bytes(const struct wl_job *j, uint32_t m, uint32_t r)
{
	uint64_t rb = wl_reduce_bytes(j, r);

	return rb / j->maps + (m < rb % j->maps);
}

uint64_t wl_map_output_bytes(const struct wl_job *j, uint32_t m)
{
	uint64_t sum = 0, base, rb[2];
	uint32_t r, n_hi;

	if (!j->reduces || !j->maps)
		return 0;
	if (j->reduce_bytes) {
		for (r = 0; r < j->reduces; r++)
			sum += wl_partition_bytes(j, m, r);
		return sum;
	}
	/* an even split has two kinds of reduce: shuffle % reduces of them
	 * receive one byte more than the others (wl_reduce_bytes) */
	base = j->shuffle / j->reduces;
	n_hi = (uint32_t)(j->shuffle % j->reduces);
	rb[0] = base;
	rb[1] = base + 1;
	sum = (uint64_t)(j->reduces - n_hi) * (rb[0] / j->maps + (m < rb[0] % j->maps));
	sum += (uint64_t)n_hi * (rb[1] / j->maps + (m < rb[1] % j->maps));
	return sum;
}

enum wl_class wl_shuffle_class(uint64_t shuffle)
{
	if (shuffle < WL_LIGHT_MAX)
		return WL_LIGHT;
	if (shuffle > WL_HEAVY_MIN)
		return WL_HEAVY;
	return WL_MEDIUM;
}

enum wl_class wl_job_class(const struct wl_job *j)
{
	return j->has_class ? j->cls : wl_shuffle_class(j->shuffle);
}

const char *wl_class_name(enum wl_class c)
{
	static const char *const names[] = { "light", "medium", "heavy" };

	return names[c];
}

static const struct workload *sort_wl;

static int cmp_arrival(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t tx = sort_wl->jobs[x].arrival, ty = sort_wl->jobs[y].arrival;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

uint32_t *wl_arrival_order(const struct workload *wl)
{
	uint32_t *order = xcalloc(wl->n_jobs + 1, sizeof(uint32_t));
	size_t i;

	for (i = 0; i < wl->n_jobs; i++)
		order[i] = (uint32_t)i;
	sort_wl = wl;
	xqsort(order, wl->n_jobs, sizeof(uint32_t), cmp_arrival);
	sort_wl = NULL;
	return order;
}
