#!/bin/sh
# The manual pages stay in step with the commands: every subcommand that
# `hyde --help` lists has man/hyde-COMMAND.1 and hyde(1) names it; every
# option a command's --help names (in its usage lines or at the head of an
# option line; 'hyde topo stats --help' counts as topo's) is an entry of
# its page's OPTIONS section, and every entry there is an option its
# --help names; every KEY of a KEY=VALUE table in --help (scheduler,
# generator and import options) and every word of a subcommand list is an
# entry (.TP) of the page; every page renders without a warning (groff
# -man -ww -z, what `man -l` shows) and is installed. --help itself is
# every command's and is left out.
. "${HYDE_SRCDIR}/tests/lib.sh"
command -v groff >/dev/null 2>&1 || { echo "SKIP: needs groff" >&2; exit 77; }

MAN="$HYDE_SRCDIR/man"

# The options a --help text names: the usage block (from "usage:" to the
# first blank line) and the head of every line that starts with a dash
# (what comes before two spaces: "-o, --out FILE  the..." gives -o, --out).
help_opts() {
	awk '
		/^usage:/ { u = 1 }
		u && /^[ \t]*$/ { u = 0 }
		u { print; next }
		/^[ \t]*-[-A-Za-z]/ { l = $0; sub(/^[ \t]+/, "", l); sub(/  .*/, "", l); print l }
	' | grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[^-]*//' | grep -vx -e '--help' | sort -u
}

# The keys of the KEY=VALUE tables and the words of command lists:
# "  key   what" or "  key default   what" lines.
help_keys() {
	grep -E '^  [a-z][a-z0-9_]*( {2,}| [^ ]+ {2,})[^ ]' | awk '{ print $1 }' |
		sort -u
}

# The first word of every tag (the line after .TP) of a page, anywhere.
page_tags() {
	page_text "$1" | awk '
		/^\.T[PQ]/ { tag = 1; next }
		tag { sub(/^[ \t]+/, ""); split($0, w, /[ =(]/); print w[1]; tag = 0 }
	' | sort -u
}

# A page as plain text: font changes dropped, \- as -, \(em as --, \& gone.
page_text() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\-/-/g' -e 's/\\(em/--/g' \
		-e 's/\\&//g' "$1"
}

# The options a page's OPTIONS section lists: the tag line after each .TP
# (and any .TQ) between ".SH OPTIONS" and the next .SH.
page_opts() {
	page_text "$1" | awk '
		/^\.SH/ { o = ($0 ~ /^\.SH "?OPTIONS"?[ \t]*$/); next }
		!o { next }
		/^\.T[PQ]/ { tag = 1; next }
		tag { print; tag = 0 }
	' | grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[^-]*//' | grep -vx -e '--help' | sort -u
}

cmds=$("$HYDE" --help 2>&1 | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$cmds" ] || fail "hyde --help lists no command"
[ -f "$MAN/hyde.1" ] || fail "no man/hyde.1"

check_page() { # NAME PAGE HELPFILE
	name=$1 page=$2 help=$3
	help_opts <"$help" >"$tmpdir/h.opts"
	page_opts "$page" >"$tmpdir/p.opts"
	for o in $(comm -23 "$tmpdir/h.opts" "$tmpdir/p.opts"); do
		fail "$name --help names $o; ${page#"$HYDE_SRCDIR"/}'s OPTIONS has no entry for it"
	done
	for o in $(comm -13 "$tmpdir/h.opts" "$tmpdir/p.opts"); do
		fail "${page#"$HYDE_SRCDIR"/}'s OPTIONS lists $o; $name --help does not name it"
	done
	page_tags "$page" >"$tmpdir/p.tags"
	for k in $(help_keys <"$help"); do
		grep -qx -e "$k" "$tmpdir/p.tags" ||
			fail "$name --help lists '$k'; ${page#"$HYDE_SRCDIR"/} has no entry for it"
	done
	w=$(groff -man -ww -z "$page" 2>&1)
	[ -z "$w" ] || fail "groff -man -ww warns on ${page#"$HYDE_SRCDIR"/}: $w"
	grep -q '^\.SH "\{0,1\}EXIT STATUS' "$page" ||
		fail "${page#"$HYDE_SRCDIR"/} has no EXIT STATUS section"
}

"$HYDE" --help >"$tmpdir/help.hyde" 2>&1
# hyde(1)'s entries are the commands' pages, hyde-COMMAND(1): checked below.
grep -v '^  [a-z]' "$tmpdir/help.hyde" >"$tmpdir/help.hyde.opts"
check_page hyde "$MAN/hyde.1" "$tmpdir/help.hyde.opts"
n=0
for c in $cmds; do
	page="$MAN/hyde-$c.1"
	if [ ! -f "$page" ]; then
		fail "hyde $c has no page man/hyde-$c.1"
		continue
	fi
	page_text "$MAN/hyde.1" | grep -q "hyde-$c" || fail "man/hyde.1 does not name hyde-$c"
	"$HYDE" "$c" --help >"$tmpdir/help.$c" 2>&1 ||
		{ fail "hyde $c --help exited $?"; continue; }
	# A subcommand with a --help of its own ('hyde topo stats --help')
	# shares the command's page.
	for s in $(sed -n "s/.*'hyde $c \([a-z]*\) --help'.*/\1/p" "$tmpdir/help.$c"); do
		"$HYDE" "$c" "$s" --help >>"$tmpdir/help.$c" 2>&1 ||
			fail "hyde $c $s --help exited $?"
	done
	check_page "hyde $c" "$page" "$tmpdir/help.$c"
	n=$((n + 1))
done
# No page for a command hyde no longer has.
for page in "$MAN"/hyde-*.1; do
	c=${page##*/hyde-}
	c=${c%.1}
	echo "$cmds" | grep -qx "$c" || fail "man/hyde-$c.1: hyde has no command '$c'"
done
# `make install` puts every page where man(1) finds it by name.
: "${HYDE_BUILDDIR:?run through make check}"
if make -s -C "$HYDE_BUILDDIR" install-man DESTDIR="$tmpdir/inst" >"$tmpdir/install.log" 2>&1; then
	m1=$(find "$tmpdir/inst" -type d -name man1 | head -1)
	for page in "$MAN"/hyde.1 "$MAN"/hyde-*.1; do
		p=${page##*/}
		[ -n "$m1" ] && [ -f "$m1/$p" ] ||
			{ fail "make install did not install $p"; continue; }
		if command -v man >/dev/null 2>&1; then
			man -M "${m1%/*}" -w "${p%.1}" >/dev/null 2>&1 ||
				fail "man -M ${m1%/*} does not find ${p%.1}"
		fi
	done
else
	fail "make install-man DESTDIR=$tmpdir/inst: $(tail -5 "$tmpdir/install.log")"
fi
echo "checked hyde(1) and $n command pages against --help"
finish
