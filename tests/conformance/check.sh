#!/usr/bin/env bash
# Conformance check: an independent Python reader (written from docs/format/flrep.md only) must dump
# every recording exactly as `replay dump` does (compared as parsed JSON objects, line by line).
#
# Usage: tests/conformance/check.sh            (builds target/release/replay if missing)
#        REPLAY=/path/to/replay tests/conformance/check.sh
# Needs: python3 with the PyPI `zstandard` package. Exits non-zero on any difference.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT/tests/conformance"
REPLAY="${REPLAY:-$ROOT/target/release/replay}"
PY="${PYTHON:-python3}"

if ! "$PY" -c 'import zstandard' 2>/dev/null; then
    echo "check.sh: python3 needs the zstandard package (pip install zstandard)" >&2
    exit 2
fi
if [ ! -x "$REPLAY" ]; then
    (cd "$ROOT" && cargo build --release -p replay-player --bin replay)
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

gen() { # name, then generate options
    local name="$1"; shift
    "$REPLAY" generate --out "$WORK/$name.flrep" "$@" 2>/dev/null
}

# 1. Flat world, short cadence (many chunks), 6 aircraft.
gen flat --seed 11 --entities 6 --seconds 40 --keyframe-interval 15 --planet-radius 0
# 2. Earth, default cadence, 8 aircraft (kills, respawns, kill markers in the trailer).
gen earth --seed 2 --entities 8 --seconds 60 --keyframe-interval 120 --planet-radius 6371000
# 3. A 600 km moon, long cadence, 30 Hz.
gen moon --seed 3 --entities 4 --seconds 45 --keyframe-interval 600 --planet-radius 600000 --tick-rate 30

# 4. Interrupted recordings: trailer gone and the last chunk cut (forward scan, truncated chunk
#    dropped), and trailer gone exactly at a chunk boundary.
head -c -1000 "$WORK/moon.flrep" > "$WORK/moon-cut.flrep"
TRAILER_LEN="$("$PY" -c 'import struct,sys,os; d=open(sys.argv[1],"rb").read(); print(len(d)-struct.unpack("<Q",d[-8:])[0])' "$WORK/earth.flrep")"
head -c -"$TRAILER_LEN" "$WORK/earth.flrep" > "$WORK/earth-notrailer.flrep"
head -c -20 "$WORK/flat.flrep" > "$WORK/flat-trailer-cut.flrep"

# 5. A corrupt trailer (one flipped byte in its firstTick field: CRC mismatch → scan).
"$PY" - "$WORK/earth.flrep" "$WORK/earth-badcrc.flrep" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
t = struct.unpack("<Q", d[-8:])[0]
d[t + 8] ^= 0x01
open(sys.argv[2], "wb").write(d)
EOF

# 6. Rotation at 1 MiB keeping 1 file: the recording is split at a chunk boundary, the first file is
#    pruned, and the surviving rot.001.flrep (starting mid-recording) must play on its own.
"$REPLAY" generate --out "$WORK/rot/rot.flrep" --seed 5 --entities 40 --seconds 75 --keyframe-interval 60 \
    --planet-radius 6371000 --max-file-mb 1 --max-files 1 2>/dev/null
if [ -e "$WORK/rot/rot.flrep" ] || [ ! -e "$WORK/rot/rot.001.flrep" ]; then
    echo "FAIL rotation: expected only rot.001.flrep to remain" >&2
    ls -l "$WORK/rot" >&2
    exit 1
fi

# 7. Hand-crafted files (craft.py, also written from the document): newer-minor additions, metadata,
#    custom events, animation, teleports, tick gaps, … (ok-*) and files both readers must refuse (bad-*).
"$PY" "$HERE/craft.py" "$WORK/craft"

compare() { # file
    local f="$1" name
    name="$(basename "$f")"
    local rs_rc=0 py_rc=0
    "$REPLAY" dump "$f" > "$WORK/rs.jsonl" 2> "$WORK/rs.err" || rs_rc=$?
    "$PY" "$HERE/flrep_reader.py" "$f" > "$WORK/py.jsonl" 2> "$WORK/py.err" || py_rc=$?
    if [ "$rs_rc" -ne 0 ] || [ "$py_rc" -ne 0 ]; then
        echo "FAIL $name: exit status replay=$rs_rc python=$py_rc"
        cat "$WORK/rs.err" "$WORK/py.err" >&2
        return 1
    fi
    "$PY" - "$WORK/rs.jsonl" "$WORK/py.jsonl" "$name" <<'EOF'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
name = sys.argv[3]
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        print(f"FAIL {name}: line {i + 1} differs\n  replay: {json.dumps(x)[:2000]}\n  python: {json.dumps(y)[:2000]}")
        sys.exit(1)
if len(a) != len(b):
    print(f"FAIL {name}: replay printed {len(a)} lines, python {len(b)}")
    sys.exit(1)
ticks = sum(1 for x in a if x["type"] == "tick")
events = sum(1 for x in a if x["type"] == "event")
warn = a[0]["info"]["warnings"]
print(f"ok   {name}: {len(a)} lines ({ticks} ticks, {events} events)" + (f"; warnings: {warn}" if warn else ""))
EOF
}

fail=0
files=("$WORK"/*.flrep "$WORK"/rot/*.flrep "$WORK"/craft/ok-*.flrep)
if [ "${#files[@]}" -lt 12 ]; then
    echo "FAIL: expected at least 12 test files, generated ${#files[@]}" >&2
    fail=1
fi
for f in "${files[@]}"; do
    compare "$f" || fail=1
done

checked=()
refused() { # file, [text both error messages must contain]
    local f="$1" want="${2:-}" name rs_rc=0 py_rc=0
    name="$(basename "$f")"
    checked+=("$name")
    "$REPLAY" dump "$f" > /dev/null 2> "$WORK/rs.err" || rs_rc=$?
    "$PY" "$HERE/flrep_reader.py" "$f" > /dev/null 2> "$WORK/py.err" || py_rc=$?
    if [ "$rs_rc" -eq 0 ] || [ "$py_rc" -eq 0 ]; then
        echo "FAIL $name: must be refused, exit status replay=$rs_rc python=$py_rc"
        return 1
    fi
    if [ -n "$want" ] && ! { grep -qF "$want" "$WORK/rs.err" && grep -qF "$want" "$WORK/py.err"; }; then
        echo "FAIL $name: both errors must contain: $want"
        cat "$WORK/rs.err" "$WORK/py.err"
        return 1
    fi
    echo "ok   $name: refused by both ($(head -c 150 "$WORK/py.err" | tr -d '\n'))"
}
refused "$WORK/craft/bad-newer-major.flrep" \
    "this replay was recorded by engine version 0.7.0 (format 2.5); this build reads format 1.x" || fail=1
refused "$WORK/craft/bad-major0.flrep" "format major version 0 is not one this build reads (it reads 1.x)" || fail=1
refused "$WORK/craft/bad-tick-flag.flrep" "unknown tick flags 0x0005" || fail=1
refused "$WORK/craft/bad-mask-bit.flrep" "presence mask 0x107f has unknown bits" || fail=1
refused "$WORK/craft/bad-chunk-crc.flrep" "is corrupt" || fail=1
refused "$WORK/craft/bad-trailer-last-tick.flrep" "ends at tick 112, but the index's lastTick is 113" || fail=1
refused "$WORK/craft/bad-zstd-two-frames.flrep" "not exactly one zstd frame: " || fail=1
refused "$WORK/craft/bad-zstd-skippable-frame.flrep" "not exactly one zstd frame: a skippable frame" || fail=1
refused "$WORK/craft/bad-zstd-checksum.flrep" "zstd content checksum mismatch (stored 7052b5ac, computed 7052b553)" || fail=1
refused "$WORK/craft/bad-chunks-overlap-indexed.flrep" "ends at tick 104, not before the next chunk's keyframe tick 103" || fail=1
refused "$WORK/craft/bad-control-name.flrep" "contains a control character" || fail=1
refused "$WORK/craft/bad-control-metadata-key.flrep" "contains a control character" || fail=1
# Every hand-made file that must be refused has its expectation above.
for f in "$WORK"/craft/bad-*.flrep; do
    name="$(basename "$f")"
    if [[ " ${checked[*]} " != *" $name "* ]]; then
        echo "FAIL $name: craft.py writes it but check.sh does not say how it must be refused"
        fail=1
    fi
done
if [ "$fail" -ne 0 ]; then
    echo "conformance: FAILED" >&2
    exit 1
fi
echo "conformance: all ${#files[@]} files identical, ${#checked[@]} hostile files refused by both"
