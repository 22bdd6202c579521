#include "config.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "emul/fabric.h"
#include "emul/capture.h"

static volatile sig_atomic_t capture_stop;

static void on_signal(int sig)
{
	(void)sig;
	capture_stop = 1;
}

struct cap {
	pcap_t *p;
	pcap_dumper_t *d;
	const char *ifname;
};

int capture_run(const char *dir, const char *node, char *const ifaces[],
		int n_ifaces, int ready_fd, int snaplen, char *errbuf)
{
	char eb[PCAP_ERRBUF_SIZE], path[4096];
	struct cap *caps = xcalloc((size_t)n_ifaces, sizeof(*caps));
	struct pollfd *pfd = xcalloc((size_t)n_ifaces, sizeof(*pfd));
	struct sigaction sa = { .sa_handler = on_signal };
	int i, r = 0;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* started by a run: when it dies, stop as on SIGTERM, with every
	 * file flushed, so that its captures can still be analysed */
	fabric_death_signal(SIGTERM);
	for (i = 0; i < n_ifaces; i++) {
		pcap_t *p = pcap_create(ifaces[i], eb);

		caps[i].ifname = ifaces[i];
		if (!p) {
			errbuf_set(errbuf, "capture %s-%s: %s", node, ifaces[i], eb);
			r = -ENODEV;
			goto out;
		}
		caps[i].p = p;
		/* headers only (unless asked); a large buffer so a burst at a few Gbit/s is not
		 * dropped while the process is descheduled */
		if (pcap_set_snaplen(p, snaplen > 0 ? snaplen : CAPTURE_SNAPLEN_FULL) ||
		    pcap_set_buffer_size(p, 32 << 20) ||
		    pcap_set_timeout(p, 50) ||
		    pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) ||
		    pcap_activate(p) < 0) {
			errbuf_set(errbuf, "capture %s-%s: %s", node, ifaces[i], pcap_geterr(p));
			r = -EIO;
			goto out;
		}
		if (pcap_datalink(p) != DLT_EN10MB) {
			errbuf_set(errbuf, "capture %s-%s: not Ethernet", node, ifaces[i]);
			r = -EINVAL;
			goto out;
		}
		if (pcap_setdirection(p, PCAP_D_INOUT) || pcap_setnonblock(p, 1, eb)) {
			errbuf_set(errbuf, "capture %s-%s: %s", node, ifaces[i], pcap_geterr(p));
			r = -EIO;
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s-%s.pcap", dir, node, ifaces[i]);
		caps[i].d = pcap_dump_open(p, path);
		if (!caps[i].d) {
			errbuf_set(errbuf, "capture %s: %s", path, pcap_geterr(p));
			r = -EIO;
			goto out;
		}
		pfd[i].fd = pcap_get_selectable_fd(p);
		pfd[i].events = POLLIN;
	}
	if (ready_fd >= 0) {
		if (write(ready_fd, "ready\n", 6) != 6) {
			r = -errno;
			goto out;
		}
		close(ready_fd);
	}
	while (!capture_stop) {
		int n = poll(pfd, (nfds_t)n_ifaces, 100);

		if (n < 0 && errno != EINTR) {
			errbuf_set(errbuf, "capture %s: poll: %s", node, strerror(errno));
			r = -errno;
			break;
		}
		for (i = 0; i < n_ifaces; i++)
			while (pcap_dispatch(caps[i].p, 256, pcap_dump, (u_char *)caps[i].d) > 0)
				;
	}
	/* what is still in the kernel's buffers */
	for (i = 0; i < n_ifaces; i++)
		while (pcap_dispatch(caps[i].p, 256, pcap_dump, (u_char *)caps[i].d) > 0)
			;
	for (i = 0; i < n_ifaces; i++) {
		struct pcap_stat st;

		if (!pcap_stats(caps[i].p, &st) && st.ps_drop)
			fprintf(stderr, "hyde: capture %s-%s: %u packet(s) dropped by the kernel\n",
				node, caps[i].ifname, st.ps_drop);
	}
out:
	for (i = 0; i < n_ifaces; i++) {
		if (caps[i].d) {
			pcap_dump_flush(caps[i].d);
			pcap_dump_close(caps[i].d);
		}
		if (caps[i].p)
			pcap_close(caps[i].p);
	}
	free(caps);
	free(pfd);
	return r;
}
