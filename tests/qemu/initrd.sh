#!/usr/bin/env bash
# initrd.sh: a file given with --add FILE:DEST is in the guest's initrd;
# an initrd with bad cpio headers is named in the log, and the kernel
# goes on to say the session script is missing (it does not hang).
. "$(dirname "$0")/lib.sh"

file=$logs/x
printf 'first line of x\nsecond line, %s\n' "$$" > "$file"

guest add-cat --add "$file:/etc/x" --run 'cat /etc/x'
expect_rc 0
expect_line '^first line of x$' "cat shows the first line"
expect_line "^second line, $$\$" "cat shows the second line"

# An archive whose first header has a bad field (libc-lite's cpio unit
# tests cover the other kinds of damage).
{ printf '070701zzzzzzzz'; head -c 200 /dev/zero | tr '\0' 0; } > "$logs/badhex.cpio"
for bad in "badhex:bad hex field"; do
	guest "initrd-${bad%%:*}" --initrd "$logs/${bad%%:*}.cpio" --run 'cpus'
	expect_rc 127
	expect_line "^\[ *[0-9.]+\] initrd: archive damaged after 0 entries: ${bad#*:}\$" \
		"the log names the damage (${bad#*:})"
	expect_line '^sh: session script /etc/session: No such file in the initrd$' \
		"the kernel says what is missing and stops"
done

finish
