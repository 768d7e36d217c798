#!/usr/bin/env bash
# initrd.sh: a file given with --add FILE:DEST is in the guest's initrd.
. "$(dirname "$0")/lib.sh"

file=$logs/x
printf 'first line of x\nsecond line, %s\n' "$$" > "$file"

guest add-cat --add "$file:/etc/x" --run 'cat /etc/x'
expect_rc 0
expect_line '^first line of x$' "cat shows the first line"
expect_line "^second line, $$\$" "cat shows the second line"

finish
