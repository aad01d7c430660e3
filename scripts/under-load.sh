#!/usr/bin/env bash
# Runs the test suite with every core kept busy beside it, as on a shared CI
# machine: no production timeout or deadline may decide a test that is not
# about it, and a test that waits for an event waits minutes, not seconds
# (internal/testkit). With no arguments it runs what `make test` runs (race
# detector, shuffled, 20m timeout) over ./...; arguments are the packages.
#
#   scripts/under-load.sh                        # the whole suite
#   scripts/under-load.sh ./runtime ./served     # some packages
#   LOAD_CPUS=4 scripts/under-load.sh ./server   # more stressors
#   scripts/under-load.sh check                  # make check (fmt, vet, lint, test, fuzz smoke, tidy)
#
# stress-ng (Debian's package) is installed with apt-get when missing.
# Prints the load average before and after, each package's time with the
# share of the slowest (the sum of go test's "ok" lines), and PASS or FAIL;
# exits with go test's (or make's) status.
set -uo pipefail
cd "$(dirname "$0")/.."

cpus=${LOAD_CPUS:-$(nproc)}
if ! command -v stress-ng >/dev/null; then
	sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	echo "under-load: installing stress-ng" >&2
	$sudo apt-get install -y stress-ng >&2 || { echo "under-load: install stress-ng (apt-get install stress-ng)" >&2; exit 2; }
fi

pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)

# The stressors: one busy loop per core, for longer than any run; stopped
# (by their own process id) when the tests end, however they end.
log=$(mktemp)
stress-ng --cpu "$cpus" --timeout 2h --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null; wait "$stress" 2>/dev/null; rm -f "$log"' EXIT
start=$(date +%s)
if [ "${pkgs[0]}" = check ]; then
	echo "under-load: $cpus stressors beside make check; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	make check 2>&1 | tee "$log"
else
	echo "under-load: $cpus stressors beside go test ${pkgs[*]}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	go test -race -shuffle=on -count=1 -timeout 20m "${pkgs[@]}" 2>&1 | tee "$log"
fi
status=${PIPESTATUS[0]}
# Package times: "ok  <pkg>  12.3s" lines, summed; the largest one's share.
awk '$1 == "ok" && $3 ~ /s$/ { t = $3 + 0; sum += t; if (t > top) { top = t; name = $2 } }
	END { if (sum > 0) printf "under-load: packages took %.0fs in all; the slowest, %s, %.0fs (%.0f%%)\n", sum, name, top, 100 * top / sum }' "$log"
echo "under-load: load average $(cut -d' ' -f1-3 /proc/loadavg) after $(($(date +%s) - start))s"
if [ "$status" -eq 0 ]; then
	echo "under-load: PASS"
else
	echo "under-load: FAIL (exit $status)"
fi
exit "$status"
