#!/usr/bin/env bash
# Boot baremon under OVMF in QEMU. See `./run-qemu.sh --help` and README.md.
#
# Exit status: the guest's status (from "baremon: exit status N" on serial,
# or QEMU's isa-debug-exit code), or
#   124 timeout, 125 kernel panic or triple fault, 126 boot failure, 127 QEMU failed / bad
#   usage; each with a one-line reason on stderr ("run-qemu: ...").
set -u

top=$(cd "$(dirname "$0")" && pwd)
build=${BAREMON_BUILD:-$top/build}
ovmf=${OVMF:-/usr/share/ovmf/OVMF.fd}
qemu=${QEMU:-qemu-system-x86_64}

smp=2
cpu_model=""
machine=q35
mem=512M
accel=auto
icount=""
tcg_icount=""
cmdline=""
timeout=""
cpu_timeout=""
gdb=0
serial=stdio
export_serial=""
export_virtio=""
pci_serial=""
session=""
run_cmd=""
adds=()
dyn_adds=()
kernel=""
loader=""
initrd_file=""
cmdline_file=""
flat_esp=0
numa=0
vga=0
monitor=""
disk=""
log=""
pidfile=""
stay=0
quiet=0
panic_mode=""
qemu_extra=()

usage() {
	cat <<'EOF'
usage: ./run-qemu.sh [options]
  --smp N[,sockets=S,cores=C,threads=T]
                     CPUs (default 2), optionally with QEMU's topology
  --mem SIZE         memory, e.g. 512M, 2G (default 512M)
  --kvm | --tcg      force an accelerator (default: KVM when /dev/kvm works)
  --cpu MODEL        QEMU CPU model (default: host with KVM; with TCG
                     the CPU the vpmu mode models: Skylake-Client, or for
                     --cmdline vpmu=intel-v2 Penryn, intel-v5 Sapphire
                     Rapids, hybrid Alder Lake, amd Zen 4 (docs/pmu.md))
  --machine OPTS     QEMU machine (default q35), e.g. q35,hpet=off
  --icount [N]       -icount shift=N,sleep=off (default N=0), and icount=N on
                     the kernel command line: RDTSC counts
                     guest instructions exactly (implies TCG)
  --tcg-icount N     --icount N when the accelerator is TCG (no usable
                     KVM, or --tcg); with KVM nothing (the host tool's
                     default: exact counts wherever there is no real PMU)
  --no-icount        no instruction clock: drops an --icount or
                     --tcg-icount given before it
  --cmdline 'ARGS'   extra kernel command-line words (docs/cmdline.md)
  --timeout S        kill the guest after S seconds (exit 124)
  --cpu-timeout S    kill the guest once it has had S seconds of both wall
                     time and QEMU CPU time, or after 8*S wall seconds
                     (exit 124): a busy host stretches it, a hang still ends
  --gdb              wait for gdb on localhost:1234 before booting
  --serial stdio|pty|socket:PATH   where the console goes (default stdio)
  --export-serial pty|socket:PATH   a second UART (ttyS1) for the frame
                     stream, with export=ttyS1 (docs/export.md)
  --export-virtio pty|socket:PATH   a virtio console for the frame stream,
                     with export=virtio: no per-byte cost (docs/export.md)
  --pci-serial pty|socket:PATH      a PCI serial card (QEMU pci-serial)
  --session FILE     run the commands in FILE at the session prompt; the
                     exit status is the session's
  --run 'CMD ARGS'   run one command and power off with its status
  --add FILE[:DEST]  put FILE in the initrd (default /bin/NAME); repeatable
  --add-dyn FILE[:DEST]  the same for a dynamically linked program, with
                     its interpreter and the shared libraries it needs
                     (tools/ldd-closure.sh: the host's, at the paths ld.so
                     opens; those beside FILE beside DEST); repeatable
  --stay             after --session/--run, stay at the prompt
  --disk IMG         boot a disk image (make image) instead of the build's
                     ESP; its GRUB menu decides the command line
  --kernel FILE      boot this kernel ELF instead of build/kernel.elf;
                     'none' leaves the kernel off the ESP (a loader test)
  --initrd FILE      use FILE as the initrd instead of building one (with
                     --run/--session/--add the guest will lack those files)
  --cmdline-file F   put F on the ESP as the command-line file, as is
  --vga              a display (QEMU's standard VGA; OVMF offers it as GOP,
                     the kernel draws its console there); still no window
  --monitor PATH     QEMU's monitor on the unix socket PATH (screendump)
  --numa N           N NUMA nodes (an SRAT): memory and CPUs split evenly
  --flat-esp         put kernel, initrd and command line next to the loader
                     in \EFI\BOOT\ instead of \baremon\
  --loader FILE      use this BOOTX64.EFI instead of build/BOOTX64.EFI
  --log FILE         also write the serial output to FILE
  --pidfile FILE     QEMU writes its pid to FILE (-pidfile)
  --panic halt       halt after a panic instead of exiting (for inspection)
  --quiet            do not echo the console (the log still has it)
  --qemu PATH        this qemu-system-x86_64 instead of $QEMU or the system's
                     (tools/qemu-new.sh prints a QEMU 10 one: x2APIC on TCG)
  --qemu-arg ARG     one more QEMU argument, as is; repeatable (e.g.
                     -device max-x86_64-cpu,socket-id=..,core-id=..,thread-id=..)
  -h, --help         this text
EOF
}

die() {
	echo "run-qemu: $*" >&2
	exit 127
}

need_arg() {
	[ $# -ge 2 ] || die "$1 needs an argument (see --help)"
}

while [ $# -gt 0 ]; do
	case $1 in
	--smp) need_arg "$@"; smp=$2; shift ;;
	--mem) need_arg "$@"; mem=$2; shift ;;
	--kvm) accel=kvm ;;
	--cpu) need_arg "$@"; cpu_model=$2; shift ;;
	--machine) need_arg "$@"; machine=$2; shift ;;
	--tcg) accel=tcg ;;
	--icount)
		icount=0
		if [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]]; then icount=$2; shift; fi ;;
	--icount=*) icount=${1#--icount=} ;;
	--tcg-icount) need_arg "$@"; tcg_icount=$2; shift ;;
	--no-icount) icount="" tcg_icount="" ;;
	--cmdline) need_arg "$@"; cmdline="$cmdline $2"; shift ;;
	--timeout) need_arg "$@"; timeout=$2; shift ;;
	--cpu-timeout) need_arg "$@"; cpu_timeout=$2; shift ;;
	--gdb) gdb=1 ;;
	--serial) need_arg "$@"; serial=$2; shift ;;
	--export-serial) need_arg "$@"; export_serial=$2; shift ;;
	--pci-serial) need_arg "$@"; pci_serial=$2; shift ;;
	--export-virtio) need_arg "$@"; export_virtio=$2; shift ;;
	--session) need_arg "$@"; session=$2; shift ;;
	--run) need_arg "$@"; run_cmd=$2; shift ;;
	--add) need_arg "$@"; adds+=("$2"); shift ;;
	--add-dyn) need_arg "$@"; dyn_adds+=("$2"); shift ;;
	--stay) stay=1 ;;
	--disk) need_arg "$@"; disk=$2; shift ;;
	--kernel) need_arg "$@"; kernel=$2; shift ;;
	--loader) need_arg "$@"; loader=$2; shift ;;
	--initrd) need_arg "$@"; initrd_file=$2; shift ;;
	--cmdline-file) need_arg "$@"; cmdline_file=$2; shift ;;
	--flat-esp) flat_esp=1 ;;
	--numa) need_arg "$@"; numa=$2; shift ;;
	--vga) vga=1 ;;
	--monitor) need_arg "$@"; monitor=$2; shift ;;
	--log) need_arg "$@"; log=$2; shift ;;
	--pidfile) need_arg "$@"; pidfile=$2; shift ;;
	--panic) need_arg "$@"; panic_mode=$2; shift ;;
	--quiet) quiet=1 ;;
	--qemu) need_arg "$@"; qemu=$2; shift ;;
	--qemu-arg) need_arg "$@"; qemu_extra+=("$2"); shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done

[[ $smp =~ ^[0-9]+(,[a-z]+=[0-9]+)*$ ]] && [ "${smp%%,*}" -ge 1 ] ||
	die "--smp wants a number >= 1, optionally with QEMU's ,sockets=N,cores=N,threads=N"
[ -z "$timeout" ] || [[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants whole seconds"
[ -z "$cpu_timeout" ] || [[ $cpu_timeout =~ ^[0-9]+$ ]] || die "--cpu-timeout wants whole seconds"
[[ $numa =~ ^[0-9]+$ ]] || die "--numa wants a number of nodes"
[ -n "$session" ] && [ -n "$run_cmd" ] && die "--session and --run exclude each other"
[ -z "$session" ] || [ -r "$session" ] || die "session file '$session' not found"
case $serial in stdio|pty|socket:*) ;; *) die "--serial stdio|pty|socket:PATH" ;; esac
for s2 in "$export_serial" "$pci_serial" "$export_virtio"; do
	case $s2 in ""|pty|socket:*) ;; *) die "--export-serial/--pci-serial/--export-virtio pty|socket:PATH" ;; esac
done
kernel=${kernel:-$build/kernel.elf}
loader=${loader:-$build/BOOTX64.EFI}
[ "$kernel" = none ] || [ -f "$kernel" ] || die "no kernel at $kernel: run 'make' first"
[ -z "$initrd_file" ] || [ -f "$initrd_file" ] || die "initrd '$initrd_file' not found"
[ -z "$cmdline_file" ] || [ -f "$cmdline_file" ] || die "command-line file '$cmdline_file' not found"
[ -f "$loader" ] || die "no loader at $loader: run 'make' first"
[ -z "$disk" ] || [ -f "$disk" ] || die "disk image '$disk' not found"
# --add-dyn: the program, and what tools/ldd-closure.sh says it needs at
# the paths ld.so opens; a library beside the program (its $ORIGIN) goes
# beside its copy instead.
for spec in ${dyn_adds[@]+"${dyn_adds[@]}"}; do
	src=${spec%%:*} dest=/bin/
	[ "$src" = "$spec" ] || dest=${spec#*:}
	case $dest in */) dest=$dest$(basename "$src") ;; esac
	adds+=("$src:$dest")
	closure=$(sh "$top/tools/ldd-closure.sh" "$src") || die "--add-dyn $src: see above"
	here=$(cd "$(dirname "$src")" && pwd -P)
	while IFS= read -r entry; do
		[ -n "$entry" ] || continue
		lib=${entry#*:}
		if [ "$(dirname "${entry%%:*}")" = "$here" ]; then
			adds+=("${entry%%:*}:$(dirname "$dest")/$(basename "$lib")")
		else
			adds+=("$entry")
		fi
	done <<< "$closure"
done
if [ -n "$disk" ] && [ -n "$session$run_cmd$cmdline${adds[*]+x}" ]; then
	die "--disk boots the image as it is: its GRUB menu sets the command line"
fi
[ -f "$ovmf" ] || die "no OVMF firmware at $ovmf: run 'make deps' (Debian package ovmf)"
command -v "$qemu" >/dev/null || die "$qemu not found: run 'make deps' (Debian package qemu-system-x86)"

# --- accelerator -----------------------------------------------------------
# The vpmu mode the kernel command line asks for (its last vpmu= word),
# or "" for the default.
vpmu_mode_of() {
	local w mode=""
	for w in $1; do
		case $w in vpmu=*) mode=${w#vpmu=} ;; esac
	done
	echo "$mode"
}
# The QEMU CPU model (TCG) of the microarchitecture a vpmu mode models:
# a named QEMU model, or the nearest one with that CPU's family, model
# and name where QEMU 7.2 has none (docs/pmu.md's table gives the gaps).
#   intel     arch perfmon v4, Skylake's LBR: Skylake-Client (6/5EH)
#   intel-v2  arch perfmon v2, no PDCM, no LBR model: Core 2, Penryn (6/17H)
#   intel-v5  arch perfmon v5, arch LBR: Sapphire Rapids (6/8FH) on
#             Icelake-Server, its predecessor's features
#   hybrid    Core + Atom: Alder Lake (6/97H) on Skylake-Client's features
#   amd       PerfCtrExtCore, PerfMonV2, LbrExtV2: Zen 4, Genoa (19H/11H)
#             on EPYC-Milan (Zen 3)'s features
tcg_cpu_model() {
	case $1 in
	intel-v2) echo Penryn ;;
	intel-v5) echo "Icelake-Server,model=143,stepping=8,model-id=Intel Xeon Processor (SapphireRapids)" ;;
	hybrid) echo "Skylake-Client,model=151,stepping=2,model-id=Intel Core Processor (Alder Lake)" ;;
	amd) echo "EPYC-Milan,model=17,stepping=1,model-id=AMD EPYC-Genoa Processor" ;;
	*) echo Skylake-Client ;;
	esac
}
kvm_usable() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	# Opening /dev/kvm is not enough: nested setups may refuse -cpu host.
	(echo quit | "$qemu" -enable-kvm -cpu host -machine q35 -nodefaults \
		-display none -S -monitor stdio) >/dev/null 2>&1
}
if [ -n "$icount" ] && [ "$accel" = kvm ]; then
	die "--icount needs TCG; drop --kvm"
fi
if [ "$accel" = auto ]; then
	if [ -z "$icount" ] && kvm_usable; then accel=kvm; else accel=tcg; fi
fi
[[ -z $tcg_icount || $tcg_icount =~ ^[0-9]+$ ]] || die "--tcg-icount wants a shift (0-10)"
[ -n "$tcg_icount" ] && [ -z "$icount" ] && [ "$accel" = tcg ] && icount=$tcg_icount
if [ "$accel" = kvm ]; then
	accel_args=(-enable-kvm -cpu "${cpu_model:-host}")
	accel_note="KVM (-cpu ${cpu_model:-host})"
else
	# QEMU emulates no PMU under TCG; the kernel's vpmu stands in, in
	# the mode --cmdline's vpmu= names (docs/pmu.md). The CPU QEMU
	# shows is the microarchitecture that mode models, because tools
	# pick their event tables by CPUID's vendor, family and model
	# (libpfm4, perf's pmu-events, PAPI): tcg_cpu_model. An explicit
	# --cpu wins (max alone says AuthenticAMD family 15 on TCG, and the
	# kernel then gets the vendor's default mode unless --cmdline names
	# one).
	tcg_cpu=${cpu_model:-$(tcg_cpu_model "$(vpmu_mode_of "$cmdline")")}
	accel_args=(-accel tcg -cpu "$tcg_cpu")
	accel_note="TCG (-cpu $tcg_cpu; QEMU emulates no PMU here)"
	if [ -n "$icount" ]; then
		accel_args+=(-icount "shift=$icount,sleep=off")
		accel_note="$accel_note, -icount shift=$icount,sleep=off"
	fi
fi

# --- the EFI system partition for this run ---------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/baremon-run.XXXXXX")
qemu_pid=""
# On every exit (a signal: INT, TERM, HUP): QEMU is stopped and waited
# for, so that nothing of this run is left when run-qemu.sh has gone.
cleanup() {
	if [ -n "$qemu_pid" ]; then
		kill "$qemu_pid" 2>/dev/null
		wait "$qemu_pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

esp=$work/esp
files_dir=$esp/baremon
[ "$flat_esp" = 1 ] && files_dir=$esp/EFI/BOOT
mkdir -p "$esp/EFI/BOOT" "$files_dir"
cp "$loader" "$esp/EFI/BOOT/BOOTX64.EFI"
[ "$kernel" = none ] || cp "$kernel" "$files_dir/kernel.elf"

files=()
for a in ${adds[@]+"${adds[@]}"}; do files+=("$a"); done
kargs="qemu_exit=0xf4"
if [ -n "$run_cmd" ]; then
	printf '%s\n' "$run_cmd" > "$work/run.session"
	files+=("$work/run.session:/etc/session")
	kargs="$kargs session=/etc/session"
elif [ -n "$session" ]; then
	cat "$session" > "$work/session" # a pipe or <(...) works too
	files+=("$work/session:/etc/session")
	kargs="$kargs session=/etc/session"
fi
[ "$stay" = 1 ] && kargs="$kargs stay"
[ -n "$panic_mode" ] && kargs="$kargs panic=$panic_mode"
# The kernel's instruction clock (pmu/vpmu/icount.c) needs the shift.
[ -n "$icount" ] && [ "$accel" = tcg ] && kargs="$kargs icount=$icount"
[ -n "$export_serial" ] && kargs="$kargs export=ttyS1"
[ -n "$export_virtio" ] && [ -z "$export_serial" ] && kargs="$kargs export=virtio"
kargs="$kargs$cmdline"
if [ -n "$initrd_file" ]; then
	cp "$initrd_file" "$files_dir/initrd.cpio"
else
	sh "$top/tools/mkinitrd.sh" "$files_dir/initrd.cpio" ${files[@]+"${files[@]}"} ||
		die "could not build the initrd"
fi
if [ -n "$cmdline_file" ]; then
	cp "$cmdline_file" "$files_dir/cmdline.txt"
	kargs="(from $cmdline_file)"
else
	printf '%s\n' "$kargs" > "$files_dir/cmdline.txt"
fi

# --- QEMU --------------------------------------------------------------------
serial_log=$work/serial.log
case $serial in
stdio) chardev="stdio,id=con,signal=off,logfile=$serial_log" ;;
pty) chardev="pty,id=con,logfile=$serial_log" ;;
socket:*) chardev="socket,id=con,path=${serial#socket:},server=on,wait=off,logfile=$serial_log" ;;
esac

args=(-machine "$machine" -m "$mem" -smp "$smp" "${accel_args[@]}"
	-bios "$ovmf" -nodefaults -display none -no-reboot
	-chardev "$chardev" -serial chardev:con
	-device isa-debug-exit,iobase=0xf4,iosize=0x01
	-d cpu_reset -D "$work/qemu-reset.log")
# -no-reboot: a triple fault ends QEMU instead of resetting the machine;
# under TCG, -d cpu_reset logs "Triple fault" first (the verdict below
# names it; the kernel cannot report one).
[ "$vga" = 1 ] && args+=(-vga std)
[ -n "$monitor" ] && args+=(-monitor "unix:$monitor,server=on,wait=off")
[ -n "$pidfile" ] && args+=(-pidfile "$pidfile")
# --numa N: node i gets an equal share of memory (the last one the rest)
# and of the CPUs, as -numa node,memdev= wants (QEMU 5.1 and later).
if [ "$numa" -gt 0 ]; then
	case $mem in
	*[Gg]) mem_mb=$((${mem%[Gg]} * 1024)) ;;
	*[Mm]) mem_mb=${mem%[Mm]} ;;
	*[0-9]) mem_mb=$mem ;;
	*) die "--numa needs --mem in M or G" ;;
	esac
	ncpus=${smp%%,*}
	per_mb=$((mem_mb / numa)); per_cpus=$(((ncpus + numa - 1) / numa))
	for ((i = 0; i < numa; i++)); do
		size=$per_mb
		[ "$i" = $((numa - 1)) ] && size=$((mem_mb - per_mb * (numa - 1)))
		node="node,nodeid=$i,memdev=numa-mem$i"
		lo=$((i * per_cpus)); hi=$((lo + per_cpus - 1))
		[ "$hi" -ge "$ncpus" ] && hi=$((ncpus - 1))
		[ "$lo" -le "$hi" ] && node="$node,cpus=$lo-$hi"
		args+=(-object "memory-backend-ram,id=numa-mem$i,size=${size}M" -numa "$node")
	done
fi
if [ -n "$disk" ]; then
	# snapshot=on: the image file is never written.
	args+=(-drive "format=raw,file=$disk,if=ide,media=disk,snapshot=on")
	kargs="(from the image's GRUB menu)"
else
	args+=(-drive "format=raw,file=fat:rw:$esp,if=ide,media=disk")
fi
[ "$gdb" = 1 ] && args+=(-s -S)
[ ${#qemu_extra[@]} -gt 0 ] && args+=("${qemu_extra[@]}")
# Extra UARTs: a chardev each, logged beside the console's log.
extra_chardev() { # SPEC ID
	case $1 in
	pty) echo "pty,id=$2,logfile=$work/$2.log" ;;
	socket:*) echo "socket,id=$2,path=${1#socket:},server=on,wait=off,logfile=$work/$2.log" ;;
	esac
}
[ -n "$export_serial" ] &&
	args+=(-chardev "$(extra_chardev "$export_serial" exp)" -serial chardev:exp)
[ -n "$pci_serial" ] &&
	args+=(-chardev "$(extra_chardev "$pci_serial" pcis)" -device pci-serial,chardev=pcis)
# The legacy interface (an I/O BAR), which core/virtio_console.c drives;
# the console port is port 0 (virtconsole), the one a guest without
# multiport support gets.
[ -n "$export_virtio" ] &&
	args+=(-chardev "$(extra_chardev "$export_virtio" vexp)"
		-device virtio-serial-pci,disable-legacy=off,disable-modern=on,max_ports=1
		-device virtconsole,chardev=vexp)

echo "run-qemu: $accel_note, $smp CPU(s), $mem, cmdline: $kargs" >&2
[ "$gdb" = 1 ] && echo "run-qemu: waiting for gdb: gdb $kernel -ex 'target remote :1234'" >&2

tcg_warnings_out() { grep -v "TCG doesn't support requested feature"; }

interactive=0
if [ "$serial" = stdio ] && [ -t 0 ] && { [ -z "$session$run_cmd" ] || [ "$stay" = 1 ]; }; then
	interactive=1
fi

# --cpu-timeout: has the guest had cpu_timeout seconds of both wall time
# and QEMU CPU time (all its threads), or 8 times that of wall time? On an
# idle host the CPU time keeps up with the wall clock, so this is the
# plain timeout; on a busy one QEMU gets a share of a core and the guest
# gets the same amount of running before it is called hung.
clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
qemu_cpu=0
cpu_time_out() {
	local wall=$((SECONDS - start)) stat cpu
	[ "$wall" -ge "$cpu_timeout" ] || return 1
	stat=$(cat "/proc/$qemu_pid/stat" 2>/dev/null) || return 1
	stat=${stat##*") "} # the fields after the command name
	read -r -a f <<< "$stat"
	qemu_cpu=$(((f[11] + f[12]) / clk_tck)) # utime + stime
	[ "$qemu_cpu" -ge "$cpu_timeout" ] || [ "$wall" -ge $((cpu_timeout * 8)) ]
}

start=$SECONDS
reason=""
if [ "$interactive" = 1 ]; then
	# QEMU owns the terminal; no watcher (it would steal the tty).
	# QEMU's "TCG doesn't support requested feature" warnings kept off
	# the terminal (the CPU model's features TCG lacks are left out).
	if [ -n "$timeout" ]; then
		timeout --foreground "$timeout" "$qemu" "${args[@]}" 2> >(tcg_warnings_out >&2)
	else
		"$qemu" "${args[@]}" 2> >(tcg_warnings_out >&2)
	fi
	rc=$?
	[ -n "$timeout" ] && [ "$rc" = 124 ] && reason=timeout
else
	if [ "$quiet" = 1 ]; then
		"$qemu" "${args[@]}" </dev/null >/dev/null 2>"$work/qemu.err" &
	else
		"$qemu" "${args[@]}" </dev/null 2>"$work/qemu.err" &
	fi
	qemu_pid=$!
	# Watch the console: stop early on a loader failure or a timeout.
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if [ -n "$timeout" ] && [ $((SECONDS - start)) -ge "$timeout" ]; then
			reason=timeout
			kill "$qemu_pid" 2>/dev/null
			break
		fi
		if [ -n "$cpu_timeout" ] && cpu_time_out; then
			reason=cpu-timeout
			kill "$qemu_pid" 2>/dev/null
			break
		fi
		if grep -q 'baremon-loader: error' "$serial_log" 2>/dev/null; then
			sleep 0.3 # let the rest of the message arrive
			reason=loader
			kill "$qemu_pid" 2>/dev/null
			break
		fi
		sleep 0.2
	done
	wait "$qemu_pid"
	rc=$?
	qemu_pid=""
fi
elapsed=$((SECONDS - start))

[ -n "$log" ] && cp "$serial_log" "$log"

# --- verdict -------------------------------------------------------------------
say() { echo "run-qemu: $*" >&2; }
# The console text without CRs; grep -a on it: the host tool's frames
# on the console are not text, and a plain grep would say "binary file
# matches" instead of the line.
clean() { tr -d '\r' < "$serial_log" 2>/dev/null; }

if [ "$reason" = timeout ]; then
	say "timeout after ${timeout}s"
	exit 124
fi
if [ "$reason" = cpu-timeout ]; then
	say "timeout after ${cpu_timeout}s of QEMU CPU time (${elapsed}s wall, ${qemu_cpu}s CPU; --cpu-timeout)"
	exit 124
fi
if [ "$reason" = loader ]; then
	say "boot failure: $(clean | grep -a -m1 'baremon-loader: error' | sed 's/.*baremon-loader: error: //')"
	exit 126
fi
if clean | grep -q '^PANIC: '; then
	say "kernel panic: $(clean | grep -a -m1 '^PANIC: ' | sed 's/^PANIC: //')"
	exit 125
fi
if ! clean | grep -q '^baremon .* booting'; then
	# QEMU's warnings that TCG lacks a feature of a named CPU model
	# (x2apic, tsc-deadline, ...) are not why it failed.
	qemu_err=$(grep -v "TCG doesn't support requested feature" "$work/qemu.err" 2>/dev/null | head -n 3)
	if [ -n "$qemu_err" ]; then
		say "QEMU failed: $(echo "$qemu_err" | tr '\n' ' ')"
		exit 127
	fi
	say "boot failure: the kernel never started (QEMU exit code $rc after ${elapsed}s)"
	exit 126
fi
status_line=$(clean | grep -a '^baremon: exit status ' | tail -n 1)
if [ -n "$status_line" ]; then
	status=${status_line#baremon: exit status }
	say "guest exit status $status (${elapsed}s)"
	exit "$status"
fi
# The kernel prints its status line before it writes isa-debug-exit's
# port, so without one an exit code of 128+N (N a signal up to 15) is
# QEMU killed (kill -9 of the warm target's QEMU, say), not a status.
if [ "$rc" -gt 128 ] && [ "$rc" -le 143 ]; then
	say "QEMU was killed by signal $((rc - 128)) after ${elapsed}s"
	exit 126
fi
if [ $((rc & 1)) = 1 ]; then
	status=$((rc >> 1))
	say "guest exit status $status (from isa-debug-exit, ${elapsed}s)"
	exit "$status"
fi
if grep -q '^Triple fault' "$work/qemu-reset.log" 2>/dev/null; then
	say "kernel crash: triple fault (the CPU shut down; the console's last line: $(clean | grep -av '^$' | tail -n 1))"
	exit 125
fi
say "guest stopped without an exit status (QEMU exit code $rc)"
exit 126
