/* The fuzz targets (libFuzzer harnesses, `make fuzz`), each one file
 * defining FUZZ_TARGET(name). Built two ways:
 *   - with clang -fsanitize=fuzzer (tests/fuzz/fuzz.sh): the target is
 *     LLVMFuzzerTestOneInput, one program per target;
 *   - in `make check` (any compiler): the target is fuzz_<name>, and
 *     tests/fuzz/replay.c runs every target on its seed corpus and on
 *     every input that ever crashed it (tests/fuzz/regress/<name>/), so a
 *     crash found once stays a regression test.
 * A target returns 0; it aborts (or the sanitizers do) on a bug. */
#ifndef HYDE_FUZZ_H
#define HYDE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef HYDE_LIBFUZZER
#define FUZZ_TARGET(name) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name) int fuzz_##name(const uint8_t *data, size_t size)
#endif

int fuzz_topo(const uint8_t *data, size_t size);
int fuzz_workload(const uint8_t *data, size_t size);
int fuzz_swim(const uint8_t *data, size_t size);
int fuzz_coflow(const uint8_t *data, size_t size);
int fuzz_pcap(const uint8_t *data, size_t size);
int fuzz_analyze(const uint8_t *data, size_t size);
int fuzz_ocs(const uint8_t *data, size_t size);
int fuzz_shuffle(const uint8_t *data, size_t size);

/* The input as a file the parsers open by name: one memfd per process,
 * rewritten for each input; returns its /proc/self/fd path. Also makes
 * the logs quiet (a parser's warnings are not findings). */
const char *fuzz_file(const uint8_t *data, size_t size);
struct workload;
/* What the controller derives from a workload a parser or importer
 * accepted (arrival order, DAG depth, partition bytes adding up to each
 * job's shuffle) and wl_write's promise: its output parses back to the
 * same workload. */
void fuzz_check_workload(const struct workload *wl, const char *what);
/* Stop the fuzzer with a message: a property does not hold. */
_Noreturn void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
