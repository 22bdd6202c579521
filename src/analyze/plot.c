/* gnuplot driver: one script a chart, data inline as datablocks, gnuplot
 * run with posix_spawnp and its messages kept for the error text. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/plot.h"
#include "core/util.h"

#define GNUPLOT "gnuplot"

extern char **environ;

bool plot_available(void)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, buf[4096];
	bool found = false;

	if (!path)
		path = "/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", *dir ? dir : ".", GNUPLOT);
		found = !access(buf, X_OK);
	}
	free(copy);
	return found;
}

/* A gnuplot string literal: single quotes, quote doubled. */
static void gp_str(FILE *fp, const char *s)
{
	fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', fp);
		if (*s != '\n')
			fputc(*s, fp);
	}
	fputc('\'', fp);
}

static void gp_header(FILE *fp, const char *png, const char *title)
{
	/* pngcairo draws antialiased text; plain png (libgd) is the fallback
	 * every gnuplot-nox has. */
	fprintf(fp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		    "  set terminal pngcairo size 900,560 noenhanced font ',11'\n"
		    "} else {\n"
		    "  set terminal png size 900,560 noenhanced\n"
		    "}\n");
	fprintf(fp, "set output ");
	gp_str(fp, png);
	fprintf(fp, "\nset title ");
	gp_str(fp, title);
	fprintf(fp, "\nset grid\nset key top left\n");
}

/* Run gnuplot on the script fp holds (a temporary next to the PNG). */
static int gp_run(const char *png, void (*body)(FILE *fp, const void *arg),
		  const void *arg, char *errbuf)
{
	char *script, *log, line[256] = "";
	posix_spawn_file_actions_t fa;
	char *argv[3];
	int fd, r = 0, status;
	FILE *fp;
	pid_t pid;

	if (!plot_available()) {
		errbuf_set(errbuf, "gnuplot not found in PATH");
		return -ENOENT;
	}
	script = xasprintf("%s.gpXXXXXX", png);
	log = xasprintf("%s.gpXXXXXX", png);
	fd = mkstemp(script);
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		r = -errno;
		errbuf_set(errbuf, "%s: %s", script, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out_free;
	}
	body(fp, arg);
	if (fclose(fp)) {
		r = -errno;
		errbuf_set(errbuf, "%s: %s", script, strerror(errno));
		goto out_script;
	}
	fd = mkstemp(log);
	if (fd < 0) {
		r = -errno;
		errbuf_set(errbuf, "%s: %s", log, strerror(errno));
		goto out_script;
	}
	close(fd);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_TRUNC, 0);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	argv[0] = GNUPLOT;
	argv[1] = script;
	argv[2] = NULL;
	r = posix_spawnp(&pid, GNUPLOT, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r) {
		errbuf_set(errbuf, "gnuplot: %s", strerror(r));
		r = -r;
		goto out_log;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			r = -errno;
			errbuf_set(errbuf, "gnuplot: %s", strerror(errno));
			goto out_log;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fp = fopen(log, "r");
		/* gnuplot's first message line names the problem */
		while (fp && fgets(line, sizeof(line), fp))
			if (strspn(line, " \t\n^") != strlen(line))
				break;
		if (fp)
			fclose(fp);
		line[strcspn(line, "\n")] = '\0';
		errbuf_set(errbuf, "gnuplot failed%s%s", *line ? ": " : "", line);
		r = -EIO;
	}
out_log:
	unlink(log);
out_script:
	unlink(script);
out_free:
	free(script);
	free(log);
	return r;
}

int plot_script(const char *png, void (*body)(FILE *fp, const void *arg),
		const void *arg, char *errbuf)
{
	return gp_run(png, body, arg, errbuf);
}

void plot_quote(FILE *fp, const char *s)
{
	gp_str(fp, s);
}

struct cdf_args {
	const char *png, *title, *xlabel;
	const struct plot_cdf_series *s;
	size_t n;
};

static void cdf_body(FILE *fp, const void *arg)
{
	const struct cdf_args *a = arg;
	double lo = INFINITY, hi = 0;
	size_t i, j;

	gp_header(fp, a->png, a->title);
	fprintf(fp, "set xlabel ");
	gp_str(fp, a->xlabel);
	fprintf(fp, "\nset ylabel 'fraction'\nset yrange [0:1.02]\n");
	for (i = 0; i < a->n; i++) {
		double *v = xmalloc((a->s[i].n ? a->s[i].n : 1) * sizeof(*v));

		memcpy(v, a->s[i].x, a->s[i].n * sizeof(*v));
		xqsort(v, a->s[i].n, sizeof(*v), cmp_double);
		fprintf(fp, "$d%zu << EOD\n", i);
		if (a->s[i].n)
			fprintf(fp, "%.9g 0\n", v[0]); /* the step up from 0 */
		for (j = 0; j < a->s[i].n; j++) {
			fprintf(fp, "%.9g %.9g\n", v[j], (double)(j + 1) / (double)a->s[i].n);
			if (v[j] > 0 && v[j] < lo)
				lo = v[j];
			if (v[j] > hi)
				hi = v[j];
		}
		fprintf(fp, "EOD\n");
		free(v);
	}
	if (lo < INFINITY && hi / lo > 100)
		fprintf(fp, "set logscale x\n");
	fprintf(fp, "plot ");
	for (i = 0; i < a->n; i++) {
		fprintf(fp, "%s$d%zu using 1:2 with steps linewidth 2 title ",
			i ? ", " : "", i);
		gp_str(fp, a->s[i].label);
	}
	fprintf(fp, "\n");
}

void plot_cdf_script(FILE *fp, const char *png, const char *title,
		     const char *xlabel, const struct plot_cdf_series *s,
		     size_t n_series)
{
	struct cdf_args a = { png, title, xlabel, s, n_series };

	cdf_body(fp, &a);
}

int plot_cdf(const char *png, const char *title, const char *xlabel,
	     const struct plot_cdf_series *s, size_t n_series, char *errbuf)
{
	struct cdf_args a = { png, title, xlabel, s, n_series };

	return gp_run(png, cdf_body, &a, errbuf);
}

struct bars_args {
	const char *png;
	const struct plot_bars *b;
};

static void bars_body(FILE *fp, const void *arg)
{
	const struct bars_args *a = arg;
	const struct plot_bars *b = a->b;
	size_t g, s;

	gp_header(fp, a->png, b->title);
	fprintf(fp, "set ylabel ");
	gp_str(fp, b->ylabel);
	fprintf(fp, "\nset style data histograms\n"
		    "set style histogram %s gap 1\n"
		    "set style fill solid 0.8 border -1\n"
		    "set boxwidth 0.9\nset yrange [0:*]\nset key top right\n"
		    "set datafile missing 'NaN'\n",
		b->errors ? "errorbars lw 1" : "clustered");
	if (b->baseline >= 0 || b->hline > 0)
		fprintf(fp, "set arrow from graph 0, first %.9g to graph 1, first %.9g nohead dashtype 2\n",
			b->baseline >= 0 ? 1.0 : b->hline, b->baseline >= 0 ? 1.0 : b->hline);
	fprintf(fp, "$bars << EOD\n");
	for (g = 0; g < b->n_groups; g++) {
		double base = b->baseline >= 0 ? b->values[g * b->n_series + (size_t)b->baseline] : 1;

		/* gnuplot data strings: double quotes, no escapes inside */
		fputc('"', fp);
		for (const char *c = b->groups[g]; *c; c++)
			fputc(*c == '"' ? '\'' : *c, fp);
		fputc('"', fp);
		for (s = 0; s < b->n_series; s++) {
			double v = b->values[g * b->n_series + s];

			if (isnan(v) || isnan(base) || base == 0)
				fprintf(fp, " NaN");
			else
				fprintf(fp, " %.9g", v / base);
			if (b->errors) {
				double e = b->errors[g * b->n_series + s];

				/* no interval: a bar without whiskers */
				fprintf(fp, " %.9g", isnan(e) || isnan(base) || base == 0 ? 0 : e / base);
			}
		}
		fprintf(fp, "\n");
	}
	fprintf(fp, "EOD\nplot ");
	for (s = 0; s < b->n_series; s++) {
		if (b->errors)
			fprintf(fp, "%s$bars using %zu:%zu%s title ", s ? ", " : "", 2 * s + 2,
				2 * s + 3, s ? "" : ":xtic(1)");
		else
			fprintf(fp, "%s$bars using %zu%s title ", s ? ", " : "", s + 2,
				s ? "" : ":xtic(1)");
		gp_str(fp, b->series[s]);
	}
	fprintf(fp, "\n");
}

void plot_bars_script(FILE *fp, const char *png, const struct plot_bars *b)
{
	struct bars_args a = { png, b };

	bars_body(fp, &a);
}

int plot_bars(const char *png, const struct plot_bars *b, char *errbuf)
{
	struct bars_args a = { png, b };

	return gp_run(png, bars_body, &a, errbuf);
}
