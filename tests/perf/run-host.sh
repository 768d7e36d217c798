#!/bin/sh
# run-host.sh [NAME...]: every perf_event_open test binary on the host, in
# all three builds (see tests/perf/perf.mk); last line
# "perf-host: N passed, N failed". Linux needs perf_event_open for
# software events (root, or perf_event_paranoid <= 0 for cpuwide).
exec sh "$(dirname "$0")/../run-three-builds.sh" perf "$@"
