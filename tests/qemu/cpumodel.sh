#!/usr/bin/env bash
# cpumodel.sh: the CPU each vpmu mode shows under TCG (run-qemu.sh's
# tcg_cpu_model, docs/pmu.md "The CPU QEMU shows") is the one the mode
# models, and the tools that key on CPUID pick its tables: /proc/cpuinfo
# gives its vendor, family and model; libpfm4 (Debian's, through
# tests/cpumodel/pfmcount) finds its PMU, resolves an instruction event
# by its name there and counts a known loop of 2N instructions exactly
# (--icount); Debian's perf lists that CPU's pmu-events and counts a
# known loop with one of them. One boot per mode (CPUMODEL_MODES: only
# these, e.g. "intel amd"). Skipped without
# build/cpumodel/pfmcount (libpfm4-dev) or /usr/bin/perf (linux-perf).
. "$(dirname "$0")/lib.sh"

pfmcount=$build/cpumodel/pfmcount
if [ ! -x "$pfmcount" ] || [ ! -x /usr/bin/perf ]; then
	ok "skip: no $pfmcount (make cpumodel-tests, libpfm4-dev) or /usr/bin/perf (linux-perf)"
	finish
fi
n=1000000   # pfmcount: 2n user instructions in its loop
tf=50000    # twofunc: 4 tf iterations of a five-instruction loop
adds=(--add-dyn "$pfmcount:/bin/pfmcount" --add-dyn /usr/bin/perf:/usr/bin/perf
	--add "$build/musl/twofunc:/bin/twofunc")

# mode family model "libpfm4 PMU" "libpfm4 event" "perf event" (- none)
modes="
intel 6 94 skl INSTRUCTION_RETIRED inst_retired.any_p
intel-v2 6 23 core INSTRUCTION_RETIRED -
intel-v5 6 143 spr INSTRUCTION_RETIRED inst_retired.any_p
hybrid 6 151 - - inst_retired.any_p
amd 25 17 amd64_fam19h_zen4 RETIRED_INSTRUCTIONS ex_ret_instr
"
# has_text TEXT REGEX / lacks_text TEXT REGEX: a line of TEXT matches
# the extended REGEX / none does.
has_text() { grep -Eq -- "$2" <<< "$1"; }
lacks_text() { ! has_text "$@"; }
# within V LO HI: V is a number in [LO, HI].
within() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
# One section of the log: the lines between "== NAME" and the next "==".
section() { sed -n "/^== $1\$/,/^== /p" "$log" | grep -Ev '^(== |baremon> )'; }
guest_timeout=$((${GUEST_TIMEOUT:-90} * 3))
while read -r mode family model pfmpmu pfmev perfev; do
	[ -n "$mode" ] || continue
	case " ${CPUMODEL_MODES:-$mode} " in *" $mode "*) ;; *) continue ;; esac
	session=$logs/$mode.session
	{
		echo 'echo "== cpuinfo"'
		echo 'cat /proc/cpuinfo'
		echo 'echo "== pfm"'
		[ "$pfmev" = - ] && echo "/bin/pfmcount INSTRUCTION_RETIRED:u $n" ||
			echo "/bin/pfmcount $pfmev:u $n"
		echo 'echo "== list"'
		echo "/usr/bin/perf list inst_retired.any_p ex_ret_instr"
		echo 'echo "== stat"'
		[ "$perfev" = - ] ||
			echo "/usr/bin/perf stat -x, -e $perfev:u -- /bin/twofunc $tf"
		echo 'echo "== end"'
	} > "$session"
	guest "cpumodel-$mode" --smp 2 --icount 4 --mem 1G --cmdline "vpmu=$mode" \
		--session "$session" "${adds[@]}"
	expect_rc 0
	expect_line '^== end$' "vpmu=$mode: the session ran to its end"
	expect_line "^\[ *[0-9.]+\] pmu: vpmu: mode $mode " "vpmu=$mode: the model runs in that mode"
	fam=$(section cpuinfo | awk -F': ' '/^cpu family/ { print $2; exit }')
	mod=$(section cpuinfo | awk -F': ' '/^model\t/ { print $2; exit }')
	cpu_name=$(section cpuinfo | awk -F': ' '/^model name/ { print $2; exit }')
	check "vpmu=$mode: /proc/cpuinfo says family $fam model $mod ($cpu_name), want $family/$model" \
		[ "$fam/$mod" = "$family/$model" ]
	pfm=$(section pfm)
	if [ "$pfmpmu" = - ]; then
		# libpfm4 4.13 knows no Alder Lake: no core PMU, the name unknown
		check "vpmu=$mode: libpfm4 finds no core PMU (it has none for this CPU)" \
			lacks_text "$pfm" "^pmu: "
	else
		check "vpmu=$mode: libpfm4 picks $pfmpmu ($(echo "$pfm" | sed -n 's/^pmu: //p' | head -1))" \
			has_text "$pfm" "^pmu: $pfmpmu "
		check "vpmu=$mode: libpfm4 resolves $pfmev:u on it" \
			has_text "$pfm" "^event: $pfmev:u -> $pfmpmu::$pfmev:"
		c=$(echo "$pfm" | sed -n 's/^count: \([0-9]*\) .*/\1/p')
		lo=$((2 * n)) hi=$((2 * n + 100))
		check "vpmu=$mode: $pfmev:u counts the loop's $lo instructions: ${c:-none} in [$lo, $hi]" \
			within "$c" $lo $hi
	fi
	list=$(section list)
	stat=$(section stat)
	if [ "$perfev" = - ]; then
		check "vpmu=$mode: perf 6.1 has no table for this CPU (lists neither model event)" \
			lacks_text "$list" "^ +(inst_retired.any_p|ex_ret_instr) *\$"
	else
		check "vpmu=$mode: perf list shows the CPU's pmu-events ($perfev)" \
			has_text "$list" "^ +$perfev *\$"
		# -x,: value,unit,event,...; a hybrid CPU has a row per PMU
		v=$(echo "$stat" | awk -F, -v e="$perfev:u" '$3 ~ e { s += $1; n++ } END { if (n) print s }')
		lo=$((20 * tf)) hi=$((20 * tf + 20000))
		check "vpmu=$mode: perf stat -e $perfev:u counts twofunc's $lo instructions: ${v:-none} in [$lo, $hi]" \
			within "$v" $lo $hi
	fi
	expect_no_line '^PANIC' "vpmu=$mode: no panic"
done <<< "$modes"
finish
