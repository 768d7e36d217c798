#!/bin/sh
# fake-run-qemu.sh: run-qemu.sh's interface for bench-sweep.sh's host
# test (bench-host.sh). It runs no guest: it prints the session's marker
# lines and, per bench command, "RDTSC: X.00" with X the value of its
# -unroll_count, and a kernel-log line that must be ignored.
while [ $# -gt 0 ]; do
	case $1 in --session) session=$2; shift ;; esac
	shift
done
printf '[ 0.1] boot: 3.00\r\n'
while read -r cmd rest; do
	case $cmd in
	echo) printf '%s\r\n' "$rest" ;;
	bench) printf "RDTSC: %s.00\r\n" "$(echo "$rest" | sed -n "s/.*'-unroll_count' '\([0-9]*\)'.*/\1/p")" ;;
	esac
done < "$session"
echo "baremon: exit status 0"
