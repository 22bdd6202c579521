/* Fuzz target: the workload parser (wl_load), then, for a workload it
 * accepts, the checks of fuzz_check_workload. */
#include "config.h"

#include "core/workload.h"
#include "fuzz.h"

FUZZ_TARGET(workload)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl;

	if (wl_load(fuzz_file(data, size), &wl, errbuf))
		return 0;
	fuzz_check_workload(wl, "workload");
	wl_free(wl);
	return 0;
}
