#!/usr/bin/env bash
# session.sh: the session shell's exit statuses reach run-qemu's exit
# status; $?, comments, set -e and unknown commands behave like sh, in
# /bin/sh and in the rescue shell.
. "$(dirname "$0")/lib.sh"

script=$logs/script

guest run-false --run false
expect_rc 1

guest run-echo --run 'echo hi'
expect_rc 0
expect_line '^hi$' "echo output"

cat > "$script" <<'END'
echo one
exit 7
echo never
END
guest exit-7 --session "$script"
expect_rc 7
expect_line '^one$' "commands before exit ran"
expect_no_line '^never$' "nothing ran after exit"
expect_line '^baremon: exit status 7$' "exit status line"

# Without set -e a script goes on after failures, and its status is its
# last command's.
cat > "$script" <<'END'
# a comment line; the next one has a comment after the words
echo visible # echo hidden
false
echo status=$?
no-such-command
echo status=$?
no-such-command
END
guest script --session "$script"
expect_rc 127
expect_line '^visible$' "a trailing comment is ignored"
check "a comment line runs nothing" [ "$(count 'command not found')" = 2 ]
expect_line '^status=1$' "\$? after false is 1"
expect_line '^sh: no-such-command: command not found$' "unknown command message"
expect_line '^status=127$' "\$? after an unknown command is 127"

cat > "$script" <<'END'
set -e
echo before
false
echo after
END
guest set-e --session "$script"
expect_rc 1
expect_line '^before$' "commands before the failure ran"
expect_line '^sh: stopping: status 1 with set -e$' "set -e says why it stops"
expect_no_line '^after$' "set -e stops at the first failure"

# The rescue shell (kshell on the command line) speaks the same language,
# through the same word splitter (libc-lite/words.c).
words=$(printf 'w%d ' $(seq 1 40))
cat > "$script" <<END
echo "two  words" 'no \$?' # hidden
false
echo status=\$? "[\$?]"
echo $words
echo status=\$?
END
guest kshell --cmdline kshell --session "$script"
expect_rc 0
expect_no_line 'init: started' "kshell ran instead of /bin/sh"
expect_line '^two  words no \$\?$' "quotes group words, '...' keeps \$?, # comments"
expect_line '^status=1 \[1\]$' "\$? expands, also inside \"...\""
expect_line '^sh: more than 31 words$' "too many words is an error"
expect_line '^status=2$' "... with status 2"

# make run's default session, as make run boots it: it ends with status 0,
# stat counts instructions in both modes, bench measures its one
# instruction and the isolated CPU takes no interruption.
st_guest default-session --icount 4 --cmdline isolcpus=1 --session "$top/sessions/default.session"
expect_rc 0
expect_line '^selftest: [0-9]+ passed, 0 failed$' "the self-tests pass"
expect_line '^ +[0-9]+ +instructions( |$)' "stat counts instructions (user and kernel)"
expect_line '^ +[0-9]+ +instructions:u( |$)' "stat counts user instructions"
expect_line '^ +[0-9]+ +branches:u( |$)' "stat counts user branches"
expect_line '^Instructions retired: 1\.00$' "bench: one instruction retired per copy"
expect_line '^ +1 +0 ' "noise: no interruption on the isolated CPU"

finish
