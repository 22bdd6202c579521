/* What an emulated run will cost this box, before anything is built:
 * namespaces, processes, file descriptors and memory, from the topology
 * and the run's options, with per-item costs measured on this project's
 * machines (bench/scale.sh prints them again). hyde refuses a run the box
 * cannot hold (one message, exit 2, nothing built) rather than let the
 * kernel's OOM killer choose what dies half-way through.
 *
 * Memory: the kernel's share of each namespace (its network stack, veths,
 * HTB qdiscs, bridge and routes), the capture rings (capture_ring_bytes
 * per ToR port: allocated in full when a capture opens its port), the
 * crossbar's receive rings, and each process's own pages: the per-host
 * services (shuffle, data) and task processes at most `containers` per
 * host, one capture per ToR, the crossbar, the controller. */
#ifndef HYDE_ESTIMATE_H
#define HYDE_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct topo;

/* Measured costs (bench/scale.sh, 2 cores, Debian 12 kernel 6.x): */
#define EST_NS_KERNEL (408u << 10)	/* kernel memory per namespace */
#define EST_PROC_KERNEL (224u << 10)	/* and per process (page tables,
					 * stack, its sockets' buffers) */
#define EST_SERVICE_PROC (576u << 10)	/* a shuffle or data service */
#define EST_TASK_PROC (640u << 10)	/* a task process */
#define EST_CAPTURE_PROC (1024u << 10)	/* a capture, beside its rings */
#define EST_OCS_PROC (2048u << 10)	/* the crossbar, beside its rings */
#define EST_OCS_RING_PER_PORT (4u << 20)
#define EST_CTL_PER_HOST (16u << 10)	/* the controller, per host */
#define EST_FDS_PER_HOST 5		/* the controller's, per host */

struct estimate {
	unsigned namespaces, processes, captured_ports;
	uint64_t fds;	      /* the controller's own */
	uint64_t mem_kernel;  /* namespaces and processes */
	uint64_t mem_rings;   /* capture rings + the crossbar's */
	uint64_t mem_procs;   /* processes' own pages */
	uint64_t mem_total;
};

/* The estimate for topology t running at most `tasks` tasks at once (0:
 * a task in every container), with captures of snaplen bytes a frame
 * (0: the run's default, CAPTURE_SNAPLEN; CAPTURE_SNAPLEN_FULL: whole
 * frames) and drain window window_ns (0: the default);
 * capture false: a fabric alone (`hyde topo up`). */
void estimate_run(const struct topo *t, uint64_t tasks, bool capture, int snaplen,
		  int64_t window_ns, struct estimate *e);

/* What this box can give: MemAvailable, and if this process's memory
 * cgroup (v1 or v2, and its ancestors) is limited, what the tightest
 * limit leaves. 0 if nothing could be read. */
uint64_t estimate_mem_available(void);

/* Compare e with what the box has (memory: what estimate_mem_available
 * says, minus a reserve of 1/16 of it; file descriptors: raises this
 * process's soft limit to its hard limit where it must; processes:
 * kernel.pid_max and threads-max). 0, or -ENOMEM / -EMFILE / -EAGAIN with
 * one message in errbuf naming what is short and what would help. */
int estimate_check(const struct estimate *e, char *errbuf);

/* A human summary on fp: one line per cost. */
void estimate_print(const struct estimate *e, FILE *fp);

#endif
