#!/usr/bin/env bash
# A stand-in QEMU test for tests/ktap/run.sh: two passing checks and a
# line of plain output (no guest is booted).
echo "ok - alpha: first check"
echo "plain output with a # in it"
echo "ok - alpha: second check # with a hash"
