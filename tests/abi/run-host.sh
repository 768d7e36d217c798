#!/bin/sh
# run-host.sh [NAME...]: every ABI test binary on the host, in all three
# builds (see tests/abi/abi.mk); last line "abi-host: N passed, N failed".
exec sh "$(dirname "$0")/../run-three-builds.sh" abi "$@"
