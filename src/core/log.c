#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static int log_level = LOG_LVL_WARN;
static const char *log_prog = "hyde";

void log_set_level(int level)
{
	log_level = level;
}

int log_get_level(void)
{
	return log_level;
}

void log_set_prog(const char *prog)
{
	log_prog = prog;
}

static void log_vemit(int level, int with_errno, int saved_errno,
		      const char *fmt, va_list ap)
{
	char msg[1024];

	if (level > log_level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (with_errno)
		fprintf(stderr, "%s: %s: %s\n", log_prog, msg,
			strerror(saved_errno));
	else
		fprintf(stderr, "%s: %s\n", log_prog, msg);
}

#define LOG_BODY(level, with_errno)                                     \
	do {                                                            \
		int saved_errno = errno;                                \
		va_list ap;                                             \
		va_start(ap, fmt);                                      \
		log_vemit(level, with_errno, saved_errno, fmt, ap);     \
		va_end(ap);                                             \
		errno = saved_errno;                                    \
	} while (0)

void log_warn(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_WARN, 1);
}

void log_warnx(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_WARN, 0);
}

void log_info(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_INFO, 0);
}

void log_debug(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_DEBUG, 0);
}

void log_warnx_rl(struct log_ratelimit *rl, const char *fmt, ...)
{
	struct timespec ts;
	long long now;
	va_list ap;

	if (LOG_LVL_WARN > log_level)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (!rl->start || now - rl->start >= rl->interval_ns) {
		rl->start = now;
		rl->n = 0;
	}
	if (rl->n >= rl->burst) {
		rl->suppressed++;
		return;
	}
	rl->n++;
	if (rl->suppressed) {
		fprintf(stderr, "%s: (%llu similar message(s) suppressed)\n", log_prog,
			rl->suppressed);
		rl->suppressed = 0;
	}
	va_start(ap, fmt);
	log_vemit(LOG_LVL_WARN, 0, 0, fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_ERR, 1);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_ERR, 0);
	exit(1);
}
