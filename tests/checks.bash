# SPDX-License-Identifier: MIT
#
# Sourced by tests/run-checks (make check) and tests/kernel/run-debug-checks
# (make check-debug): one check = one command, with its result counted, and
# a second lane of checks that runs beside the first.
#
# A VM under TCG (-accel tcg,thread=single) keeps one host core busy, so on
# this 2-core machine kind the other core idles while a suite runs. The
# checks of `bg_lane FUNC` run in the background, one after another, while
# the foreground lane goes on; their output is kept and printed, a block per
# check, after the foreground lane ends (bg_wait). HL_CHECK_LANES=1 runs
# both lanes one after the other, in the foreground (for a loaded machine or
# to read a log in order).
#
#   checks_init
#   run_check NAME CMD [ARGS...]    run now, output live (buffered in a lane)
#   bg_lane FUNC                    start FUNC's run_checks beside this lane
#   bg_wait                         wait for it, print its blocks, count them
#   checks_summary WHAT             "WHAT: N passed, M failed", the status

checks_init() {
	passed=0 failed=0
	failed_names=() failed_logs=()
	checks_tmp=$(mktemp -d "${TMPDIR:-/tmp}/hl-checks.XXXXXX")
	# The background lane dies with us (a ^C or a failed set-up)
	trap 'checks_cleanup' EXIT
	trap 'exit 130' INT TERM
	bg_pid=
	in_lane=0
}

checks_cleanup() {
	if [[ -n ${bg_pid:-} ]]; then
		kill -- "-$bg_pid" 2>/dev/null || kill "$bg_pid" 2>/dev/null
	fi
	rm -rf "${checks_tmp:?}"
}

# The result line of a check: "##### ok: NAME (S s)" or "##### FAILED: ..."
check_result_line() {
	local rc=$1 name=$2 secs=$3
	if ((rc == 0)); then
		echo "##### ok: $name ($secs s)"
	else
		echo "##### FAILED: $name (exit $rc, $secs s)"
	fi
}

run_check() {
	local name=$1 rc=0 start=$SECONDS
	shift
	if ((in_lane)); then
		# Numbered by the lane itself: the first lane removes the logs
		# of its checks that pass, so a count of files repeats
		local log
		lane_seq=$((${lane_seq:-0} + 1))
		log=$checks_tmp/lane-$(printf '%03d' "$lane_seq").log
		{
			echo
			echo "##### check: $name (in the second lane)"
		} >"$log"
		"$@" >>"$log" 2>&1 </dev/null || rc=$?
		check_result_line "$rc" "$name" $((SECONDS - start)) >>"$log"
		printf '%s\t%s\t%s\n' "$rc" "$name" "$log" >>"$checks_tmp/results"
		return 0
	fi
	echo
	echo "##### check: $name"
	# Output live, and kept: a failed check's last lines are printed
	# again at the end (a CI log may keep only the head and the tail)
	local log
	log=$checks_tmp/fg-$(printf '%03d' $((passed + failed))).log
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	check_result_line "$rc" "$name" $((SECONDS - start))
	if ((rc == 0)); then
		passed=$((passed + 1))
		rm -f "$log"
	else
		failed=$((failed + 1))
		failed_names+=("$name")
		failed_logs+=("$log")
	fi
}

bg_lane() {
	local func=$1
	if [[ ${HL_CHECK_LANES:-2} == 1 ]]; then
		bg_serial=$func
		return
	fi
	echo
	echo "##### second lane started: $func (its output follows the first lane's)"
	# A process group of its own, so that cleanup stops its VMs too
	set -m
	(
		in_lane=1
		trap - EXIT INT TERM
		"$func"
	) &
	bg_pid=$!
	set +m
}

bg_wait() {
	if [[ -n ${bg_serial:-} ]]; then
		local func=$bg_serial
		bg_serial=
		"$func"
		return
	fi
	[[ -n ${bg_pid:-} ]] || return 0
	local start=$SECONDS
	echo
	echo "##### waiting for the second lane"
	local lane_rc=0
	wait "$bg_pid" || lane_rc=$?
	bg_pid=
	if ((lane_rc)); then
		failed=$((failed + 1))
		failed_names+=("the second lane itself (exit $lane_rc)")
		failed_logs+=("")
	fi
	echo "##### the second lane ended $((SECONDS - start)) s after the first"
	local log rc name
	for log in "$checks_tmp"/lane-*.log; do
		[[ -e $log ]] && cat "$log"
	done
	[[ -f $checks_tmp/results ]] || return 0
	while IFS=$'\t' read -r rc name log; do
		if ((rc == 0)); then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			failed_names+=("$name")
			failed_logs+=("$log")
		fi
	done <"$checks_tmp/results"
}

# The lines of a log that say what failed: cmocka's failed tests and
# assertions (and fail_msg()'s message, in their order), a suite without a summary, the kernel log's reports, hlvm's
# verdicts
checks_cmocka_re='^\[ +(FAILED|ERROR|LINE) +\]|^ERROR: '
checks_failure_re="$checks_cmocka_re"'|exited with|no cmocka summary|BUG:|WARNING:|Oops|DMAR|KASAN|kmemleak|circular locking|contract violations [1-9]|^hlvm: '

checks_summary() {
	local what=$1
	local i n=0 cap
	echo
	for i in "${!failed_logs[@]}"; do
		[[ -n ${failed_logs[$i]} ]] || continue
		n=$((n + 1))
		echo "##### the last lines of the failed check: ${failed_names[$i]}"
		tail -n 12 "${failed_logs[$i]}" 2>/dev/null
		echo
	done
	# What each failed check reported failing, wherever in its log (a
	# long check's tail is the fuzzer's, or a later suite's), comes last:
	# CI keeps only the last 20-odd lines of a long output, so these
	# lines, the names and the counts must fit there together
	((n)) && cap=$((14 / n)) && ((cap < 3)) && cap=3
	for i in "${!failed_logs[@]}"; do
		[[ -n ${failed_logs[$i]} ]] || continue
		echo "##### what failed in: ${failed_names[$i]}"
		{
			grep -E "$checks_cmocka_re" "${failed_logs[$i]}" |
				grep -v ' test(s), listed below' | awk '!seen[$0]++'
			grep -E "$checks_failure_re" "${failed_logs[$i]}" |
				grep -vE "$checks_cmocka_re|^#####" |
				cut -c1-160 | sort | uniq -c | sort -rn
		} 2>/dev/null | head -n "$cap"
	done
	if ((failed)); then
		printf 'failed: %s\n' "${failed_names[@]}"
	fi
	echo "$what: $passed passed, $failed failed${2:+, $2}"
	((failed == 0))
}
