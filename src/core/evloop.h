/* The controller's event loop. One loop, two clocks:
 * - virtual (the simulator): time jumps from event to event;
 * - real (the emulator): CLOCK_REALTIME, epoll on the backend's file
 *   descriptors, timers from the same event queue.
 * The controller only ever sees timers and callbacks, so it cannot tell
 * which backend runs it. */
#ifndef HYDE_EVLOOP_H
#define HYDE_EVLOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "evq.h"

struct evloop;

/* A timer: embed it, set cb, then evloop_at(). */
struct evtimer {
	struct evq_node node;
	void (*cb)(struct evloop *l, struct evtimer *t);
};

/* A watched file descriptor (real clock only). */
struct evfd {
	int fd;
	void (*cb)(struct evloop *l, struct evfd *w, uint32_t events);
};

enum evloop_clock { EVLOOP_VIRTUAL, EVLOOP_REAL };

struct evloop {
	enum evloop_clock clock;
	struct evq q;
	int64_t now;	/* ns; virtual: the current event's time */
	int64_t firing;	/* the deadline of the timer being fired, -1: none */
	int64_t t0;	/* real: CLOCK_REALTIME at start */
	int epfd;	/* real: epoll */
	bool stop;
	uint64_t events; /* timers fired, for figures */
	/* virtual: checked before every event, so that a signal stops a long
	 * simulation at once and not at its next periodic timer: when *flag
	 * is set, on_flag() runs (once) before the next event */
	volatile sig_atomic_t *flag;
	void (*on_flag)(struct evloop *l);
	/* A horizon: no event later than this is handled; the loop stops
	 * there with `reached` set, the virtual clock moved up to it
	 * (INT64_MAX: none). A run that ends before it is unchanged. */
	int64_t until;
	bool reached;
};

int evloop_init(struct evloop *l, enum evloop_clock clock);
void evloop_destroy(struct evloop *l);

/* Current time in ns: virtual time from 0, or CLOCK_REALTIME. */
int64_t evloop_now(struct evloop *l);
/* The time of the event being handled: a timer's deadline while its
 * callback runs (the real clock may be past it when the loop is late),
 * else the current time. What follows from an event (the next heartbeat
 * after it, say) is worked out from this, so that a late loop decides as
 * a punctual one would. */
static inline int64_t evloop_event_time(struct evloop *l)
{
	return l->firing >= 0 ? l->firing : evloop_now(l);
}

static inline void evtimer_init(struct evtimer *t,
				void (*cb)(struct evloop *, struct evtimer *))
{
	evq_node_init(&t->node);
	t->cb = cb;
}
/* Fire t at time `when` (re-arms it if already armed). */
void evloop_at(struct evloop *l, struct evtimer *t, int64_t when);
void evloop_cancel(struct evloop *l, struct evtimer *t);
/* evloop_at as if called when `seq` was taken (evloop_reserve). */
void evloop_at_seq(struct evloop *l, struct evtimer *t, int64_t when, uint64_t seq);
uint64_t evloop_reserve(struct evloop *l);
/* Virtual clock, from a timer's callback: move to `when` and handle it
 * there at once, as a timer armed now for `when` would be (it would go
 * behind everything queued, and so fire next only when every event queued
 * is later, the horizon is not passed, and nothing stops the loop): true,
 * and the clock is at `when`, counted as an event; false, and nothing
 * changed (arm a timer). A chain of heartbeats with nothing between them
 * costs no trip through the queue. */
bool evloop_take(struct evloop *l, int64_t when);
static inline bool evtimer_armed(const struct evtimer *t)
{
	return evq_queued(&t->node);
}

/* Real clock: watch fd for EPOLLIN (or events). */
int evloop_add_fd(struct evloop *l, struct evfd *w, uint32_t events);
void evloop_del_fd(struct evloop *l, struct evfd *w);

/* Run until evloop_stop(), the horizon (until) or nothing is left to
 * wait for. Returns 0, or a negative errno if epoll failed. */
int evloop_run(struct evloop *l);
static inline void evloop_stop(struct evloop *l)
{
	l->stop = true;
}

#endif
