#!/usr/bin/env bash
# screen.sh: with a display (QEMU's standard VGA, which OVMF drives
# through GOP) the kernel draws its log and the prompt on the
# framebuffer. QEMU's screendump is read back as text by
# tests/qemu/screencells.c, which matches each 8x16 cell against the
# kernel's own font (no OCR), and must show the boot banner, a log line
# and the shell's output. Then a command typed on the PS/2 keyboard
# (QEMU's sendkey) runs, and its output is on the screen too.
. "$(dirname "$0")/lib.sh"

cells=$logs/screencells
gcc -O2 -Wall -Wextra -Werror -I"$top" -o "$cells" \
	"$top/tests/qemu/screencells.c" "$top/core/font8x16.c"
name=screencells
check "the decoder builds" test -x "$cells"

# The guest runs one command and stays at the prompt; the test takes
# screenshots until the screen shows it, then stops the guest.
name=fbcon
mon=$logs/monitor.sock
log=/dev/null # stopped from outside: run-qemu keeps no log
err=$logs/fbcon.err
"$top/run-qemu.sh" --quiet --timeout "$guest_timeout" --vga --monitor "$mon" \
	--stay --run 'echo screen-test-marker' 2>"$err" &
pid=$!
text=$logs/screen.txt
: > "$text"
typed=""
for _ in $(seq 1 "$guest_timeout"); do
	sleep 1
	kill -0 "$pid" 2>/dev/null || break
	[ -S "$mon" ] || continue
	if [ -z "$typed" ] && grep -q '^screen-test-marker$' "$text"; then
		typed="echo kbd-typed-42"
		"$cells" "$mon" "$logs/screen.ppm" "$typed" > "$text" 2>>"$err" || continue
	else
		"$cells" "$mon" "$logs/screen.ppm" > "$text" 2>>"$err" || continue
	fi
	grep -q '^kbd-typed-42$' "$text" && break
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
echo "# the screen, read back:"
grep -v '^$' "$text" | tail -n 12 | sed 's/^/#   | /'
check "the screen shows the banner" grep -Eq '^baremon [^ ]+ booting \(boot-info v[0-9]+ from baremon-loader 1\)$' "$text"
check "the screen shows the kernel log" grep -Eq '^\[ *[0-9]+\.[0-9]{6}\] (init|smp): ' "$text"
check "the screen shows the command's output" grep -q '^screen-test-marker$' "$text"
check "a command typed on the keyboard is echoed" grep -q '^baremon> echo kbd-typed-42$' "$text"
check "and runs" grep -q '^kbd-typed-42$' "$text"

finish
