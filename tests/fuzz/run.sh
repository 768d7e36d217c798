#!/bin/sh
# run.sh: the fuzz targets (libFuzzer, clang) on their corpora for a
# bounded number of runs each; prints "fuzz: N passed, N failed".
# FUZZ_RUNS (default 20000) bounds each target. A crash leaves its input
# in build/fuzz/ (crash-*) and counts as a failure.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/fuzz
runs=${FUZZ_RUNS:-20000}
passed=0
failed=0
for t in frame perfdata export_rx pack; do
	bin=$out/fuzz_$t
	corpus=$out/corpus-$t
	mkdir -p "$corpus"
	cp "$top/tests/fuzz/corpus/$t/"* "$corpus/" 2>/dev/null
	if (cd "$out" && "$bin" -runs="$runs" -max_len=8192 "$corpus" > "$out/$t.log" 2>&1); then
		echo "ok - fuzz_$t: $(grep -Eo 'Done [0-9]+ runs' "$out/$t.log")"
		passed=$((passed + 1))
	else
		echo "not ok - fuzz_$t: see $out/$t.log"
		tail -n 20 "$out/$t.log"
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
