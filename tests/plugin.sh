#!/bin/sh
# The scheduler API as a plugin author meets it: `make install` puts
# <hyde/sched.h> and hyde.pc in place; the example plugin (examples/fifo.c)
# and a host-mode test plugin build against the installed header alone and
# run on tiny.topo in the simulator, in hyde compare and (as root) on the
# emulated fabric; a plugin built for another API version, one without the
# symbol and a path that is no plugin each get one message and exit 2; the
# executable exports every function the header declares.
. "${HYDE_SRCDIR}/tests/lib.sh"
: "${HYDE_BUILDDIR:?run through make check}"
for p in cc pkg-config nm; do
	command -v "$p" >/dev/null 2>&1 || { echo "SKIP: needs $p" >&2; exit 77; }
done

T="$HYDE_SRCDIR/topologies/tiny.topo"
W="$HYDE_SRCDIR/workloads/small.wl"
INST="$tmpdir/inst"

# ---- installed: header and pkg-config file ----
make -s -C "$HYDE_BUILDDIR" install DESTDIR="$INST" >"$tmpdir/install.log" 2>&1 ||
	{ fail "make install DESTDIR=$INST: $(tail -5 "$tmpdir/install.log")"; finish; }
pc=$(find "$INST" -name hyde.pc | head -1)
[ -n "$pc" ] || { fail "make install put no hyde.pc under $INST"; finish; }
export PKG_CONFIG_PATH="${pc%/*}" PKG_CONFIG_SYSROOT_DIR="$INST"
cflags=$(pkg-config --cflags hyde) || fail "pkg-config --cflags hyde failed"
hdr=$(find "$INST" -path '*/include/hyde/sched.h' | head -1)
[ -f "$hdr" ] || fail "no include/hyde/sched.h installed"
[ -f "${hdr%/*}/model.h" ] || fail "no include/hyde/model.h installed"
v=$(sed -n 's/^#define HYDE_SCHED_API_VERSION \([0-9]*\)$/\1/p' "$hdr")
[ "$(pkg-config --variable=sched_api_version hyde)" = "$v" ] ||
	fail "hyde.pc says API version $(pkg-config --variable=sched_api_version hyde), the header $v"

# built against the installed header only: no -I into hyde's tree
plug() { # SRC OUT [cc options]
	src=$1 out=$2
	shift 2
	cc -std=c11 -Wall -Wextra -Werror -shared -fPIC $cflags "$@" -o "$out" "$src" \
		2>"$tmpdir/cc.err" || fail "cc $src: $(cat "$tmpdir/cc.err")"
}
plug "$HYDE_SRCDIR/examples/fifo.c" "$tmpdir/fifo.so"
plug "$HYDE_SRCDIR/tests/plugin_hostmode.c" "$tmpdir/hostmode.so"
plug "$HYDE_SRCDIR/tests/plugin_containers.c" "$tmpdir/oneper.so"
# a plugin built for version 1 (its ops table ends before pick_task_in)
sed 's/\.api_version = HYDE_SCHED_API_VERSION,/.api_version = 1,/' \
	"$HYDE_SRCDIR/examples/fifo.c" >"$tmpdir/v1.c"
plug "$tmpdir/v1.c" "$tmpdir/v1.so"
# two apps of jobs sharing app=, with demands (API version 2)
cat >"$tmpdir/apps.wl" <<'EOF'
job id=a1 app=A arrival=0s input=4MB shuffle=1MB output=1MB maps=3 reduces=1 map_time=1s reduce_time=1s map_cpu=0.3 map_mem=500MB reduce_cpu=0.5 reduce_mem=1GB
job id=a2 app=A arrival=0s input=parents shuffle=0B output=0B maps=2 reduces=0 map_time=1s map_cpu=0.5 map_mem=500MB parents=a1
job id=b1 app=B arrival=1s input=3MB shuffle=0B output=0B maps=3 reduces=0 map_time=2s map_cpu=0.25 map_mem=300MB
EOF

# ---- the executable exports the API ----
# (functions, not the header's static inline helpers; glibc's copy
# relocations such as environ@GLIBC_2.2.5 are the linker's, not hyde's)
nm -D --defined-only "$HYDE" | awk '$3 !~ /@/ { print $3 }' | sort >"$tmpdir/exported"
grep -v 'static inline' "$hdr" | grep -o '\bhyde_[a-z_]*(' | tr -d '(' | sort -u >"$tmpdir/declared"
missing=$(comm -23 "$tmpdir/declared" "$tmpdir/exported")
[ -z "$missing" ] || fail "declared in <hyde/sched.h> but not exported by hyde: $missing"
[ "$(wc -l <"$tmpdir/declared")" -gt 30 ] || fail "found only $(wc -l <"$tmpdir/declared") functions in the header"
extra=$(grep -v '^hyde_' "$tmpdir/exported" | grep -v -e '^_' -e '^$' | head -3)
[ -z "$extra" ] || fail "hyde exports more than the API: $extra"

# ---- the simulator ----
expect_status 0 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/fifo.so" -o "$tmpdir/fifo" &&
	contains "$out" "jobs             2 of 2 done"
grep -q '"scheduler": "fifo"' "$tmpdir/fifo/summary.json" || fail "the run's scheduler is not fifo"
expect_status 0 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/fifo.so" -S locality=no -o "$tmpdir/fifo2"
expect_status 2 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/fifo.so" -S locality=maybe &&
	contains "$err" "scheduler fifo: locality"
expect_status 2 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/fifo.so" -S bogus=1 &&
	contains "$err" "unknown option 'bogus'" && contains "$err" "locality"

# host mode: every task placed by pick_host, on offered hosts (the plugin
# aborts on a broken promise of the API)
expect_status 0 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/hostmode.so" -o "$tmpdir/hm" &&
	contains "$out" "jobs             2 of 2 done"
tasks=$(grep -c ' task_start ' "$tmpdir/hm/events.log")
grep -q "sched hostmode: placed $tasks tasks, [1-9][0-9]* view checks" "$tmpdir/hm/events.log" ||
	fail "host mode: $tasks tasks started, the plugin says: $(grep 'sched hostmode' "$tmpdir/hm/events.log")"

# version 1's plugins still load and run
expect_status 0 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/v1.so" -o "$tmpdir/v1" &&
	contains "$out" "jobs             2 of 2 done"

# container-holding mode: one container per app, its tasks packed in it
expect_status 0 "$HYDE" sim -t "$T" -w "$tmpdir/apps.wl" -s "$tmpdir/oneper.so" -o "$tmpdir/cp" &&
	contains "$out" "jobs             3 of 3 done"
grep -q "sched oneper: placed 9 tasks" "$tmpdir/cp/events.log" ||
	fail "container plugin: $(grep 'sched oneper' "$tmpdir/cp/events.log")"
[ "$(awk -F, 'NR > 1 && $8 >= 0' "$tmpdir/cp/app/containers.csv" | wc -l)" = 2 ] ||
	fail "container plugin: not one released container per app: $(cat "$tmpdir/cp/app/containers.csv")"

# hyde compare takes a plugin's path as a spec, options after it
expect_status 0 "$HYDE" compare --backend sim -t "$T" -w "$W" -q \
	-s "fair,$tmpdir/fifo.so:locality=no" -o "$tmpdir/cmp" &&
	contains "$out" "fifo.so:locality=no"
[ -f "$tmpdir/cmp/fifo-locality=no/summary.json" ] ||
	fail "compare: no run directory fifo-locality=no: $(ls "$tmpdir/cmp")"
grep -qx '0 sched_options locality=no' "$tmpdir/cmp/fifo-locality=no/events.log" ||
	fail "compare: the plugin ran with $(grep sched_options "$tmpdir/cmp/fifo-locality=no/events.log")"

# ---- refused: one message, exit 2, nothing made ----
sed 's/\.api_version = HYDE_SCHED_API_VERSION,/.api_version = HYDE_SCHED_API_VERSION + 1,/' \
	"$HYDE_SRCDIR/examples/fifo.c" >"$tmpdir/future.c"
plug "$tmpdir/future.c" "$tmpdir/future.so"
expect_status 2 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/future.so" -o "$tmpdir/no1" &&
	contains "$err" "built for scheduler API version $((v + 1)), this hyde has version $v"
printf 'int not_a_scheduler = 1;\n' >"$tmpdir/nosym.c"
plug "$tmpdir/nosym.c" "$tmpdir/nosym.so"
expect_status 2 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/nosym.so" -o "$tmpdir/no2" &&
	contains "$err" "no symbol hyde_sched_plugin"
echo 'not an ELF file' >"$tmpdir/text.so"
expect_status 2 "$HYDE" sim -t "$T" -w "$W" -s "$tmpdir/text.so" -o "$tmpdir/no3" &&
	contains "$err" "scheduler plugin $tmpdir/text.so"
expect_status 2 "$HYDE" sim -t "$T" -w "$W" -s ./nosuch.so -o "$tmpdir/no4" &&
	contains "$err" "scheduler plugin ./nosuch.so"
expect_status 2 "$HYDE" compare --backend sim -t "$T" -w "$W" -s "fair,$tmpdir/nosym.so" -o "$tmpdir/no5" &&
	contains "$err" "no symbol hyde_sched_plugin"
for d in no1 no2 no3 no4 no5; do
	[ -e "$tmpdir/$d" ] && fail "a refused plugin left $tmpdir/$d"
done

# ---- the emulated fabric (root) ----
if [ "$(id -u)" = 0 ] && ip netns list >/dev/null 2>&1; then
	P=$(test_prefix plug)
	trap '"$HYDE" clean --prefix $P >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT
	expect_status 0 "$HYDE" run -t "$T" -w "$W" -s "$tmpdir/fifo.so" -o "$tmpdir/emul" --prefix $P &&
		contains "$out" "2 of 2"
	awk -F, 'NR > 1 && $8 != 1 { bad = 1 } END { exit bad }' "$tmpdir/emul/app/fetches.csv" ||
		fail "emulation with the plugin: a fetch not verified"
	expect_status 0 "$HYDE" run -t "$T" -w "$W" -s "$tmpdir/hostmode.so" -o "$tmpdir/emul-hm" --prefix $P -q
	grep -q "sched hostmode: placed [1-9]" "$tmpdir/emul-hm/events.log" ||
		fail "emulation, host mode: $(grep 'sched hostmode' "$tmpdir/emul-hm/events.log")"
	expect_status 0 "$HYDE" run -t "$T" -w "$tmpdir/apps.wl" -s "$tmpdir/oneper.so" -o "$tmpdir/emul-cp" \
		--prefix $P --no-analyze -q
	grep -q "sched oneper: placed 9 tasks" "$tmpdir/emul-cp/events.log" ||
		fail "emulation, container plugin: $(grep 'sched oneper' "$tmpdir/emul-cp/events.log")"
	[ -z "$(ip netns list | grep "^$P-")" ] || fail "namespaces $P-* left"
else
	echo "(not root: the emulated part skipped)"
fi
finish
