/* The emulated fabric: a topology built from network namespaces, veth pairs
 * shaped with HTB, a bridge per ToR, addresses, routes and a policy rule,
 * all through libnl (layout: emul/README.md). State lives under
 * /run/hyde/<prefix>/ so that another process (`hyde topo show`, `exec`,
 * `down`, `hyde clean`) can find the fabric, and so that cleanup works
 * after the builder was killed with SIGKILL.
 *
 * Single-threaded: building enters namespaces with setns(), which changes
 * the calling thread only. Call these from the main thread of a process
 * that has no other thread doing network work, or from a child. */
#ifndef HYDE_FABRIC_H
#define HYDE_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/topo.h"

#define FABRIC_PREFIX_MAX 24
#define FABRIC_DEFAULT_PREFIX "hyde"
#define FABRIC_STATE_ROOT "/run/hyde"
#define FABRIC_IFNAME_MAX 16

/* In every ToR, packets with TOS HYDE_TOS_REVERSE look up this table, in
 * which ocs_net goes via the core (emul/README.md, Routes). */
#define FABRIC_TABLE_REVERSE 100
#define FABRIC_RULE_PRIO 100

/* Interface indices are chosen, not discovered, so that every request of a
 * namespace can be sent in one batch without reading anything back. They
 * are high so that no device the kernel makes in each new namespace (lo,
 * fallback tunnels of loaded modules) can hold them. */
#define FABRIC_IDX_BR0 100  /* ToR */
#define FABRIC_IDX_UP 101   /* ToR */
#define FABRIC_IDX_OCS 102  /* ToR */
#define FABRIC_IDX_ETH0 100 /* host */
#define FABRIC_IDX_PORT0 1000 /* ToR h<i>, core r<k>, ocs p<k>: 1000 + i or k */

struct fabric_node {
	enum topo_node_kind kind;
	unsigned rack; /* hosts and ToRs */
	unsigned host; /* hosts */
	char name[24]; /* r0h0, tor0, core, ocs */
	char ns[FABRIC_PREFIX_MAX + 32]; /* <prefix>-<name> */
	int ns_fd;     /* -1 until fabric_ns_fd() opens it; owned by the fabric */
};

/* One veth pair; both ends are shaped at rate. End a is the switch side
 * nearest the host (the ToR), b the other. */
struct fabric_link {
	unsigned a, b; /* node indices */
	char a_if[FABRIC_IFNAME_MAX], b_if[FABRIC_IFNAME_MAX];
	int a_index, b_index;
	uint64_t rate; /* bit/s */
};

struct fabric {
	char prefix[FABRIC_PREFIX_MAX + 1];
	char state_dir[64 + FABRIC_PREFIX_MAX];
	struct topo *topo;	  /* owned */
	struct fabric_node *nodes; /* ToRs 0..R-1, hosts by host id, core, ocs */
	size_t n_nodes;
	struct fabric_link *links;
	size_t n_links;
};

/* Build the fabric of t under prefix (namespaces <prefix>-<node>). Refuses
 * (-EEXIST) if anything of that prefix is left over (namespaces or a state
 * directory), saying so and suggesting `hyde clean`. A failure half-way
 * removes everything it created and names the step that failed. On success
 * the caller owns *out (fabric_down, then fabric_free); t is copied. */
int fabric_up(const struct topo *t, const char *prefix, struct fabric **out,
	      char *errbuf);
/* fabric_up for a fabric that lives as long as the calling process (a
 * run): the state directory records it as the owner. If what is left of
 * the prefix is a fabric whose owner is gone (killed: SIGKILL, a crash),
 * it is removed first, with a warning; a fabric whose owner lives, or one
 * `hyde topo up` made, is refused as fabric_up refuses it. */
int fabric_up_owned(const struct topo *t, const char *prefix, struct fabric **out,
		    char *errbuf);

/* Attach to a fabric another process built, from its state directory.
 * The caller owns *out (fabric_free). -ENOENT if there is none. */
int fabric_open(const char *prefix, struct fabric **out, char *errbuf);

/* Kill every process recorded in the fabric or running in one of its
 * namespaces (SIGTERM, SIGKILL after a second), remove the namespaces and
 * the state directory. Children of the caller stay zombies for it to
 * reap. f stays allocated (fabric_free it); its namespace descriptors are
 * closed. */
int fabric_down(struct fabric *f, char *errbuf);

/* The plan of t under prefix (nodes, links, names, addresses, MACs),
 * built nowhere: for what needs no root. The caller owns it (fabric_free);
 * t is copied. */
struct fabric *fabric_plan_new(const struct topo *t, const char *prefix);

/* Free the memory and descriptors of f; the fabric itself stays up. */
void fabric_free(struct fabric *f);

/* Index of the node named name (r0h0, tor0, core, ocs), or -ENOENT. */
int fabric_node_index(const struct fabric *f, const char *name);

/* Descriptor of node's namespace, opened on first use and owned by f
 * (do not close it). Negative errno if there is no such node. */
int fabric_ns_fd(struct fabric *f, const char *node);

/* Run argv in node: fork, the child enters the node's namespace and
 * execvp()s argv with stdout/stderr on out_fd/err_fd (-1: inherited); an
 * argv[0] that is this process's own binary (fabric_self_path) runs the
 * binary this process runs, by /proc/self/exe, even if a rebuild has
 * replaced the file since (a long run outlives a `make`). The
 * pid is recorded in the state directory before the child may exec, so
 * that cleanup finds it even if this process is killed; when the caller
 * has reaped it, it calls fabric_forget_pid(). A program that cannot be
 * executed is an error here (-ENOENT, ...), not a child exiting 127. */
int fabric_spawn(struct fabric *f, const char *node, char *const argv[],
		 int out_fd, int err_fd, pid_t *pid, char *errbuf);
/* This process's binary's path (without the " (deleted)" the kernel adds
 * once the file is replaced) in buf; NULL if it cannot be read. */
char *fabric_self_path(char *buf, size_t size);
void fabric_forget_pid(struct fabric *f, pid_t pid);

/* A process fabric_spawn started dies with its parent, by SIGKILL. One
 * with a clean stop of its own (a capture flushes its files, the crossbar
 * removes its socket) calls this at its start to be sent sig instead.
 * Does nothing in a process that was not started so (run by hand). */
void fabric_death_signal(int sig);

/* What hyde_clean found and removed. */
struct hyde_clean_report {
	unsigned namespaces; /* named namespaces removed */
	unsigned processes;  /* processes killed */
	unsigned state_dirs; /* state directories removed */
};

/* Remove what hyde left behind: with all, every namespace named hyde* and
 * every state directory under /run/hyde; else those of prefix only.
 * Processes are killed only if recorded in one of those state directories
 * (and still the same process) or running inside one of those namespaces,
 * by PID. rep may be NULL. */
int hyde_clean_report(const char *prefix, bool all,
		      struct hyde_clean_report *rep, char *errbuf);
int hyde_clean(const char *prefix, bool all, char *errbuf);

/* ---- the plan, shared by the builder, `hyde topo show` and tests ---- */

/* A prefix is "hyde" followed by up to FABRIC_PREFIX_MAX - 4 lower-case
 * letters or digits: it names hyde's own namespaces, and a '-' after it
 * ends it, so that prefix "hyde" never matches "hydefab-...". */
int fabric_prefix_check(const char *prefix, char *errbuf);

/* HTB parameters for rate (bit/s): burst (= cburst) and quantum in bytes.
 * The default burst (one timer tick of data) under-delivers above ~500 Mbit/s
 * (iperf3 through one HTB class on the development machine); rate x 10 ms, at
 * least 64 KiB, is wire-exact from 10 Mbit/s to 5 Gbit/s on this machine even
 * when it is loaded (rate x 4 ms was not, at 400 Mbit/s and 1 Gbit/s). */
void fabric_htb_params(uint64_t rate, uint32_t *burst, uint32_t *quantum);
/* Bytes the leaf FIFO under HTB holds at rate: a switch port's buffer. */
uint32_t fabric_queue_limit(uint64_t rate);

/* Addresses (host byte order) from the topology's address plan. */
uint32_t fabric_uplink_addr(const struct topo *t, unsigned rack, bool core_side);
unsigned fabric_uplink_plen(void);
uint32_t fabric_ocs_port_addr(const struct topo *t, unsigned rack);
unsigned fabric_ocs_port_plen(const struct topo *t);
/* MAC of ToR rack's ocs port: 02:68:79:6f:HH:LL, rack = HH x 256 + LL. */
void fabric_ocs_mac(unsigned rack, uint8_t mac[6]);

/* Write t as a .topo file that topo_load() reads back to the same values
 * (the copy in the state directory). */
int fabric_write_topo(const char *path, const struct topo *t);

/* Addresses of interface ifname of node (at most 2, in out[]): what `up`
 * puts there. */
unsigned fabric_iface_addrs(const struct fabric *f, unsigned node,
			    const char *ifname, struct topo_net out[2]);
/* MAC that `up` gives interface ifname of node (every interface it makes
 * has one of its own, locally administered: emul/README.md, Neighbours),
 * or -ENOENT if the node has no such interface. */
int fabric_iface_mac(const struct fabric *f, unsigned node, const char *ifname,
		     uint8_t mac[6]);

/* What the kernel has at one end of a link. */
struct fabric_port_state {
	bool present;	   /* the interface exists in the node's namespace */
	bool up;	   /* IFF_UP */
	uint64_t htb_rate; /* bit/s of HTB class 1:1, 0 if there is none */
};

/* Read the state of both ends of every link (st[i][0] is links[i].a's end)
 * from the kernel. st has f->n_links elements, owned by the caller. */
int fabric_query(struct fabric *f, struct fabric_port_state (*st)[2],
		 char *errbuf);

#endif
