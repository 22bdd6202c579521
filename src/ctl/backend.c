/* A backend's options (-B KEY=VALUE): set on its private state through
 * its table, the way schedulers' -S are (sched_api.c). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"
#include "core/util.h"
#include "ctl/backend.h"

int backend_opts_apply(const struct backend_ops *ops, void *priv, char *const *kv, int n_kv,
		       char *errbuf)
{
	char msg[HYDE_ERRBUF_SIZE];
	int i, r;

	if (ops->defaults)
		ops->defaults(priv);
	for (i = 0; i < n_kv; i++) {
		r = ops->n_opts ? opts_try_set(priv, ops->opts, ops->n_opts, kv[i], msg) : -ENOENT;
		if (r == -ENOENT) {
			char names[256] = "";
			size_t k;

			for (k = 0; k < ops->n_opts; k++) {
				strncat(names, k ? ", " : "", sizeof(names) - strlen(names) - 1);
				strncat(names, ops->opts[k].name, sizeof(names) - strlen(names) - 1);
			}
			errbuf_set(errbuf, "backend %s: unknown option '%.*s' (%s%s)", ops->name,
				   (int)strcspn(kv[i], "="), kv[i],
				   ops->n_opts ? "expected one of: " : "it has none", names);
			return -EINVAL;
		}
		if (r) {
			errbuf_set(errbuf, "backend %s: %s", ops->name, msg);
			return -EINVAL;
		}
	}
	if (ops->check && (r = ops->check(priv, msg))) {
		errbuf_set(errbuf, "backend %s: %s", ops->name, msg);
		return -EINVAL;
	}
	return 0;
}

int backend_opts_check(const struct backend_ops *ops, char *const *kv, int n_kv, char *errbuf)
{
	void *priv = xcalloc(1, ops->priv_size ? ops->priv_size : 1);
	int r = backend_opts_apply(ops, priv, kv, n_kv, errbuf);

	free(priv);
	return r;
}

void backend_print_options(const struct backend_ops *ops, void *fp)
{
	void *priv;

	if (!ops->n_opts)
		return;
	priv = xcalloc(1, ops->priv_size ? ops->priv_size : 1);
	if (ops->defaults)
		ops->defaults(priv);
	opts_print(priv, ops->opts, ops->n_opts, fp);
	free(priv);
}
