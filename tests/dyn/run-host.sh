#!/bin/sh
# run-host.sh: the dynamic programs (tests/dyn/, built by `make
# dyn-tests`) on the host Linux, the reference tests/qemu/dyn.sh holds
# baremon to. Last line "dyn-host: N passed, N failed".
# DYN_OUT=DIR keeps each program's output as DIR/NAME.out.
cd "$(dirname "$0")/../.." || exit 2
bin=${BAREMON_BUILD:-build}/dyn
out=${DYN_OUT:-$(mktemp -d)}
[ -n "${DYN_OUT:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
ld=/lib64/ld-linux-x86-64.so.2
passed=0 failed=0
# NAME COMMAND...
one() {
	name=$1
	shift
	if [ ! -x "$bin/dyn-${name%-direct}" ]; then
		echo "FAIL $name: not built (make dyn-tests)"
		failed=$((failed + 1))
		return
	fi
	"$@" > "$out/$name.out" 2>&1 < /dev/null
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "PASS $name ($(tail -n 1 "$out/$name.out"))"
		passed=$((passed + 1))
	else
		echo "FAIL $name (exit $rc)"
		grep -v '^ok ' "$out/$name.out" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}
for n in hello hello-nopie threads tls dlopen cxx vdso execerr aslr; do
	one "$n" "$bin/dyn-$n"
done
one hello-direct "$ld" "$bin/dyn-hello" direct
echo "dyn-host: $passed passed, $failed failed"
[ $failed -eq 0 ]
