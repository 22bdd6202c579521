/* fetchpair: real shuffle-like fetches over TCP, for the analyzer's test on
 * real kernel traffic (tests/analyze_real.sh), recording what the reducer
 * of a hyde run records.
 *
 *   fetchpair serve ADDR PORT
 *       accept connections; each sends "N\n", gets N bytes back, then the
 *       server closes (as a shuffle service does after a partition).
 *   fetchpair fetch RUN_DIR SRC_IP SRV_IP PORT BYTES:CPORT...
 *       one child per argument, all at once; an argument "A:P,B:P" runs
 *       two fetches one after the other from the same client port (port
 *       reuse). Writes RUN_DIR/manifest.csv and app/{fetches,coflows,jobs}.csv
 *       (client r0h0, server r1h0 of topology tiny, path eps, one job). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long rt_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int serve(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	static char buf[65536];
	int ls, one = 1;

	signal(SIGCHLD, SIG_IGN);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 64)) {
		perror("fetchpair serve");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int c = accept(ls, NULL, NULL);

		if (c < 0)
			continue;
		if (!fork()) {
			char req[64];
			long long n, sent = 0;
			ssize_t r = 0, got = 0;

			while (got < (ssize_t)sizeof(req) - 1 &&
			       (r = read(c, req + got, sizeof(req) - 1 - (size_t)got)) > 0) {
				got += r;
				if (memchr(req, '\n', (size_t)got))
					break;
			}
			req[got] = '\0';
			n = atoll(req);
			memset(buf, 'x', sizeof(buf));
			while (sent < n) {
				size_t k = n - sent < (long long)sizeof(buf) ? (size_t)(n - sent) : sizeof(buf);

				r = write(c, buf, k);
				if (r <= 0)
					_exit(1);
				sent += r;
			}
			close(c);
			_exit(0);
		}
		close(c);
	}
}

struct rec {
	long long connect, established, first, last, bytes;
	int ok;
};

static int fetch_one(const char *src, const char *srv, int port, int cport,
		     long long bytes, struct rec *out)
{
	struct sockaddr_in la = { .sin_family = AF_INET, .sin_port = htons((uint16_t)cport) };
	struct sockaddr_in ra = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	static char buf[65536];
	char req[32];
	int s, one = 1;
	ssize_t r;

	inet_pton(AF_INET, src, &la.sin_addr);
	inet_pton(AF_INET, srv, &ra.sin_addr);
	memset(out, 0, sizeof(*out));
	out->first = out->last = -1;
	/* Reusing a port right after a fetch: the old socket lingers in
	 * LAST_ACK for a round trip, so try again for up to a second. */
	for (int tries = 0;; tries++) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		out->connect = rt_ns();
		if (!bind(s, (struct sockaddr *)&la, sizeof(la)) &&
		    !connect(s, (struct sockaddr *)&ra, sizeof(ra)))
			break;
		close(s);
		if (tries == 100 || (errno != EADDRINUSE && errno != EADDRNOTAVAIL))
			return -1;
		usleep(10000);
	}
	out->established = rt_ns();
	snprintf(req, sizeof(req), "%lld\n", bytes);
	if (write(s, req, strlen(req)) < 0)
		return -1;
	while ((r = read(s, buf, sizeof(buf))) > 0) {
		long long now = rt_ns();

		if (out->first < 0)
			out->first = now;
		out->bytes += r;
		if (out->bytes == bytes)
			out->last = now;
	}
	close(s);
	out->ok = out->bytes == bytes;
	return 0;
}

static int fetch(int argc, char **argv)
{
	const char *dir = argv[2], *src = argv[3], *srv = argv[4];
	int port = atoi(argv[5]), i, k, nflow = 0, status, failed = 0;
	long long bytes[64], cport[64];
	int group[64];
	struct rec rec[64];
	char path[4096];
	FILE *fp;

	for (i = 6; i < argc; i++) {
		char *a = strdup(argv[i]), *save = NULL, *tok;

		for (tok = strtok_r(a, ",", &save); tok && nflow < 64;
		     tok = strtok_r(NULL, ",", &save)) {
			bytes[nflow] = atoll(tok);
			cport[nflow] = atoll(strchr(tok, ':') + 1);
			group[nflow++] = i;
		}
		free(a);
	}
	/* one child per argument; each writes its records through a pipe */
	{
		int fds[64][2];

		for (i = 6; i < argc; i++) {
			if (pipe(fds[i - 6]))
				return 1;
			if (!fork()) {
				for (k = 0; k < nflow; k++) {
					struct rec r;

					if (group[k] != i)
						continue;
					if (fetch_one(src, srv, port, (int)cport[k], bytes[k], &r))
						r.ok = 0;
					if (write(fds[i - 6][1], &k, sizeof(k)) < 0 ||
					    write(fds[i - 6][1], &r, sizeof(r)) < 0)
						_exit(1);
				}
				_exit(0);
			}
			close(fds[i - 6][1]);
		}
		for (i = 6; i < argc; i++) {
			struct rec r;

			while (read(fds[i - 6][0], &k, sizeof(k)) == sizeof(k) &&
			       read(fds[i - 6][0], &r, sizeof(r)) == sizeof(r))
				rec[k] = r;
			close(fds[i - 6][0]);
		}
		while (wait(&status) > 0)
			failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	}
	snprintf(path, sizeof(path), "%s/manifest.csv", dir);
	fp = fopen(path, "w");
	fprintf(fp, "conn,flow,coflow,job,maps,reduce,cli_node,cli_ip,cli_port,srv_node,srv_ip,srv_port,path,bytes,kind,req_bytes\n");
	for (k = 0; k < nflow; k++)
		fprintf(fp, "k%d,%d,0,j,%d,0,r0h0,%s,%lld,r1h0,%s,%d,eps,%lld,shuffle,0\n", k, k, k,
			src, cport[k], srv, port, bytes[k]);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/app/fetches.csv", dir);
	fp = fopen(path, "w");
	fprintf(fp, "flow,conn,connect_ns,established_ns,first_byte_ns,last_byte_ns,bytes,verified\n");
	{
		long long s = -1, e = -1, total = 0;

		for (k = 0; k < nflow; k++) {
			fprintf(fp, "%d,k%d,%lld,%lld,%lld,%lld,%lld,%d\n", k, k, rec[k].connect,
				rec[k].established, rec[k].first, rec[k].last, rec[k].bytes,
				rec[k].ok);
			failed |= !rec[k].ok;
			if (s < 0 || rec[k].connect < s)
				s = rec[k].connect;
			if (rec[k].last > e)
				e = rec[k].last;
			total += bytes[k];
		}
		fclose(fp);
		snprintf(path, sizeof(path), "%s/app/coflows.csv", dir);
		fp = fopen(path, "w");
		fprintf(fp, "coflow,job,flows,bytes,ocs_bytes,lower_bound_ns,start_ns,end_ns\n"
			    "0,j,%d,%lld,0,-1,%lld,%lld\n", nflow, total, s, e);
		fclose(fp);
		snprintf(path, sizeof(path), "%s/app/jobs.csv", dir);
		fp = fopen(path, "w");
		fprintf(fp, "job,user,arrival_ns,ready_ns,start_ns,maps_done_ns,end_ns,maps,reduces,shuffle_bytes\n"
			    "j,u,%lld,-1,%lld,-1,%lld,%d,1,%lld\n", s, s, e, nflow, total);
		fclose(fp);
	}
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], atoi(argv[3]));
	if (argc >= 7 && !strcmp(argv[1], "fetch"))
		return fetch(argc, argv);
	fprintf(stderr, "usage: fetchpair serve ADDR PORT | fetch RUN_DIR SRC_IP SRV_IP PORT BYTES:CPORT[,BYTES:CPORT]...\n");
	return 2;
}
