/* The task processes of an emulated run: a map or reduce task is a process
 * in its host's namespace (`hyde task map|reduce`), started when its task
 * starts, that does what the controller tells it over the controller's
 * UNIX socket and reports back. Its data goes over TCP through the
 * emulated fabric: a map reads input blocks from data services (HDFS
 * DataNodes, emul/datanode.h), a reduce fetches map output from shuffle
 * services (emul/shuffle.h) and writes its output part through the data
 * services' replication pipeline. Every byte is checked by its receiver.
 *
 * Controller <-> task (one line each, fields separated by one space):
 *   task -> ctl  hello <map|reduce> <job> <idx> <pid>
 *   ctl -> task  read <flow> <srv_ip> <uid> <off> <len>          (a map)
 *   ctl -> task  fetch <flow> <srv_ip> <tos> <n> <map>:<bytes> ... (a reduce)
 *   ctl -> task  write <flow> <uid> <len> <ip>[,<ip>...] <hop>[,<hop>...]|-
 *                (a reduce: the pipeline's hosts after the writer, and
 *                the flows of the hops after its own, or - for none)
 *   task -> ctl  conn <flow> <cli_ip> <cli_port> <srv_port>   (connected)
 *   task -> ctl  prog <flow> <bytes>     (bytes in so far, every 100 ms)
 *   task -> ctl  done <flow> <connect_ns> <established_ns> <first_ns> <last_ns> <bytes>
 *   task -> ctl  hop <flow> <cli_ip> <cli_port> <srv_ip> <srv_port> <connect_ns>
 *                    <established_ns> <first_ns> <last_ns> <bytes>
 *                (a pipeline hop a data service made, once the write is done)
 *   task -> ctl  fail <flow> <why...>
 *   ctl -> task  compute <ns> <sleep|cpu>   (with --cpu: burns that many cores
 *                for ns, and longer if it could not get them)
 *   task -> ctl  computed   (a map: its output registered; then it exits 0)
 *   ctl -> task  exit       (a reduce, its output written: it exits 0)
 * Times are CLOCK_REALTIME ns, the clock of the captures; first and last
 * byte are the receiver's (datanode.h). */
#ifndef HYDE_TASK_H
#define HYDE_TASK_H

#include <stdint.h>

struct task_opts {
	const char *ctl_path; /* the controller's socket */
	const char *reg_path; /* a map: its host's shuffle service registration */
	int kind;	      /* enum hyde_task_kind */
	uint32_t job, idx;
	uint64_t seed;
	/* In a container (its cgroup): the cores its work burns and the
	 * bytes it holds from its first command to its end (real ones: the
	 * emulated demand times the topology's cpu_scale, mem_scale); 0: its
	 * work sleeps or spins as `compute` says, and it holds nothing. */
	double cpu;
	uint64_t mem;
};

/* The body of `hyde task`: 0 when told to end (or, a map, once its output
 * is registered); negative with errbuf when the controller went away or
 * could not be reached. A transfer that fails is reported and leaves the
 * process waiting for the controller's word. */
int task_process(const struct task_opts *o, char *errbuf);

#endif
