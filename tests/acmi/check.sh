#!/usr/bin/env bash
# ACMI read-back check: every export of `replay export --acmi` (text and zip, whole recordings and
# ranges, Earth / a small moon / flat / SparkEngine / hostile strings) is read by PyPI pyacmi, an
# independent ACMI reader, and compared with `replay dump` of the same ticks (check_acmi.py).
#
# Usage: tests/acmi/check.sh                 (builds target/release/replay if missing)
#        REPLAY=/path/to/replay tests/acmi/check.sh
#        tests/acmi/check.sh --venv-only        (only installs pyacmi)
# Installs pyacmi into .cache/acmi-venv when it is missing. Exits non-zero on any difference.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT/tests/acmi"
REPLAY="${REPLAY:-$ROOT/target/release/replay}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
VENV="$ROOT/.cache/acmi-venv"
PY="$VENV/bin/python"

if ! "$PY" -c 'import pyacmi.acmi' 2>/dev/null; then
    python3 -m venv "$VENV"
    # pyacmi 1.2.4 imports `constantly` without declaring it.
    "$VENV/bin/pip" install --quiet pyacmi==1.2.4 constantly
fi
# --venv-only: just the reader (the browser export test reads its exports back with it too).
if [ "${1:-}" = --venv-only ]; then exit 0; fi
if [ ! -x "$REPLAY" ]; then
    (cd "$ROOT" && cargo build --release -p replay-player --bin replay)
fi
HOSTILE_BIN="$TARGET/debug/examples/make_acmi_hostile"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

fail=0
n=0
check() { # name, recording, output file name, then export options
    local name="$1" rec="$2" out="$WORK/$3"; shift 3
    n=$((n + 1))
    if ! "$REPLAY" export "$rec" --acmi "$out" "$@" 2> "$WORK/export.err"; then
        echo "FAIL $name: replay export failed"; cat "$WORK/export.err"; fail=1; return
    fi
    # "wrote OUT (N bytes; ticks A..=B: …)"
    local range from to
    range="$(sed -n 's/.*ticks \([0-9]*\)\.\.=\([0-9]*\).*/\1 \2/p' "$WORK/export.err")"
    read -r from to <<< "$range"
    "$REPLAY" dump "$rec" > "$WORK/dump.jsonl"
    "$PY" "$HERE/check_acmi.py" "$out" "$WORK/dump.jsonl" "$from" "$to" "$name" || fail=1
}

G="$ROOT/tests/fixtures/golden"
S="$ROOT/tests/fixtures/spark"
check earth "$G/dogfight-earth.flrep" earth.txt.acmi
check earth-zip "$G/dogfight-earth.flrep" earth.zip.acmi
check moon "$G/dogfight-moon.flrep" moon.txt.acmi
check flat "$G/dogfight-flat.flrep" flat.zip.acmi
check events "$G/events.flrep" events.txt.acmi
check spark "$S/deathmatch-3p.replay" spark.zip.acmi
check spark-handmade "$S/handmade.replay" handmade.txt.acmi
"$REPLAY" generate --out "$WORK/long.flrep" --seed 9 --entities 16 --seconds 90 --planet-radius 6371000 2>/dev/null
check range-seconds "$WORK/long.flrep" range.zip.acmi --from 40 --to 1:21.5
check range-ticks "$WORK/long.flrep" range-ticks.txt.acmi --from tick:3000 --to tick:4100
if [ -x "$HOSTILE_BIN" ]; then
    "$HOSTILE_BIN" "$WORK/hostile.flrep" 2>/dev/null
else
    (cd "$ROOT" && cargo run --quiet --example make_acmi_hostile -- "$WORK/hostile.flrep" 2>/dev/null)
fi
check hostile "$WORK/hostile.flrep" hostile.txt.acmi
check hostile-zip "$WORK/hostile.flrep" hostile.zip.acmi --from 1 --to 3.5

if [ "$fail" -ne 0 ]; then
    echo "acmi: FAILED" >&2
    exit 1
fi
echo "acmi: all $n exports read back by pyacmi agree with replay dump"
