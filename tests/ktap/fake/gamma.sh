#!/usr/bin/env bash
# A stand-in QEMU test for tests/ktap/run.sh: it fails before making any
# check, which the runner counts as a failure of its own.
echo "gamma: could not start"
exit 3
