#!/bin/sh
# apps-host.sh: run the session shell (build/apps/sh) and the small apps
# on the host and compare what they print, stdout and stderr together,
# and their exit status with what is expected.
# Last line: "apps-host: N passed, N failed"; exit status 1 on any failure.
cd "$(dirname "$0")/../.." || exit 2
apps=$(pwd)/build/apps
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# expect NAME STATUS: run "$@" after the name and status, with the
# expected output on standard input. PATH finds the apps first; $A is
# their directory, for commands run by the host's /bin/sh -c (where
# echo and kill would otherwise be the host shell's built-ins).
expect() {
	name=$1 want=$2
	shift 2
	cat >"$tmp/want"
	(cd "$tmp" && env -i PATH="$apps:/usr/bin:/bin" HOME=/ A="$apps" "$@") \
		>"$tmp/got" 2>&1 </dev/null
	got=$?
	if [ "$got" -eq "$want" ] && cmp -s "$tmp/want" "$tmp/got"; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name (status $got, expected $want)"
		diff -u "$tmp/want" "$tmp/got" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

# script NAME STATUS: like expect, running build/apps/sh on the script
# given as the first here-document (read from fd 3).
script() {
	cat <&3 >"$tmp/script.sh"
	expect "$1" "$2" "$apps/sh" "$tmp/script.sh"
}

script "sh: words, quotes, comments, \$?" 0 3<<'S' <<'E'
# a comment
echo one   two "three  four" 'five $?' "six $?" seven#8
false
echo $? "$?" '$?'
echo "" x
S
baremon> # a comment
baremon> echo one   two "three  four" 'five $?' "six $?" seven#8
one two three  four five $? six 0 seven#8
baremon> false
baremon> echo $? "$?" '$?'
1 1 $?
baremon> echo "" x
 x
E

script "sh: programs, not found, killed by a signal" 139 3<<'S' <<'E'
true
nosuchcommand a b
echo $?
/nonexistent/prog
echo $?
ls /nonexistent
echo $?
dash -c 'kill -SEGV $$'
S
baremon> true
baremon> nosuchcommand a b
sh: nosuchcommand: command not found
baremon> echo $?
127
baremon> /nonexistent/prog
sh: /nonexistent/prog: command not found
baremon> echo $?
127
baremon> ls /nonexistent
ls: /nonexistent: No such file or directory
baremon> echo $?
1
baremon> dash -c 'kill -SEGV $$'
sh: dash: terminated by signal 11 (SIGSEGV)
E

script "sh: permission denied is 126" 126 3<<'S' <<'E'
/tmp
S
baremon> /tmp
sh: /tmp: Permission denied
E

script "sh: set -e stops with the status" 3 3<<'S' <<'E'
set -e
echo before
sh -c 'exit 3'
echo not reached
S
baremon> set -e
baremon> echo before
before
baremon> sh -c 'exit 3'
sh: stopping: status 3 with set -e
E

script "sh: set +e, exit N, errors" 7 3<<'S' <<'E'
set -e
set +e
false
echo "unterminated
set -x
exit 300
exit 7
echo not reached
S
baremon> set -e
baremon> set +e
baremon> false
baremon> echo "unterminated
sh: unterminated quote
baremon> set -x
sh: set: usage: set -e|+e
baremon> exit 300
sh: exit: bad status '300' (0-255)
baremon> exit 7
E

script "sh: cd, pwd, end of script gives the last status" 1 3<<'S' <<'E'
cd /
pwd
cd /nonexistent
pwd
cd
pwd
false
S
baremon> cd /
baremon> pwd
/
baremon> cd /nonexistent
sh: cd: /nonexistent: No such file or directory
baremon> pwd
/
baremon> cd
baremon> pwd
/
baremon> false
E

expect "sh -c" 4 "$apps/sh" -c "sh -c 'exit 4'" <<'E'
E

expect "sh: missing script" 127 "$apps/sh" /nonexistent.sh <<'E'
sh: /nonexistent.sh: No such file or directory
E

cat >"$tmp/in" <<'S'
echo from stdin
dash -c 'read x; echo got $x'
this line is for dash
exit 5
S
expect "sh: reads stdin a byte at a time, leaving the rest to programs" 5 \
	/bin/sh -c 'cat in | "$A/sh"' <<'E'
baremon> echo from stdin
from stdin
baremon> dash -c 'read x; echo got $x'
got this line is for dash
baremon> exit 5
E

expect "echo, echo -n" 0 /bin/sh -c '"$A/echo" -n "a  b" c; "$A/echo" "" d' <<'E'
a  b c d
E
mkdir -p "$tmp/d/sub" && printf 'hello\n' >"$tmp/d/f" && touch "$tmp/d/.hidden"
expect "ls, ls -a" 0 /bin/sh -c '"$A/ls" d && "$A/ls" -a d' <<'E'
f
sub
.
..
.hidden
f
sub
E
expect "ls -l, a missing path" 1 ls -l d/f nope <<'E'
-rw-r--r--   1        6 d/f

ls: nope: No such file or directory
E
expect "cat files and stdin" 1 /bin/sh -c 'echo piped | "$A/cat" d/f - d/nope' <<'E'
hello
piped
cat: d/nope: No such file or directory
E
expect "true, false" 1 /bin/sh -c '"$A/true" && "$A/false"' <<'E'
E
expect "uname -s, -m" 0 uname -sm <<'E'
Linux x86_64
E
expect "env -i, assignments, running a command" 0 env -i A=1 B=2 A=3 env <<'E'
A=3
B=2
E
expect "env: missing command" 127 env nosuch <<'E'
env: 'nosuch': No such file or directory
E
expect "sleep 0.05" 0 sleep 0.05 <<'E'
E
expect "kill -l, kill -s TERM, kill -9" 0 /bin/sh -c '
	"$A/kill" -l | head -2
	"$A/sleep" 5 & p=$!; "$A/kill" -s TERM $p; wait $p 2>/dev/null; echo $?
	"$A/sleep" 5 & p=$!; "$A/kill" -9 $p; wait $p 2>/dev/null; echo $?' <<'E'
 1 HUP
 2 INT
143
137
E
expect "kill: bad signal, no such process" 1 /bin/sh -c '
	"$A/kill" -s NOPE 1; echo $?; "$A/kill" -0 999999' <<'E'
usage: kill [-SIGNAL | -s SIGNAL] PID...
       kill -l
2
kill: (999999): No such process
E

echo "apps-host: $passed passed, $failed failed"
[ $failed -eq 0 ]
