/* Named network namespaces as iproute2 makes them (see netns.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "netns.h"

/* The calling thread's own namespace: /proc/self would name the thread
 * group leader's, which differs in a thread that entered another one. */
#define NETNS_SELF "/proc/thread-self/ns/net"

static void ns_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", NETNS_RUN_DIR, name);
}

int netns_prepare_dir(char *errbuf)
{
	bool made_mount = false;

	if (mkdir(NETNS_RUN_DIR, 0755) && errno != EEXIST) {
		int r = -errno;

		errbuf_set(errbuf, "cannot create %s: %s", NETNS_RUN_DIR,
			   strerror(errno));
		return r;
	}
	/* As iproute2: a shared mount point, so that unmounting a namespace
	 * here unmounts it in every mount namespace and it can be freed. A
	 * plain directory is first made a mount point by binding it onto
	 * itself (EINVAL says it is not one yet). */
	while (mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL)) {
		int r = -errno;

		if (errno != EINVAL || made_mount) {
			errbuf_set(errbuf, "cannot make %s a shared mount: %s",
				   NETNS_RUN_DIR, strerror(-r));
			return r;
		}
		if (mount(NETNS_RUN_DIR, NETNS_RUN_DIR, "none",
			  MS_BIND | MS_REC, NULL)) {
			r = -errno;
			errbuf_set(errbuf, "cannot bind-mount %s: %s",
				   NETNS_RUN_DIR, strerror(errno));
			return r;
		}
		made_mount = true;
	}
	return 0;
}

int netns_create(const char *name, int (*init)(void *arg, char *errbuf),
		 void *arg, int *fd, char *errbuf)
{
	char path[256];
	int orig, nfd = -1, f, r;

	ns_path(name, path, sizeof(path));
	orig = open(NETNS_SELF, O_RDONLY | O_CLOEXEC);
	if (orig < 0) {
		r = -errno;
		errbuf_set(errbuf, "%s: %s", NETNS_SELF, strerror(errno));
		return r;
	}
	f = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (f < 0) {
		r = -errno;
		errbuf_set(errbuf, "cannot create %s: %s", path, strerror(errno));
		goto err_orig;
	}
	close(f);
	if (unshare(CLONE_NEWNET)) {
		r = -errno;
		errbuf_set(errbuf, "%s: cannot create a network namespace: %s",
			   name, strerror(errno));
		goto err_file;
	}
	/* From here the thread is in the new namespace until setns(orig). */
	if (mount(NETNS_SELF, path, "none", MS_BIND, NULL)) {
		r = -errno;
		errbuf_set(errbuf, "%s: cannot mount the namespace on %s: %s",
			   name, path, strerror(errno));
		goto err_back;
	}
	nfd = open(NETNS_SELF, O_RDONLY | O_CLOEXEC);
	if (nfd < 0) {
		r = -errno;
		errbuf_set(errbuf, "%s: %s", NETNS_SELF, strerror(errno));
		goto err_mount;
	}
	if (init) {
		r = init(arg, errbuf);
		if (r)
			goto err_mount;
	}
	if (setns(orig, CLONE_NEWNET)) {
		/* Cannot happen for a namespace we were just in; if it does,
		 * the thread must not go on in the wrong namespace. */
		r = -errno;
		errbuf_set(errbuf, "%s: cannot return to the original namespace: %s",
			   name, strerror(errno));
		goto err_mount;
	}
	close(orig);
	if (fd)
		*fd = nfd;
	else
		close(nfd);
	return 0;

err_mount:
	if (nfd >= 0)
		close(nfd);
	umount2(path, MNT_DETACH);
err_back:
	if (setns(orig, CLONE_NEWNET))
		abort(); /* see above: never continue in the wrong namespace */
err_file:
	unlink(path);
err_orig:
	close(orig);
	return r;
}

int netns_open(const char *name, int *fd, char *errbuf)
{
	char path[256];
	int f;

	ns_path(name, path, sizeof(path));
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0) {
		int r = -errno;

		errbuf_set(errbuf, "namespace %s: %s", name, strerror(errno));
		return r;
	}
	*fd = f;
	return 0;
}

int netns_run(int fd, int (*fn)(void *arg, char *errbuf), void *arg,
	      char *errbuf)
{
	int orig, r;

	orig = open(NETNS_SELF, O_RDONLY | O_CLOEXEC);
	if (orig < 0) {
		r = -errno;
		errbuf_set(errbuf, "%s: %s", NETNS_SELF, strerror(errno));
		return r;
	}
	if (setns(fd, CLONE_NEWNET)) {
		r = -errno;
		errbuf_set(errbuf, "cannot enter a network namespace: %s",
			   strerror(errno));
		close(orig);
		return r;
	}
	r = fn(arg, errbuf);
	if (setns(orig, CLONE_NEWNET))
		abort(); /* never continue in the wrong namespace */
	close(orig);
	return r;
}

int netns_delete(const char *name, char *errbuf)
{
	char path[256];
	int r = 0;

	ns_path(name, path, sizeof(path));
	/* MNT_DETACH as iproute2: the name goes now, the namespace when its
	 * last user does. EINVAL: a bare file, nothing mounted on it. */
	if (umount2(path, MNT_DETACH) && errno != EINVAL && errno != ENOENT) {
		r = -errno;
		errbuf_set(errbuf, "cannot unmount %s: %s", path, strerror(errno));
		return r;
	}
	if (unlink(path)) {
		r = -errno;
		if (errno != ENOENT)
			errbuf_set(errbuf, "cannot remove %s: %s", path,
				   strerror(errno));
		else
			errbuf_set(errbuf, "no namespace %s", name);
	}
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int netns_list(const char *prefix, char ***names, size_t *n, char *errbuf)
{
	size_t len = strlen(prefix), cap = 0, cnt = 0;
	char **v = NULL;
	struct dirent *de;
	DIR *d;

	*names = NULL;
	*n = 0;
	d = opendir(NETNS_RUN_DIR);
	if (!d) {
		int r = -errno;

		if (errno == ENOENT)
			return 0;
		errbuf_set(errbuf, "%s: %s", NETNS_RUN_DIR, strerror(errno));
		return r;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, len))
			continue;
		xgrow((void **)&v, &cap, cnt + 1, sizeof(*v));
		v[cnt++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_str);
	*names = v;
	*n = cnt;
	return 0;
}

void netns_list_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int netns_id_of(const char *name, struct netns_id *id)
{
	char path[256];
	struct stat st, self;

	ns_path(name, path, sizeof(path));
	if (stat(path, &st))
		return -errno;
	/* A bare file lives on the /run file system; a mounted namespace on
	 * nsfs, the same device as our own /proc/self/ns/net. */
	if (stat(NETNS_SELF, &self))
		return -errno;
	if (st.st_dev != self.st_dev)
		return -ENODATA;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return 0;
}

int netns_find_pids(const struct netns_id *ids, size_t n, pid_t **pids,
		    size_t *npids)
{
	size_t cap = 0, cnt = 0, i;
	pid_t self = getpid(), *v = NULL;
	struct dirent *de;
	DIR *d;

	*pids = NULL;
	*npids = 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[64], *end;
		struct stat st;
		long pid;

		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (stat(path, &st))
			continue; /* gone, or a kernel thread */
		for (i = 0; i < n; i++)
			if (ids[i].ino == st.st_ino && ids[i].dev == st.st_dev)
				break;
		if (i == n)
			continue;
		xgrow((void **)&v, &cap, cnt + 1, sizeof(*v));
		v[cnt++] = (pid_t)pid;
	}
	closedir(d);
	*pids = v;
	*npids = cnt;
	return 0;
}
