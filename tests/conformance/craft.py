#!/usr/bin/env python3
"""Hand-crafted `.flrep` files (written from docs/format/flrep.md) that exercise what the generator
never writes: newer-minor additions (appended header fields, section tails, event fields, unknown
sections and event kinds), metadata, the camera-track id, custom events, animation state, type and
faction changes, teleports, remove records, mask-0 deltas, tick gaps, events stamped with another
tick, free-text sanitising, and files a reader must refuse.

Usage: craft.py OUTDIR     writes OUTDIR/ok-*.flrep (must play) and OUTDIR/bad-*.flrep (must be refused)
"""
import os
import struct
import sys
import zlib

import zstandard


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v == 0:
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def svarint(v):
    return varint((v << 1) ^ (v >> 63) if v < 0 else v << 1)


def s16(s):
    b = s.encode("utf-8")
    return struct.pack("<H", len(b)) + b


def section(sid, payload):
    return struct.pack("<HI", sid, len(payload)) + payload


def header(major=1, minor=3, extra=b"\x01\x02\x03\x04\x05\x06\x07\x08", radius=600000.0, engine="9.9.9-craft"):
    rem = s16(engine) + struct.pack("<Id", 30, radius) + struct.pack("<Q", 1_700_000_000) + s16("crafted")
    rem += struct.pack("<IIdd", 0, 4, 0.25, 0.0625) + extra
    return b"FLRP" + struct.pack("<HHI", major, minor, len(rem)) + rem


META = [("map", "crater"), ("mode", "tdm")]


def sections(meta=None):
    types = struct.pack("<H", 2)
    types += struct.pack("<H", 3) + s16("heli") + s16("Helicopter") + bytes([1, 0])
    types += struct.pack("<H", 9) + s16("thing") + s16("Thing (category 9)") + bytes([9, 7])
    types += b"TAIL-FIELDS-FROM-A-NEWER-MINOR"
    facs = struct.pack("<H", 1) + bytes([4]) + s16("green") + s16("Grün ✓") + b"\x00\x00tail"
    roster = struct.pack("<I", 1) + struct.pack("<I", 77) + s16("Ghost") + struct.pack("<I", 0xFFFFFFFF) + bytes([4])
    roster += struct.pack("<I", 1) + struct.pack("<II", 1, 5)
    meta = META if meta is None else meta
    meta = struct.pack("<I", len(meta)) + b"".join(s16(k) + s16(v) for k, v in meta)
    return (section(0x0005, meta) + section(0x0002, facs) + section(0x0004, b"camera-bytes")
            + section(0x0001, types) + section(0x7777, b"\xff" * 10) + section(0x0003, roster)
            + section(0x0000, b""))


def absolute(ident, prev, t, f, pos, ori, vel, health, flags, anim=0):
    code = ident if prev is None else ident - prev - 1
    mask = 0x7F | (0x100 if anim else 0)
    b = varint(code) + varint(mask) + varint(t) + bytes([f])
    b += b"".join(svarint(v) for v in pos) + b"".join(svarint(v) for v in ori) + b"".join(svarint(v) for v in vel)
    b += varint(health) + varint(flags) + (svarint(anim) if anim else b"")
    return b


def delta(ident, prev, mask, tf=None, pos=None, ori=None, vel=None, health=None, flags=None, anim=None, small=()):
    code = ident if prev is None else ident - prev - 1
    b = varint(code) + varint(mask)
    if tf:
        b += varint(tf[0]) + bytes([tf[1]])
    for key, vals in (("pos", pos), ("ori", ori), ("vel", vel)):
        if vals is None:
            continue
        if key in small:
            byte = 0
            for k, v in enumerate(vals):
                byte |= (v & 3) << (2 * k)
            b += bytes([byte])
        else:
            b += b"".join(svarint(v) for v in vals)
    if health is not None:
        b += varint(health)
    if flags is not None:
        b += varint(flags)
    if anim is not None:
        b += svarint(anim)
    return b


def remove(ident, prev):
    return varint(ident if prev is None else ident - prev - 1) + varint(0x80)


def event(kind, payload):
    return bytes([kind]) + struct.pack("<H", len(payload)) + payload


def tick(index, flags, records, events):
    return struct.pack("<QHHH", index, flags, len(records), len(events)) + b"".join(records) + b"".join(events)


def chunk(ticks_bytes, first, last, count, level=3, frame=None):
    raw = b"".join(ticks_bytes)
    frame = zstandard.ZstdCompressor(level=level).compress(raw) if frame is None else frame(raw)
    return b"FLCK" + struct.pack("<IIQQII", len(frame), len(raw), first, last, count, zlib.crc32(raw)) + frame


def trailer(table_offset, entries, first, last, markers):
    body = b"FLIX" + struct.pack("<IQQI", len(entries), first, last, len(markers))
    body += b"".join(struct.pack("<QQ", t, o) for t, o in entries) + b"".join(markers)
    return body + struct.pack("<I", zlib.crc32(body)) + struct.pack("<Q", table_offset)


def kill(t, killer, victim, weapon):
    return event(1, struct.pack("<QIIH", t, killer, victim, weapon))


def build_ok(hdr=None, secs=None):
    prefix = (hdr if hdr is not None else header()) + (secs if secs is not None else sections())
    # chunk 1: ticks 100 (keyframe), 101, 103 (gap), 104
    t100 = tick(100, 1, [
        absolute(5, None, 3, 4, [1000, -2000, 300], [0, 0, 0, 32767], [40, 0, -2], 10000, 3),
        absolute(7, 5, 9, 4, [-5, 6, 7], [100, -200, 300, 32000], [0, 0, 0], 5000, 1, anim=3),
    ], [
        event(2, struct.pack("<QII", 100, 5, 77)),
        event(42, b"unknown kind: skipped"),
        event(6, struct.pack("<QB", 100, 2) + b"appended-field"),
    ])
    t101 = tick(101, 0, [
        delta(5, None, 0x0E | 0x400 | 0x800, pos=[300, -1, 70000], ori=[1, 0, -1, 0], vel=[-2, 1, 0], small=("ori", "vel")),
        delta(7, 5, 0x0400 | 0x04 | 0x10 | 0x20 | 0x40 | 0x100, tf=(3, 0), ori=[-2, 1, 0, -1], health=4500, flags=0x85, anim=-4,
              small=("ori",)),
        absolute(9, 7, 9, 4, [0, 0, 0], [0, 0, 0, 32767], [1, 1, 1], 100, 2),
    ], [
        event(4, struct.pack("<QIB", 101, 77, 1) + s16("hi\x07 there\u202e evil\ttab\x00end") + b"tail"),
        event(7, struct.pack("<QIIiii", 101, 5, 9, -10, 20, -30) + s16("explosion") + s16("radius=12\x1b") + b"more"),
        event(1, struct.pack("<QIIH", 102, 5, 9, 3)),  # stamped later than its tick
        kill(99, 9, 7, 0xFFFF),                        # stamped earlier
    ])
    t103 = tick(103, 0, [
        remove(7, None),
        delta(9, 7, 0x00),
    ], [
        event(5, struct.pack("<QI", 103, 0) + s16("kick") + s16("reason: \u2066afk\u2069")),
        event(3, struct.pack("<QIB", 103, 7, 0)),
    ])
    t104 = tick(104, 0, [
        # teleport: absolute record for a live entity resets its prediction
        absolute(5, None, 3, 4, [-100000, 5, 5], [0, 0, 0, -32767], [0, 0, 0], 10000, 3),
        delta(9, 5, 0x0A | 0x200 | 0x800, pos=[-2, 1, 0], vel=[1, -2, -1], small=("pos", "vel")),
    ], [])
    c1 = chunk([t100, t101, t103, t104], 100, 104, 4)
    # chunk 2: ticks 110 (keyframe; entity 9 absent = it left), 111 (no records: prediction only)
    t110 = tick(110, 1, [
        absolute(5, None, 3, 4, [10, 20, 30], [0, 0, 0, 32767], [3, 4, 5], 10000, 3),
        absolute(4000000000, 5, 9, 4, [-1, -1, -1], [1, 2, 3, 4], [0, 0, 0], 0, 0, anim=-7),
    ], [event(250, b"")])
    t111 = tick(111, 0, [delta(5, None, 0x02, pos=[5, 5, 5])], [event(6, struct.pack("<QB", 111, 3))])
    t112 = tick(112, 0, [], [])
    c2 = chunk([t110, t111, t112], 110, 112, 3, level=19)
    off1 = len(prefix)
    off2 = off1 + len(c1)
    table = off2 + len(c2)
    markers = [kill(102, 5, 9, 3), kill(99, 9, 7, 0xFFFF), event(99, b"future marker kind")]
    tr = trailer(table, [(100, off1), (110, off2)], 100, 112, markers)
    return prefix + c1 + c2 + tr, off2, table, prefix + c1 + c2 + trailer(table, [(100, off1), (110, off2)], 100, 113, markers)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    ok, off2, table, late_end = build_ok()

    def w(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    w("ok-extended.flrep", ok)
    w("ok-extended-cut.flrep", ok[: table - 5])          # no trailer, last chunk cut: dropped
    w("ok-extended-notrailer.flrep", ok[:table])         # no trailer, ends on a chunk boundary
    # §13.3: no trailer, chunk 2's compressedLength over the 16 MiB limit (and past the end of the
    # file): corruption, not a cut. Chunk 1 plays; both readers report the problem.
    over = bytearray(ok[:table])
    over[off2 + 4:off2 + 8] = struct.pack("<I", 0xFFFFFFFF)
    w("ok-scan-stops-at-over-limit-chunk.flrep", bytes(over))
    w("ok-flat-minor0.flrep", build_ok(header(minor=0, extra=b"", radius=0.0))[0])
    # §4.2: planetRadiusM -0.0 is a flat world (a numeric test), not a refusal.
    w("ok-radius-negative-zero.flrep", build_ok(header(minor=0, extra=b"", radius=-0.0))[0])
    # §2.4/§5.6: a metadata value is free text (sanitised, kept); its key is a name (refused).
    note = ("note", "line one\nline two\ttabbed \u202eevil\x00 \x7f end")
    w("ok-metadata-free-text.flrep", build_ok(secs=sections(META + [note]))[0])
    # §13.1: a table offset leaving fewer than 40 bytes (here 38, a CRC-valid "FLIX" stub) is no
    # trailer, not a corrupt one: the scan stops at the stub's magic without a further warning.
    body = b"FLIX" + bytes(22)
    w("ok-table-offset-in-last-40.flrep", ok[:table] + body + struct.pack("<IQ", zlib.crc32(body), table))
    # refusals
    w("bad-newer-major.flrep", header(major=2, minor=5, engine="0.7.0") + b"\x00" * 64)
    w("bad-major0.flrep", header(major=0) + ok[len(header()):])
    bad_flag = bytearray(ok)
    # an unknown tick flag in chunk 2's first tick: rebuild that chunk
    t = tick(110, 1 | 4, [absolute(5, None, 3, 4, [0, 0, 0], [0, 0, 0, 32767], [0, 0, 0], 1, 1)], [])
    c2 = chunk([t], 110, 110, 1)
    pre = ok[:off2]
    tr = trailer(off2 + len(c2), [(100, len(header()) + len(sections())), (110, off2)], 100, 110, [])
    w("bad-tick-flag.flrep", pre + c2 + tr)
    t = tick(110, 1, [varint(5) + varint(0x7F | 0x1000)], [])
    c2 = chunk([t], 110, 110, 1)
    tr = trailer(off2 + len(c2), [(100, len(header()) + len(sections())), (110, off2)], 100, 110, [])
    w("bad-mask-bit.flrep", pre + c2 + tr)
    # §13.2: an indexed chunk (ticks 100..=104) reaching the next entry's keyframe tick (103).
    t = tick(103, 1, [absolute(5, None, 3, 4, [0, 0, 0], [0, 0, 0, 32767], [0, 0, 0], 1, 1)], [])
    c2 = chunk([t], 103, 103, 1)
    tr = trailer(off2 + len(c2), [(100, len(header()) + len(sections())), (103, off2)], 100, 103, [])
    w("bad-chunks-overlap-indexed.flrep", pre + c2 + tr)
    # §6.2: compressedLength holds exactly one zstd frame. Chunk 2 as two frames that together hold its
    # payload, and as a skippable frame followed by the real one (a general zstd decoder takes both).
    z = zstandard.ZstdCompressor(level=3).compress
    t = tick(110, 1, [absolute(5, None, 3, 4, [0, 0, 0], [0, 0, 0, 32767], [0, 0, 0], 1, 1)], [])
    skippable = struct.pack("<II", 0x184D2A53, 6) + b"hidden"
    for name, frame in (("two-frames", lambda r: z(r[:10]) + z(r[10:])), ("skippable-frame", lambda r: skippable + z(r))):
        c2 = chunk([t], 110, 110, 1, frame=frame)
        tr = trailer(off2 + len(c2), [(100, len(header()) + len(sections())), (110, off2)], 100, 110, [])
        w(f"bad-zstd-{name}.flrep", pre + c2 + tr)
    # §6.2: a frame with a content checksum (libzstd's write_checksum) is verified: chunk 2 with a
    # correct one plays as without it; with its stored checksum flipped, both readers refuse it.
    zc = zstandard.ZstdCompressor(level=3, write_checksum=True).compress
    c2 = chunk([t], 110, 110, 1, frame=zc)
    tr = trailer(off2 + len(c2), [(100, len(header()) + len(sections())), (110, off2)], 100, 110, [])
    w("ok-zstd-checksum.flrep", pre + c2 + tr)
    w("bad-zstd-checksum.flrep", pre + c2[:-4] + bytes([c2[-4] ^ 0xFF]) + c2[-3:] + tr)
    # §9, §13.2: the trailer's lastTick (113) is not the last chunk's (112).
    w("bad-trailer-last-tick.flrep", late_end)
    bad_crc = bytearray(ok)
    bad_crc[off2 + 32] ^= 0xFF   # chunk 2's crc32 field
    w("bad-chunk-crc.flrep", bytes(bad_crc))
    w("bad-control-name.flrep", ok.replace(s16("Ghost"), s16("Gh\nst")))
    w("bad-control-metadata-key.flrep", build_ok(secs=sections(META + [("no\tte", "fine")]))[0])


if __name__ == "__main__":
    main()
