#!/bin/sh
# coverage.sh SRCDIR WORKDIR TARGET...: `make fuzz-coverage`. Line
# coverage of each fuzz target's corpus (WORKDIR/corpus/TARGET as `make
# fuzz` left it, and the seeds) over the source files it is for, with
# clang's source-based coverage (llvm-profdata, llvm-cov). Same
# environment as run.sh.
set -eu
src=$1 work=$2
shift 2
: "${FUZZ_CC:=clang}"
v=$($FUZZ_CC --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
PROFDATA=$(command -v llvm-profdata-"$v" || command -v llvm-profdata)
COV=$(command -v llvm-cov-"$v" || command -v llvm-cov)
flags="-g -O0 -fprofile-instr-generate -fcoverage-mapping -DHYDE_PKGDATADIR=\"/nonexistent\" -DHYDE_SRCDIR=\"$src\""
out="$work/cov"
mkdir -p "$out"
# the source file of each target and the functions of it the target is
# for (an awk pattern on their names; "." for all)
files_of() {
	case $1 in
	topo) echo "src/core/topo.c ." ;;
	workload) echo "src/core/workload.c ." ;;
	swim) echo "src/core/wl_import.c wl_import_swim|arrival|swim_derive|scale_bytes|assign_user" ;;
	coflow) echo "src/core/wl_import.c wl_import_coflow|next_tok|arrival|assign_user" ;;
	pcap) echo "src/analyze/pcap_read.c ." ;;
	analyze) echo "src/analyze/analyze.c src/analyze/runread.c src/analyze/tcpconn.c src/analyze/report.c src/core/csv.c ." ;;
	ocs) echo "emul/ocs_proto.c ." ;;
	shuffle) echo "emul/shuffle.c shuffle_req|shuffle_reg|word|shuffle_key|fill" ;;
	esac
}
srcs=""
for f in $FUZZ_LIB_SOURCES $FUZZ_COMMON_SOURCES; do
	case $f in *.c) srcs="$srcs $src/$f" ;; esac
done
# every target, as `make check` builds them (replay.c needs them all)
for t in topo workload swim coflow pcap analyze ocs shuffle; do
	srcs="$srcs $src/tests/fuzz/fuzz_$t.c"
done
echo "building the targets with coverage"
# shellcheck disable=SC2086 # word lists
$FUZZ_CC $flags $FUZZ_CPPFLAGS "$src/tests/fuzz/replay.c" $srcs $FUZZ_LIBS -o "$out/replay"
for t in "$@"; do
	set -- "$src/tests/fuzz/corpus/$t"
	[ -d "$work/corpus/$t" ] && set -- "$@" "$work/corpus/$t"
	[ -d "$src/tests/fuzz/regress/$t" ] && set -- "$@" "$src/tests/fuzz/regress/$t"
	LLVM_PROFILE_FILE="$out/$t.profraw" TMPDIR="$work" "$out/replay" "$t" "$@" >/dev/null 2>&1 || true
	"$PROFDATA" merge -sparse "$out/$t.profraw" -o "$out/$t.profdata"
	files="" pat=.
	for f in $(files_of "$t"); do
		case $f in *.c) files="$files $src/$f" ;; *) pat=$f ;; esac
	done
	# shellcheck disable=SC2086
	"$COV" report "$out/replay" -instr-profile="$out/$t.profdata" -show-functions $files 2>/dev/null |
		awk -v t="$t" -v pat="$pat" -v files="$(files_of "$t" | sed 's/ [^ ]*$//')" '
		NF == 10 && $1 != "TOTAL" && $2 ~ /^[0-9]+$/ && $1 ~ pat { fn++; if ($3 < $2) fcov++; lines += $5; miss += $6 }
		END { printf "%-9s %5d of %5d lines (%.1f%%) of %d functions (%d entered) in %s\n",
			t, lines - miss, lines, lines ? 100 * (lines - miss) / lines : 0, fn, fcov, files }'
done
