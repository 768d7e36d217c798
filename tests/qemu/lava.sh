#!/usr/bin/env bash
# lava.sh: the LAVA files (tools/lava/, docs/lava.md) under Debian's own
# dispatcher, lava-run (package lava-dispatcher):
# - every device dictionary renders to a device configuration, and
#   lava-run --validate accepts the session job on the QEMU device and,
#   as a board's job (flasher deploy, minimal boot), on the example board;
# - lava-run runs the QEMU job: it boots the GPT disk image through GRUB
#   under OVMF, types each command of sessions/lava-bench.session (and one
#   that fails) at the "baremon> " prompt, and reports each as test cases:
#   the command typed, its exit status, and its measurements with units
#   (bench's instructions per copy exact: 1.00 instructions).
# LAVA's own timeouts bound the job (20 minutes to boot, 10 a command);
# LAVA_TIMEOUT (default 1800 s) bounds lava-run itself.
. "$(dirname "$0")/lib.sh"

lava=$top/tools/lava
lava_py() { python3 "$lava/lava.py" "$@"; }
name=lava log=/dev/null err=/dev/null
if ! command -v lava-run >/dev/null; then
	not_ok "no lava-run (Debian package lava-dispatcher: make deps)"
	finish
fi

# validate NAME DEVICE-YAML JOB-YAML: lava-run --validate passes the job.
validate() {
	name=$1 log=$logs/$1.log err=$logs/$1.log
	timeout 300 lava-run --validate --job-id "$$" --output-dir "$logs/$1.out" \
		--device "$2" "$3" > "$log" 2>&1
	rc=$?
	check "lava-run --validate accepts the job (status $rc)" \
		grep -q '"msg": {"case": "job", "definition": "lava", "result": "pass"}' "$log"
}

# render OUT COMMAND...: COMMAND's output into OUT (its errors beside it).
# shellcheck disable=SC2317 # called by check
render() {
	local out=$1
	shift
	"$@" > "$out" 2> "$out.err"
}

for dict in "$lava"/devices/*.jinja2; do
	d=$(basename "$dict" .jinja2)
	name=device-$d log=$logs/$d.yaml err=$logs/$d.yaml.err
	check "the device dictionary $d renders" render "$log" lava_py device "$dict"
done
session=$top/sessions/lava-bench.session
# The job's session: lava-bench's commands and one that fails.
{ cat "$session"; echo "fails: false"; } > "$logs/lava.session"
name=job log=$logs/job.yaml err=$logs/job.yaml.err
check "the QEMU job renders from the session" \
	render "$log" lava_py job "$logs/lava.session" --image "file://$logs/baremon.img"
name=board-job log=$logs/board-job.yaml err=$logs/board-job.yaml.err
check "the board's job renders from the session" \
	render "$log" lava_py job "$session" --board --image "file://$logs/baremon.img"

name=image log=$logs/mkimage.log
check "tools/mkimage.sh builds the disk image" \
	render "$log" sh "$top/tools/mkimage.sh" "$build/esp" "$logs/baremon.img" --menu-timeout 1
validate validate-qemu "$logs/baremon-qemu01.yaml" "$logs/job.yaml"
validate validate-board "$logs/example-board.yaml" "$logs/board-job.yaml"

# The job itself.
name=lava-run log=$logs/lava-run.log err=$logs/lava-run.log
start=$SECONDS
timeout "${LAVA_TIMEOUT:-1800}" lava-run --job-id "$$" --output-dir "$logs/lava-run.out" \
	--device "$logs/baremon-qemu01.yaml" "$logs/job.yaml" > "$log" 2>&1
rc=$? secs=$((SECONDS - start))
echo "# lava-run: status $rc after ${secs}s"
lava_py results "$log" > "$logs/results.txt"
sed 's/^/# /' "$logs/results.txt"
# shellcheck disable=SC2317 # called by check
expect_session() {
	lava_py results "$log" --expect "$session" > "$logs/expect.txt"
	local st=$?
	grep '^lava.py: ' "$logs/expect.txt" | sed 's/^/# /'
	return "$st"
}
check "every command of lava-bench.session passed with its status and measurements" expect_session
# shellcheck disable=SC2317 # called by check
has_result() { grep -Eq -- "$1" "$logs/results.txt"; }
check "the job passed" has_result '^lava job pass$'
check "the boot through GRUB reached the prompt" has_result '^lava login-action pass$'
check "bench: one instruction per copy, measured exactly (1.00 instructions)" \
	has_result '^bench-add bench_add_instructions_retired pass 1\.00 instructions$'
check "bench: RDTSC per copy in cycles" has_result '^bench-add bench_add_rdtsc pass -?[0-9.]+ cycles$'
check "noise: CPU 0's interruptions and median in us" \
	has_result '^noise noise_cpu0_median_us pass [0-9.]+ us$'
check "stat: task-clock in msec" has_result '^stat stat_task_clock pass [0-9.]+ msec$'
check "a command that fails is a failed case with its status (1)" \
	has_result '^fails fails fail 1 status$'
check "the typed command of a failing program still passed (it ran)" has_result '^0_fails fails pass$'

finish
