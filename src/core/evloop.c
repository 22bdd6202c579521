#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "evloop.h"
#include "log.h"
#include "util.h"

#define TIMER_OF(n) ((struct evtimer *)((char *)(n) - offsetof(struct evtimer, node)))

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int evloop_init(struct evloop *l, enum evloop_clock clock)
{
	memset(l, 0, sizeof(*l));
	l->clock = clock;
	l->epfd = -1;
	l->firing = -1;
	l->until = INT64_MAX;
	evq_init(&l->q);
	if (clock == EVLOOP_REAL) {
		l->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (l->epfd < 0)
			return -errno;
		l->t0 = realtime_ns();
		l->now = l->t0;
	}
	return 0;
}

void evloop_destroy(struct evloop *l)
{
	evq_destroy(&l->q);
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = -1;
}

int64_t evloop_now(struct evloop *l)
{
	if (l->clock == EVLOOP_REAL)
		l->now = realtime_ns();
	return l->now;
}

void evloop_at(struct evloop *l, struct evtimer *t, int64_t when)
{
	evq_update(&l->q, &t->node, when);
}

void evloop_at_seq(struct evloop *l, struct evtimer *t, int64_t when, uint64_t seq)
{
	evq_update_seq(&l->q, &t->node, when, seq);
}

uint64_t evloop_reserve(struct evloop *l)
{
	return evq_reserve(&l->q);
}

bool evloop_take(struct evloop *l, int64_t when)
{
	const struct evq_node *next = evq_peek(&l->q);

	if (l->clock != EVLOOP_VIRTUAL || l->stop || (l->flag && *l->flag && l->on_flag) ||
	    when < l->now || when > l->until || (next && next->t <= when))
		return false;
	l->now = when;
	l->events++;
	return true;
}

void evloop_cancel(struct evloop *l, struct evtimer *t)
{
	evq_remove(&l->q, &t->node);
}

int evloop_add_fd(struct evloop *l, struct evfd *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	if (l->epfd < 0)
		return -EINVAL;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, w->fd, &ev))
		return -errno;
	return 0;
}

void evloop_del_fd(struct evloop *l, struct evfd *w)
{
	if (l->epfd >= 0)
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, w->fd, NULL);
}

static void fire_due(struct evloop *l)
{
	struct evq_node *n;

	while (!l->stop && (n = evq_peek(&l->q)) && n->t <= evloop_now(l) && n->t <= l->until) {
		evq_pop(&l->q);
		l->events++;
		l->firing = n->t;
		TIMER_OF(n)->cb(l, TIMER_OF(n));
		l->firing = -1;
	}
}

int evloop_run(struct evloop *l)
{
	struct epoll_event evs[64];
	int i, n, timeout;

	l->stop = false;
	l->reached = false;
	if (l->clock == EVLOOP_VIRTUAL) {
		struct evq_node *node;

		while (!l->stop) {
			if (l->flag && *l->flag && l->on_flag) {
				void (*cb)(struct evloop *) = l->on_flag;

				l->on_flag = NULL;
				cb(l);
				continue;
			}
			if (!(node = evq_peek(&l->q)))
				break;
			if (node->t > l->until) {
				/* the horizon: what is still to come stays queued */
				if (l->until > l->now)
					l->now = l->until;
				l->reached = true;
				break;
			}
			evq_pop(&l->q);
			if (node->t > l->now)
				l->now = node->t;
			l->events++;
			TIMER_OF(node)->cb(l, TIMER_OF(node));
		}
		return 0;
	}
	while (!l->stop) {
		struct evq_node *next;

		fire_due(l);
		if (l->stop)
			break;
		if (evloop_now(l) >= l->until) {
			l->reached = true; /* the events due by then are handled */
			break;
		}
		next = evq_peek(&l->q);
		if (next || l->until != INT64_MAX) {
			int64_t t = next && next->t < l->until ? next->t : l->until;
			int64_t wait = t - evloop_now(l);

			timeout = wait <= 0 ? 0 : (int)((wait + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
		} else {
			timeout = -1;
		}
		n = epoll_wait(l->epfd, evs, (int)ARRAY_SIZE(evs), timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (evloop_now(l) > l->until)
			continue; /* past the horizon: nothing more is handled */
		for (i = 0; i < n && !l->stop; i++) {
			struct evfd *w = evs[i].data.ptr;

			w->cb(l, w, evs[i].events);
		}
	}
	return 0;
}
