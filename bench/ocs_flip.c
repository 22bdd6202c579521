/* Drive the crossbar through many reconfigurations for bench/ocs.sh:
 *   ocs_flip SOCKET DELTA COUNT DWELL_US CONF_A CONF_B
 * sets delta, subscribes to circuit events, then COUNT times switches to
 * CONF_A / CONF_B alternately (each a quoted circuit list), waits for the
 * new circuits to come up and DWELL_US more, and prints one line per
 * reconfiguration: "T_DOWN T_UP" in the crossbar's CLOCK_MONOTONIC ns (the
 * set's time and the up events' time). The first switch is not reported
 * (it starts from whatever was configured).
 *   ocs_flip timer DELTA_NS COUNT [other]
 * is the reference: the crossbar's way of waiting (SCHED_FIFO at the
 * crossbar's priority, timer slack 1 ns, sleep to DELTA - 50 us, then
 * spin) done bare, COUNT times, 2 ms apart; one line per wait: its error
 * in ns ("other": stay SCHED_OTHER, as the crossbar with --no-rt). What
 * it shows, the machine does to any timer. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static FILE *in;
static int fd;

static void say(const char *fmt, const char *arg)
{
	char line[4200];
	int n = snprintf(line, sizeof(line), fmt, arg);

	if (n < 0 || (size_t)n >= sizeof(line) || send(fd, line, (size_t)n, MSG_NOSIGNAL) != n) {
		fprintf(stderr, "ocs_flip: send: %s\n", strerror(errno));
		exit(1);
	}
}

/* Read lines until a status line; return it (static), or exit. Event
 * lines met on the way are counted in *ups (with their time in *t_up). */
static const char *reply(unsigned *ups, int64_t *t_up)
{
	static char line[4200];

	while (fgets(line, sizeof(line), in)) {
		unsigned a, b;
		int64_t t;

		if (!strncmp(line, "ok", 2))
			return line;
		if (!strncmp(line, "err", 3)) {
			fprintf(stderr, "ocs_flip: crossbar said: %s", line);
			exit(1);
		}
		if (ups && sscanf(line, "up %u %u %" SCNd64, &a, &b, &t) == 3) {
			(*ups)++;
			*t_up = t;
		}
	}
	fprintf(stderr, "ocs_flip: the crossbar closed the connection\n");
	exit(1);
}

static void wait_ups(unsigned want, unsigned *ups, int64_t *t_up)
{
	static char line[4200];

	while (*ups < want && fgets(line, sizeof(line), in)) {
		unsigned a, b;
		int64_t t;

		if (sscanf(line, "up %u %u %" SCNd64, &a, &b, &t) == 3) {
			(*ups)++;
			*t_up = t;
		}
	}
	if (*ups < want) {
		fprintf(stderr, "ocs_flip: the crossbar closed the connection\n");
		exit(1);
	}
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int timer_ref(int64_t delta, long count, int rt)
{
	struct sched_param sp = { .sched_priority = 10 }; /* OCS_RT_PRIORITY */
	long k;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (rt && sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "ocs_flip timer: SCHED_FIFO: %s\n", strerror(errno));
	for (k = 0; k < count; k++) {
		int64_t target = mono_ns() + delta, wake = target - 50000, now;
		struct timespec ts = { .tv_sec = wake / 1000000000LL,
				       .tv_nsec = wake % 1000000000LL };
		struct timespec dwell = { .tv_nsec = 2000000 };

		if (delta > 50000)
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		while ((now = mono_ns()) < target)
			;
		printf("%" PRId64 "\n", now - target);
		nanosleep(&dwell, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	long count, dwell_us, k;

	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "timer"))
		return timer_ref(atoll(argv[2]), atol(argv[3]), argc == 4);
	if (argc != 7) {
		fprintf(stderr, "usage: ocs_flip SOCKET DELTA COUNT DWELL_US CONF_A CONF_B\n"
				"       ocs_flip timer DELTA_NS COUNT [other]\n");
		return 2;
	}
	count = atol(argv[3]);
	dwell_us = atol(argv[4]);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		fprintf(stderr, "ocs_flip: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	in = fdopen(fd, "r");
	say("delta %s\n", argv[2]);
	reply(NULL, NULL);
	say("watch%s\n", "");
	reply(NULL, NULL);
	for (k = 0; k <= count; k++) {
		struct timespec ts = { .tv_sec = dwell_us / 1000000,
				       .tv_nsec = dwell_us % 1000000 * 1000 };
		unsigned ups = 0, want;
		int64_t t_down, t_up = 0;
		const char *ok;

		say("set %s\n", argv[5 + k % 2]);
		ok = reply(&ups, &t_up);
		if (sscanf(ok, "ok t=%" SCNd64 " down=%*u cancelled=%*u up=%u", &t_down, &want) != 2) {
			fprintf(stderr, "ocs_flip: unexpected reply: %s", ok);
			return 1;
		}
		wait_ups(want, &ups, &t_up);
		if (k > 0)
			printf("%" PRId64 " %" PRId64 "\n", t_down, t_up);
		nanosleep(&ts, NULL);
	}
	return 0;
}
