#!/bin/sh
# Every shipped topology and workload validates, and every generated
# workload is what its first line's command produces today.
. "${HYDE_SRCDIR}/tests/lib.sh"

for t in "$HYDE_SRCDIR"/topologies/*.topo; do
	expect_status 0 "$HYDE" validate -t "$t"
done
for w in "$HYDE_SRCDIR"/workloads/*.wl; do
	expect_status 0 "$HYDE" validate -t "$HYDE_SRCDIR/topologies/rack8.topo" -w "$w"
	head=$(head -n 1 "$w")
	case "$head" in
	"# hyde gen "* | "# hyde import "*)
		cmd=${head#\# hyde }
		# shellcheck disable=SC2086 # the recorded command is split on purpose
		(cd "$HYDE_SRCDIR" && "$HYDE" $cmd) >"$tmpdir/regen.wl" ||
			fail "'hyde $cmd' failed"
		cmp -s "$w" "$tmpdir/regen.wl" ||
			fail "$w is not what 'hyde $cmd' produces"
		;;
	esac
done
finish
