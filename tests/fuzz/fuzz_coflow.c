/* Fuzz target: the Coflow-Benchmark importer (wl_import_coflow, default
 * options), then fuzz_check_workload on what it imports. */
#include "config.h"

#include "core/wl_import.h"
#include "fuzz.h"

FUZZ_TARGET(coflow)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl;
	struct coflow_opts o;

	coflow_opts_default(&o);
	if (wl_import_coflow(fuzz_file(data, size), &o, &wl, errbuf))
		return 0;
	fuzz_check_workload(wl, "coflow");
	wl_free(wl);
	return 0;
}
