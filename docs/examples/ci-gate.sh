#!/bin/sh
# ci-gate.sh: run a sharebench scenario and gate it against a stored baseline.
#
#   ci-gate.sh SCENARIO BASELINE [sharebench run flags...]
#
# SCENARIO  a scenario file or a built-in name
# BASELINE  the baseline campaign folder; when it does not exist yet, this
#           run's campaign is stored there and the gate passes (first run)
#
# Environment:
#   SHAREBENCH   the sharebench binary [sharebench]
#   RESULTS      where campaign folders are written [ci-results]
#   THRESHOLDS   a thresholds file for compare (one MEASURE:N% a line) [none]
#   COMPARE_ARGS more compare flags, e.g. "--threshold throughput:5%" [none]
#   CANDIDATE    an existing campaign folder to gate instead of running the
#                scenario (re-gating a kept artifact) [none]
#   GITHUB_STEP_SUMMARY  when set (GitHub Actions), summary.md and the
#                comparison are appended to it
#
# Writes $RESULTS/compare.md. Exit status: 0 pass; 1 regression or failed
# correctness gate (lost record, unbalanced audit, expectation NOT MET,
# denied validity flag, missing run); 2 bad input (incomplete campaign,
# nothing to compare, bad threshold); 3 the run's own verdict failed; 130
# interrupted. See docs/how-to/gate-ci.md.
set -u
[ $# -ge 2 ] || { echo "usage: $0 SCENARIO BASELINE [sharebench run flags...]" >&2; exit 2; }
scenario=$1
baseline=$2
shift 2
SHAREBENCH=${SHAREBENCH:-sharebench}
RESULTS=${RESULTS:-ci-results}
mkdir -p "$RESULTS" || exit 2

run_status=0
if [ -n "${CANDIDATE:-}" ]; then
	candidate=$CANDIDATE
else
	marker="$RESULTS/.ci-gate-start"
	: >"$marker"
	# Exit 3: a run lost a record, its audit did not balance or an
	# expectation is NOT MET. Keep going to compare and post the reports.
	"$SHAREBENCH" run --scenario "$scenario" --results "$RESULTS" "$@"
	run_status=$?
	case $run_status in 0 | 3) ;; *) exit "$run_status" ;; esac
	# The campaign folder this run wrote: the newest one after the marker.
	candidate=$(find "$RESULTS" -mindepth 1 -maxdepth 1 -type d -newer "$marker" | sort | tail -n 1)
	rm -f "$marker"
	[ -n "$candidate" ] || { echo "ci-gate: no campaign folder in $RESULTS" >&2; exit 1; }
fi
echo "ci-gate: candidate $candidate"

post() { # post FILE: into the job summary, else to stdout
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$1" >>"$GITHUB_STEP_SUMMARY"; else cat "$1"; fi
}
[ -f "$candidate/summary.md" ] && post "$candidate/summary.md"

if [ ! -d "$baseline" ]; then
	echo "ci-gate: no baseline at $baseline: storing this campaign as the baseline"
	mkdir -p "$(dirname "$baseline")" && cp -R "$candidate" "$baseline" || exit 1
	exit "$run_status"
fi

set -- compare "$baseline" "$candidate"
[ -n "${THRESHOLDS:-}" ] && set -- "$@" --thresholds "$THRESHOLDS"
# shellcheck disable=SC2086 # COMPARE_ARGS is a list of flags
"$SHAREBENCH" "$@" ${COMPARE_ARGS:-} >"$RESULTS/compare.md"
compare_status=$?
post "$RESULTS/compare.md"
if [ "$compare_status" -ne 0 ]; then
	echo "ci-gate: compare failed with exit status $compare_status" >&2
	exit "$compare_status"
fi
exit "$run_status"
