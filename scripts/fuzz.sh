#!/usr/bin/env bash
# Fuzzes every reader entry point with cargo-fuzz (libFuzzer), one target at a time.
#
#   scripts/fuzz.sh [SECONDS]        every target for SECONDS each (default 60)
#   scripts/fuzz.sh --smoke          every target for 15 s (a quick check; not part of npm test)
#   scripts/fuzz.sh SECONDS TARGET…  only the named targets
#   scripts/fuzz.sh --ledger 600     a run worth recording: its rows go to the committed ledger
#   npm run fuzz -- --ledger 600     the same through npm
#
# Environment: FUZZ_NO_BUILD=1 (run the binaries already built), FUZZ_SANITIZER (default "none"; "address" for ASan, ~2-3x slower),
#              FUZZ_RSS_MB (default 512: the player's memory budget), FUZZ_MAX_LEN (default 16384),
#              FUZZ_JOB (a name for a second run of the same target at the same time, e.g. one per
#              core: its own log file; both share the corpus, as libFuzzer allows).
# flrep_roundtrip runs without trace-compares instrumentation in runs of 60 s or more (see NTC_TARGETS).
# Installs the nightly toolchain and cargo-fuzz when missing. Logs: crate/fuzz/logs/<target>.log.
# Ledger: a run appends one row per target. With --ledger (first argument) the rows go to
# crate/fuzz/runs.tsv (committed: the executions that count, summed across runs and sessions);
# without it to crate/fuzz/logs/runs.tsv (ignored, like the logs), so `npm test`'s 5-second smoke
# pass and any run nobody asked to record leave the tracked tree as it was. The summary prints the
# executions per target summed over the committed ledger and, without --ledger, this run's rows.
# Corpus: crate/fuzz/corpus/<target>/ (grows between runs, not committed), seeded from
# crate/fuzz/seeds/<target>/ and, for the open/play targets, tests/fixtures/hostile/.
# A crash is written to crate/fuzz/artifacts/<target>/; fix the reader, then commit the input under
# crate/fuzz/regressions/<target>/ so `cargo test` replays it (crate/tests/fuzz_regressions.rs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ="$ROOT/crate/fuzz"
SECONDS_EACH=60
RECORD=0
if [[ "${1:-}" == "--ledger" ]]; then
  RECORD=1
  shift
fi
if [[ "${1:-}" == "--smoke" ]]; then
  SECONDS_EACH=15
  shift
elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  SECONDS_EACH="$1"
  shift
fi
SANITIZER="${FUZZ_SANITIZER:-none}"
RSS_MB="${FUZZ_RSS_MB:-512}"
# Inputs up to 16 KiB: enough for several chunks; larger seeds (the decompression-bomb and
# state-amplification files) are truncated on load, or each execution would take ~0.3 s.
MAX_LEN="${FUZZ_MAX_LEN:-16384}"

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "== installing the nightly toolchain (libFuzzer needs -Z flags)"
  rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

cd "$ROOT/crate"
if [[ $# -gt 0 ]]; then
  TARGETS=("$@")
else
  mapfile -t TARGETS < <(cargo +nightly fuzz list)
fi

# Build once, then run the binaries directly (`cargo fuzz run` would rebuild before every target).
TRIPLE="$(rustc +nightly -vV | sed -n 's/^host: //p')"
BIN_DIR="$FUZZ/target/$TRIPLE/release"
# Targets whose input bytes are generator choices (the harness turns each byte into a `% n` pick of
# ticks, entities and events, never compares it with a magic value) gain little from libFuzzer's
# trace-compares feedback and pay for it in every comparison of the code under test: flrep_roundtrip
# ran 1,005 exec/s without it vs 311 with it, side by side on one corpus (2026-11-30). These are built
# a second time, without that instrumentation, into crate/fuzz/target/ntc.
# A short pass (under 60 s a target, e.g. npm test's smoke pass) only checks that each target runs
# and skips that second build.
NTC_TARGETS=" flrep_roundtrip "
[[ "$SECONDS_EACH" -ge 60 ]] || NTC_TARGETS=""
NTC_DIR="$FUZZ/target/ntc"
bin_of() {
  if [[ "$NTC_TARGETS" == *" $1 "* ]]; then echo "$NTC_DIR/$TRIPLE/release/$1"; else echo "$BIN_DIR/$1"; fi
}
if [[ "${FUZZ_NO_BUILD:-0}" != 1 ]]; then
  echo "== building ${#TARGETS[@]} targets (sanitizer: $SANITIZER)"
  cargo +nightly fuzz build -s "$SANITIZER" >"$FUZZ/build.log" 2>&1 || {
    tail -30 "$FUZZ/build.log"
    echo "fuzz build failed (log: crate/fuzz/build.log)" >&2
    exit 1
  }
  for t in "${TARGETS[@]}"; do
    [[ "$NTC_TARGETS" == *" $t "* ]] || continue
    cargo +nightly fuzz build -s "$SANITIZER" --no-trace-compares --target-dir "$NTC_DIR" "$t" >>"$FUZZ/build.log" 2>&1 || {
      tail -30 "$FUZZ/build.log"
      echo "fuzz build of $t (no trace-compares) failed (log: crate/fuzz/build.log)" >&2
      exit 1
    }
  done
fi

mkdir -p "$FUZZ/logs"
COMMITTED="$FUZZ/runs.tsv"
if [[ $RECORD == 1 ]]; then LEDGER="$COMMITTED"; else LEDGER="$FUZZ/logs/runs.tsv"; fi
[[ -f "$LEDGER" ]] || printf 'date\ttarget\tseconds\texecutions\texec_per_s\tcoverage\tsanitizer\tcommit\tresult\n' >"$LEDGER"
declare -a SUMMARY=()
status=0
for t in "${TARGETS[@]}"; do
  corpus="$FUZZ/corpus/$t"
  mkdir -p "$corpus" "$FUZZ/artifacts/$t"
  extra=()
  [[ -d "$FUZZ/seeds/$t" ]] && extra+=("$FUZZ/seeds/$t")
  case "$t" in
    flrep_open | flrep_play) extra+=("$ROOT/tests/fixtures/hostile") ;;
    spark_open) extra+=("$ROOT/tests/fixtures/spark" "$ROOT/tests/fixtures/hostile/spark") ;;
    foldback_frames) extra+=("$ROOT/tests/fixtures/foldback") ;;
  esac
  for d in "${extra[@]}"; do [[ -d "$d" ]] || { echo "missing seed dir $d" >&2; exit 1; }; done
  log="$FUZZ/logs/$t${FUZZ_JOB:+.$FUZZ_JOB}.log"
  echo "== $t: ${SECONDS_EACH}s, -rss_limit_mb=$RSS_MB (log: ${log#"$ROOT"/})"
  set +e
  "$(bin_of "$t")" "$corpus" "${extra[@]}" \
    -max_total_time="$SECONDS_EACH" -rss_limit_mb="$RSS_MB" -timeout=10 -max_len="$MAX_LEN" \
    -print_final_stats=1 -artifact_prefix="$FUZZ/artifacts/$t/" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s+=$2} END {print s+0}' || true)
  rate=$(grep -a -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}' | tail -1 || true)
  cov=$(grep -a -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
  result="ok"
  if [[ $rc -ne 0 ]]; then
    result="FAILED (rc $rc): $(grep -m1 -E 'ERROR: libFuzzer|panicked at|out-of-memory|timeout' "$log" || echo 'see log')"
    status=1
  fi
  # One row per run, so executions add up across runs and sessions (the committed ledger with --ledger).
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$t" "$SECONDS_EACH" "$execs" "${rate:-0}" "${cov:-?}" "$SANITIZER$([[ "$NTC_TARGETS" == *" $t "* ]] && echo ',no-trace-compares')" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" "$result" >>"$LEDGER"
  line=$(printf '%-16s %12s execs %9s exec/s  cov %-6s %s' "$t" "$execs" "${rate:-0}" "${cov:-?}" "$result")
  echo "   $line"
  SUMMARY+=("$line")
done

echo "== summary (${SECONDS_EACH}s per target, -rss_limit_mb=$RSS_MB, sanitizer $SANITIZER)"
printf '   %s\n' "${SUMMARY[@]}"
echo "== executions per target over every run in crate/fuzz/runs.tsv (goal: 10,000,000 each)"
[[ -f "$COMMITTED" ]] && awk -F'\t' 'FNR > 1 { n[$2] += $4 } END { for (t in n) printf "   %-16s %12d\n", t, n[t] }' "$COMMITTED" | sort
if [[ $RECORD == 0 ]]; then
  echo "   (this run's rows are in ${LEDGER#"$ROOT"/}, not in the committed ledger: rerun with --ledger to record a run)"
fi
exit $status
