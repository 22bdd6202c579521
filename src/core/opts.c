#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "units.h"
#include "util.h"

static const struct opt_desc *opts_find(const struct opt_desc *d, size_t nd,
					const char *kv, size_t klen)
{
	size_t i;

	for (i = 0; i < nd; i++)
		if (strlen(d[i].name) == klen && !strncmp(kv, d[i].name, klen))
			return &d[i];
	return NULL;
}

static int opt_parse(void *o, const struct opt_desc *d, const char *v,
		     char *errbuf)
{
	char *p = (char *)o + d->off;
	uint64_t u;
	int64_t t;
	double x;

	switch (d->kind) {
	case O_DOUBLE:
		if (parse_double(v, d->min, d->max, &x))
			goto bad;
		*(double *)p = x;
		return 0;
	case O_SIZE:
		if (unit_parse_size(v, &u) || (double)u < d->min || (double)u > d->max)
			goto bad;
		*(uint64_t *)p = u;
		return 0;
	case O_RATE:
		if (unit_parse_rate(v, &u) || u == 0)
			goto bad;
		*(uint64_t *)p = u;
		return 0;
	case O_TIME:
		if (unit_parse_time(v, &t) || (double)t < d->min ||
		    (d->max > 0 && (double)t > d->max))
			goto bad;
		*(int64_t *)p = t;
		return 0;
	case O_BOOL:
		if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
			*(bool *)p = true;
		else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
			*(bool *)p = false;
		else
			goto bad;
		return 0;
	case O_STR:
		if (strlen(v) >= (size_t)d->max)
			goto bad;
		strcpy(p, v);
		return 0;
	case O_U32:
	case O_UNS:
	case O_U64:
	case O_SZ:
		if (parse_uint(v, (uint64_t)d->min, (uint64_t)d->max, &u))
			goto bad;
		if (d->kind == O_U32)
			*(uint32_t *)p = (uint32_t)u;
		else if (d->kind == O_UNS)
			*(unsigned *)p = (unsigned)u;
		else if (d->kind == O_U64)
			*(uint64_t *)p = u;
		else
			*(size_t *)p = (size_t)u;
		return 0;
	}
bad:
	switch (d->kind) {
	case O_SIZE:
		errbuf_set(errbuf, "%s: expected %s, got '%s'", d->name,
			   unit_size_expect, v);
		break;
	case O_RATE:
		errbuf_set(errbuf, "%s: expected %s, got '%s'", d->name,
			   unit_rate_expect, v);
		break;
	case O_TIME:
		errbuf_set(errbuf, "%s: expected %s, got '%s'", d->name,
			   unit_time_expect, v);
		break;
	case O_BOOL:
		errbuf_set(errbuf, "%s: expected yes or no, got '%s'", d->name, v);
		break;
	case O_STR:
		errbuf_set(errbuf, "%s: expected at most %d characters", d->name,
			   (int)d->max - 1);
		break;
	default:
		errbuf_set(errbuf, "%s: expected a number from %g to %g, got '%s'",
			   d->name, d->min, d->max, v);
	}
	return -EINVAL;
}

int opts_try_set(void *o, const struct opt_desc *d, size_t nd, const char *kv,
		 char *errbuf)
{
	const char *eq = strchr(kv, '=');
	const struct opt_desc *od;

	if (!eq || eq == kv) {
		errbuf_set(errbuf, "option '%s': expected key=value", kv);
		return -EINVAL;
	}
	od = opts_find(d, nd, kv, (size_t)(eq - kv));
	if (!od)
		return -ENOENT;
	return opt_parse(o, od, eq + 1, errbuf);
}

int opts_set(void *o, const struct opt_desc *d, size_t nd, const char *kv,
	     char *errbuf)
{
	int r = opts_try_set(o, d, nd, kv, errbuf);

	if (r == -ENOENT) {
		char names[1024] = "";
		size_t i, klen = strcspn(kv, "=");

		for (i = 0; i < nd; i++) {
			strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
			strncat(names, d[i].name, sizeof(names) - strlen(names) - 1);
		}
		errbuf_set(errbuf, "unknown option '%.*s' (expected one of: %s)",
			   (int)klen, kv, names);
		return -EINVAL;
	}
	return r;
}

void opts_print(const void *o, const struct opt_desc *d, size_t nd, void *fpv)
{
	FILE *fp = fpv;
	char buf[64];
	size_t i;

	for (i = 0; i < nd; i++) {
		const char *p = (const char *)o + d[i].off;

		switch (d[i].kind) {
		case O_DOUBLE:
			snprintf(buf, sizeof(buf), "%g", *(const double *)p);
			break;
		case O_SIZE:
			unit_fmt_size(*(const uint64_t *)p, buf, sizeof(buf));
			break;
		case O_RATE:
			unit_fmt_rate(*(const uint64_t *)p, buf, sizeof(buf));
			break;
		case O_TIME:
			unit_fmt_time(*(const int64_t *)p, buf, sizeof(buf));
			break;
		case O_U32:
			snprintf(buf, sizeof(buf), "%" PRIu32, *(const uint32_t *)p);
			break;
		case O_UNS:
			snprintf(buf, sizeof(buf), "%u", *(const unsigned *)p);
			break;
		case O_U64:
			snprintf(buf, sizeof(buf), "%" PRIu64, *(const uint64_t *)p);
			break;
		case O_SZ:
			snprintf(buf, sizeof(buf), "%zu", *(const size_t *)p);
			break;
		case O_BOOL:
			snprintf(buf, sizeof(buf), "%s", *(const bool *)p ? "yes" : "no");
			break;
		case O_STR:
			snprintf(buf, sizeof(buf), "%s", p);
			break;
		}
		fprintf(fp, "  %-14s %-12s %s\n", d[i].name, buf,
			d[i].help ? d[i].help : "");
	}
}
