#!/usr/bin/env bash
# A stand-in QEMU test for tests/ktap/run.sh: one check passes, one
# fails with context lines, and the test exits 1.
echo "ok - beta: a check that passes"
echo "not ok - beta: a check that fails"
echo "#   | context of the failure"
exit 1
