#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
