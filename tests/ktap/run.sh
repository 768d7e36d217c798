#!/bin/sh
# tests/ktap/run.sh: the KTAP checker (tests/ktap.py check) accepts KTAP
# v1 as Linux's ktap.rst defines it and refuses what breaks it; its JUnit
# writer's files load in Python's xml.etree with the right counts; and the
# runner tests/qemu/run-all.sh, run on three stand-in tests (fake/: they
# boot nothing), prints KTAP that the checker accepts, keeps its closing
# "qemu: N passed, N failed" line and writes JUnit with JUNIT=FILE.
# Ends with "ktap: N passed, N failed".
dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$dir/../.." && pwd)
ktap() { python3 "$top/tests/ktap.py" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $1"; failed=$((failed + 1)); }
check() { what=$1; shift; if "$@" > "$tmp/said" 2>&1; then ok "$what"; else not_ok "$what"; sed 's/^/#   /' "$tmp/said"; fi; }
refuse() { what=$1; shift; if "$@" > "$tmp/said" 2>&1; then not_ok "$what"; sed 's/^/#   /' "$tmp/said"; else ok "$what"; fi; }

# doc NAME: the lines of stdin as file NAME.
doc() { cat > "$tmp/$1"; }

doc nested <<'K'
boot messages before the document
KTAP version 1
1..2
  KTAP version 1
  # Subtest: first
  1..3
  ok 1 one
  # two: FAIL (file.c:12: x == y)
  not ok 2 two
  ok 3 three # SKIP nothing to check here
# first failed
not ok 1 first
a kernel message in between
ok 2 second
K
check "a nested document with a failure and a skip is well formed" \
	ktap check --expect 2 --expect-failed 1 "$tmp/nested"
refuse "--expect holds the checker to the number of results" \
	ktap check --expect 3 "$tmp/nested"

printf 'KTAP version 1\n1..1\nok 1 a\nKTAP version 1\n1..2\nok 1 b\nok 2 c\n' | doc two
check "two documents in one log: 3 results" ktap check --expect 3 --expect-failed 0 "$tmp/two"

printf 'KTAP version 1\n1..2\nok 1 a\nok 3 b\n' | doc numbering
refuse "a result out of order is refused" ktap check "$tmp/numbering"
printf 'KTAP version 1\n1..3\nok 1 a\nok 2 b\n' | doc short
refuse "fewer results than the plan are refused" ktap check "$tmp/short"
printf 'KTAP version 1\n1..1\n  KTAP version 1\n  1..1\n  not ok 1 a\nok 1 parent\n' | doc bubble
refuse "a parent that is ok over a failed subtest is refused" ktap check "$tmp/bubble"
printf 'KTAP version 1\n1..1\n   ok 1 a\nok 1 b\n' | doc indent
refuse "a result at the wrong indentation is refused" ktap check "$tmp/indent"
printf 'selftest: 3 passed, 0 failed\n' | doc none
refuse "a log with no KTAP version line is refused" ktap check "$tmp/none"

# JUnit from the nested document: suite "first" with its three cases.
ktap junit --name demo "$tmp/nested" > "$tmp/nested.xml"
cat > "$tmp/junit.py" <<'P'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
want = sys.argv[2]
got = '%s %s/%s/%s' % (root.tag, root.get('tests'), root.get('failures'), root.get('skipped'))
got += ' ' + ' '.join('%s:%d' % (s.get('name'), len(s.findall('testcase'))) for s in root.findall('testsuite'))
fails = [c.get('name') for c in root.iter('testcase') if c.find('failure') is not None]
got += ' failed=' + ','.join(fails)
print(got)
sys.exit(got != want)
P
check "JUnit of it loads in xml.etree: 4 cases, 1 failure, 1 skipped, in suites first and demo" \
	python3 "$tmp/junit.py" "$tmp/nested.xml" "testsuites 4/1/1 first:3 demo:1 failed=two"

# The runner on the stand-in tests.
QEMU_TESTS_DIR=$dir/fake JUNIT=$tmp/qemu.xml sh "$top/tests/qemu/run-all.sh" > "$tmp/run-all" 2>&1
rc=$?
# The failed run keeps its logs under build/: not this one's.
kept=$(sed -n 's/^# logs kept in //p' "$tmp/run-all")
case $kept in "$top"/build/qemu-tests.*) rm -rf "$kept" ;; esac
check "run-all.sh fails when a test fails (status $rc)" [ "$rc" != 0 ]
check "run-all.sh still ends with its summary line, checks counted as before" \
	[ "$(tail -n 1 "$tmp/run-all")" = "qemu: 3 passed, 2 failed" ]
check "run-all.sh's output is KTAP: 3 tests, 2 of them failed" \
	ktap check --expect 3 --expect-failed 2 "$tmp/run-all"
check "a check's '#' does not become a KTAP directive" \
	grep -qx '  ok 2 alpha: second check   with a hash' "$tmp/run-all"
check "a test with no checks gets a failed result of its own" \
	grep -qx '  not ok 1 gamma: the test exited with status 3 after 0 checks' "$tmp/run-all"
check "JUNIT=FILE: run-all.sh's JUnit loads: 5 cases, 2 failures, a suite per test" \
	python3 "$tmp/junit.py" "$tmp/qemu.xml" \
	"testsuites 5/2/0 alpha:2 beta:2 gamma:1 failed=beta: a check that fails,gamma: the test exited with status 3 after 0 checks"

# ktap-nest.awk streaming (no plan), as run-tests.sh uses it.
{
	echo "KTAP version 1"
	echo "1..1"
	printf 'ok - x\nsome output\nnot ok - y\n' | awk -v name=s -f "$top/tests/ktap-nest.awk"
	echo "not ok 1 s"
} > "$tmp/stream"
check "a suite streamed without a plan is a KTAP subtest" \
	ktap check --expect 1 --expect-failed 1 "$tmp/stream"

echo "ktap: $passed passed, $failed failed"
[ "$failed" = 0 ]
