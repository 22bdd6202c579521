/* Named network namespaces, made exactly as iproute2's `ip netns add` makes
 * them: a bind mount of the namespace over an empty file /run/netns/NAME,
 * with /run/netns a shared mount point, so `ip netns exec NAME`, `ip -n NAME`
 * and `hyde topo exec` all see the same namespace.
 *
 * Threads: setns() and unshare(CLONE_NEWNET) change the namespace of the
 * calling thread only. hyde's fabric code is single-threaded; a
 * multithreaded caller must do namespace work in a child process or in a
 * dedicated thread. Every function here that enters a namespace returns to
 * the namespace the thread was in before it returns, also on error. */
#ifndef HYDE_NETNS_H
#define HYDE_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define NETNS_RUN_DIR "/run/netns"

/* Identity of a namespace: the nsfs inode behind /run/netns/NAME or
 * /proc/PID/ns/net. */
struct netns_id {
	dev_t dev;
	ino_t ino;
};

/* Make /run/netns exist and be a shared mount point, as iproute2 does, so
 * that namespace mounts propagate to every mount namespace. Idempotent. */
int netns_prepare_dir(char *errbuf);

/* Create the named namespace NAME (the file must not exist yet) and run
 * init(arg) inside it before returning to the caller's namespace; init may
 * open sockets there (a netlink socket stays bound to the namespace it was
 * opened in) and write /proc/sys. On success *fd (if not NULL) is an
 * O_CLOEXEC descriptor of the new namespace, owned by the caller. On
 * failure nothing is left behind: neither the file nor the mount. */
int netns_create(const char *name, int (*init)(void *arg, char *errbuf),
		 void *arg, int *fd, char *errbuf);

/* Open /run/netns/NAME; the caller owns *fd (O_CLOEXEC). */
int netns_open(const char *name, int *fd, char *errbuf);

/* Run fn(arg) inside the namespace fd, then return to the caller's. */
int netns_run(int fd, int (*fn)(void *arg, char *errbuf), void *arg,
	      char *errbuf);

/* Unmount and remove /run/netns/NAME (also a bare file left by a process
 * killed between creating the file and mounting over it). -ENOENT if
 * there is no such name. The namespace itself goes away once no process
 * and no open descriptor holds it. */
int netns_delete(const char *name, char *errbuf);

/* Names in /run/netns that start with prefix, sorted. The caller owns the
 * array and each string (free both). */
int netns_list(const char *prefix, char ***names, size_t *n, char *errbuf);
void netns_list_free(char **names, size_t n);

/* The identity of /run/netns/NAME; -ENOENT, or -ENODATA for a bare file
 * that no namespace is mounted on. */
int netns_id_of(const char *name, struct netns_id *id);

/* PIDs of processes (thread group leaders) whose network namespace is one
 * of ids[0..n-1], excluding the caller. The caller frees *pids. */
int netns_find_pids(const struct netns_id *ids, size_t n, pid_t **pids,
		    size_t *npids);

#endif
