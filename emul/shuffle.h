/* The real shuffle: map output data, the per-host shuffle service that
 * serves it over TCP, and the task processes (map and reduce) that run in
 * the host namespaces. Processes talk to the controller over a UNIX socket
 * in the run directory (line protocol below); data goes over TCP between
 * the hosts' namespaces, through the emulated fabric.
 *
 * Map output is never stored: the bytes map m of job j produces for reduce
 * r are a deterministic pseudo-random stream keyed by (seed, j, m, r), and
 * byte o of it can be computed on its own, so the server generates what it
 * sends and the reduce checks every byte it receives.
 *
 * Fetch request (reduce -> shuffle service, one line, then only data comes
 * back): "GET <job> <reduce> <n> <map>:<bytes> ...\n". The service sends
 * the n partitions back to back and closes; it refuses (closes at once) a
 * request for a map output that was not registered on its host.
 * Registration (map task -> service, over the host's UNIX socket):
 * "reg <job> <map>\n", answered "ok\n".
 *
 * Controller <-> reduce task (over the controller's UNIX socket):
 *   task  -> ctl  hello <job> <reduce> <pid>
 *   ctl   -> task fetch <flow> <srv_ip> <tos> <n> <map>:<bytes> ...
 *   task  -> ctl  conn <flow> <cli_ip> <cli_port> <srv_port>
 *   task  -> ctl  done <flow> <connect_ns> <established_ns> <first_ns> <last_ns> <bytes>
 *   task  -> ctl  fail <flow> <why...>
 *   ctl   -> task compute <ns> <sleep|cpu>
 *   task  -> ctl  computed      (then it exits 0)
 * Times are CLOCK_REALTIME ns, the clock of the captures. */
#ifndef HYDE_SHUFFLE_H
#define HYDE_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

/* The stream key of (job, map, reduce) under a run's seed. */
uint64_t shuffle_key(uint64_t seed, uint32_t job, uint32_t map, uint32_t reduce);
/* Fill buf with len bytes of the stream `key` from offset off. */
void shuffle_fill(uint64_t key, uint64_t off, uint8_t *buf, size_t len);
/* Offset of the first byte of buf that differs from the stream, or len. */
size_t shuffle_check(uint64_t key, uint64_t off, const uint8_t *buf, size_t len);

int64_t shuffle_realtime_ns(void);
/* A connected UNIX stream socket to path, or a negative errno. */
int emul_unix_connect(const char *path);

/* The processes (each the body of a hidden `hyde` subcommand). */
int shuffle_serve(const char *reg_path, uint16_t port, uint64_t seed, char *errbuf);
int shuffle_map_task(const char *reg_path, uint32_t job, uint32_t map,
		     int64_t ns, int cpu, char *errbuf);
int shuffle_reduce_task(const char *ctl_path, uint32_t job, uint32_t reduce,
			uint64_t seed, char *errbuf);

#endif
