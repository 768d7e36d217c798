# harness.sh: what the host suites in tests/apps share, sourced after
# `top` is set. Makes $tmp (removed on exit) and $out, and gives:
#   run CMD...     its output in $out, its status in $rc
#   check WHAT CMD...  PASS/FAIL WHAT by CMD's status (a failure shows
#                  the last run's output once)
#   has RE, lines RE   grep -E in $out: found? / how many lines
# The suite counts in $passed and $failed.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
passed=0 failed=0 rc=0 shown=0

# run COMMAND...: standard output and error in $out, the status in $rc.
run() {
	shown=0
	"$@" >"$out" 2>&1 </dev/null
	rc=$?
}

pass() {
	echo "PASS $1"
	passed=$((passed + 1))
}

fail() {
	echo "FAIL $1"
	failed=$((failed + 1))
	[ "$shown" = 1 ] && return
	shown=1 # the output once per command
	echo "    status $rc; output:"
	sed 's/^/    | /' "$out" | head -40
}

check() {
	what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

has() { grep -Eq -- "$1" "$out"; }
lines() { grep -Ec -- "$1" "$out"; }
