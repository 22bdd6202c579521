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
/* Print and exit with status 1 (the run failed). */
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
