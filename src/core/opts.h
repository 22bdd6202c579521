/* key=value options described by a table (used by the importers, the
 * generators and, through -S, the schedulers). */
#ifndef HYDE_OPTS_H
#define HYDE_OPTS_H

#include <stddef.h>

enum opt_kind {
	O_DOUBLE, /* double */
	O_SIZE,	  /* uint64_t bytes, with a unit */
	O_RATE,	  /* uint64_t bit/s, with a unit */
	O_TIME,	  /* int64_t ns, with a unit */
	O_U32,	  /* uint32_t */
	O_UNS,	  /* unsigned */
	O_U64,	  /* uint64_t */
	O_SZ,	  /* size_t */
	O_BOOL,	  /* bool: yes/no, true/false, 1/0 */
	O_STR,	  /* char[max] (max given in .max) */
};

struct opt_desc {
	const char *name;
	enum opt_kind kind;
	size_t off;
	double min, max; /* range; for O_STR, max is the buffer size */
	const char *help;
};

#define OPT(st, f, k, lo, hi, help) { #f, k, offsetof(struct st, f), lo, hi, help }

/* Set one "key=value" on the struct at o. Returns 0, or -EINVAL with a
 * message naming the key and what was expected (or the known keys). */
int opts_set(void *o, const struct opt_desc *d, size_t nd, const char *kv,
	     char *errbuf);
/* Same, but -ENOENT (no message) when the key is not in the table. */
int opts_try_set(void *o, const struct opt_desc *d, size_t nd, const char *kv,
		 char *errbuf);
/* "key=value" of every option, one per line with its help, for --help. */
void opts_print(const void *o, const struct opt_desc *d, size_t nd, void *fp);

#endif
