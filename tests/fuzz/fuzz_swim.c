/* Fuzz target: the SWIM trace importer (wl_import_swim, default options),
 * then fuzz_check_workload on what it imports. */
#include "config.h"

#include "core/wl_import.h"
#include "fuzz.h"

FUZZ_TARGET(swim)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl;
	struct swim_opts o;

	swim_opts_default(&o);
	if (wl_import_swim(fuzz_file(data, size), &o, &wl, errbuf))
		return 0;
	fuzz_check_workload(wl, "swim");
	wl_free(wl);
	return 0;
}
