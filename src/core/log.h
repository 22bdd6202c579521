/* Logging in the lldpd style: warn appends errno text, warnx does not. */
#ifndef HYDE_LOG_H
#define HYDE_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LVL_ERR = 0,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

void log_set_level(int level);
int log_get_level(void);
/* Name printed before every message ("hyde" unless changed). */
void log_set_prog(const char *prog);

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Messages a peer can provoke (a malformed request, a slow client) go
 * through a rate limit, so that a flood of bad input cannot flood the log
 * or slow the server down: at most `burst` messages per `interval_ns`; the
 * ones beyond are counted, and the count is reported with the next message
 * that passes. Initialise with LOG_RATELIMIT(interval_ns, burst). */
struct log_ratelimit {
	long long interval_ns;
	unsigned burst;
	long long start;
	unsigned n;
	unsigned long long suppressed;
};
#define LOG_RATELIMIT(interval_ns, burst) { (interval_ns), (burst), 0, 0, 0 }
void log_warnx_rl(struct log_ratelimit *rl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print and exit with status 1 (the run failed). */
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
