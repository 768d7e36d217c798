# ktap-nest.awk: one test's output as a KTAP v1 subtest (tests/ktap.py
# reads it), indented two spaces: a version line, "# Subtest: NAME", the
# plan when PLAN is given (run-all.sh knows it; a streaming caller does
# not, and KTAP lets a plan be left out), then each line of the output:
#   ok - WHAT        -> "  ok N WHAT"       (numbered 1, 2, ... in order)
#   not ok - WHAT    -> "  not ok N WHAT"
#   # TEXT           -> "  # TEXT"           (a diagnostic line already)
#   anything else    -> "  # anything else"
# Output already in KTAP (a "KTAP version 1" first line: run-all.sh's, as
# run-tests.sh shows it) is indented as it is. A '#' in WHAT would start a
# directive, so it becomes a blank. The parent's result line is the
# caller's; EXTRA, when given, is one more failed result at the end (the
# caller's finding: "the test exited with status 1 after 3 checks").
# Each line is flushed: the callers stream a long run.
# Usage: awk -v name=NAME [-v plan=N] [-v extra=WHAT] -f ktap-nest.awk [FILE]
BEGIN {
	n = 0
	raw = 0
}
NR == 1 && /^KTAP version 1$/ {
	raw = 1
}
NR == 1 && !raw {
	print "  KTAP version 1"
	print "  # Subtest: " name
	if (plan != "")
		print "  1.." plan
}
raw {
	print "  " $0
	fflush()
	next
}
/^ok - / || /^not ok - / {
	result = /^ok - / ? "ok" : "not ok"
	what = substr($0, length(result) + 4)
	gsub(/#/, " ", what)
	print "  " result " " ++n " " what
	fflush()
	next
}
/^#/ {
	print "  " $0
	fflush()
	next
}
{
	print "  # " $0
	fflush()
}
END {
	if (NR == 0) {
		print "  KTAP version 1"
		print "  # Subtest: " name
		if (plan != "")
			print "  1.." plan
	}
	if (extra != "") {
		gsub(/#/, " ", extra)
		print "  not ok " ++n " " extra
	}
}
