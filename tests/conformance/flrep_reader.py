#!/usr/bin/env python3
"""An independent `.flrep` 1.0 reader, written from docs/format/flrep.md alone.

Usage: flrep_reader.py FILE
Prints the same JSON-lines dump as `replay dump FILE` (docs/format/flrep.md, Appendix B).
Needs python3 and the PyPI `zstandard` package. Errors: one line on stderr, exit 1.
"""
import json
import struct
import sys
import unicodedata
import zlib

import zstandard

# §2.6 limits
MAX_STRING = 4096
MAX_HEADER_BYTES = 64 * 1024
MAX_PREFIX_BYTES = 16 * 1024 * 1024
MAX_CHUNK_COMPRESSED = 16 * 1024 * 1024
MAX_CHUNK_UNCOMPRESSED = 16 * 1024 * 1024
MAX_WINDOW = 8 * 1024 * 1024
MAX_LIVE_ENTITIES = 100_000
MAX_TRAILER_BYTES = 64 * 1024 * 1024
MAX_FACTIONS = 256

CHUNK_HEADER_LEN = 36
TICK_HEADER_LEN = 14
MIN_TRAILER_LEN = 40  # §13.1: fixed part (28) + crc32 + tableOffset

# §7.3 mask bits
ABSOLUTE, POS, ORIENT, VEL, HEALTH, FLAGS, TYPE_FACTION, REMOVE, ANIM = (1 << i for i in range(9))
POS_SMALL, ORIENT_SMALL, VEL_SMALL = 1 << 9, 1 << 10, 1 << 11
ABSOLUTE_FIELDS = POS | ORIENT | VEL | HEALTH | FLAGS | TYPE_FACTION
KNOWN_BITS = ABSOLUTE | ABSOLUTE_FIELDS | REMOVE | ANIM | POS_SMALL | ORIENT_SMALL | VEL_SMALL

CATEGORIES = {0: "other", 1: "aircraft", 2: "projectile", 3: "ground", 4: "character"}
BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}

I16 = (-(1 << 15), (1 << 15) - 1)
I32 = (-(1 << 31), (1 << 31) - 1)
U16 = (0, (1 << 16) - 1)
U32 = (0, (1 << 32) - 1)


class FlrepError(Exception):
    pass


class Short(FlrepError):
    """Ran out of bytes (a truncation)."""


def is_cc(ch):
    return unicodedata.category(ch) == "Cc"


def name_problem(s):
    for ch in s:
        if ch == "\0":
            return "contains NUL"
        if is_cc(ch):
            return "contains a control character"
        if ord(ch) in BIDI:
            return "contains a bidirectional-override character"
    return None


def sanitize(s):
    return "".join("\ufffd" if (is_cc(ch) and ch != "\t") or ord(ch) in BIDI else ch for ch in s)


def in_range(v, rng, what):
    if not rng[0] <= v <= rng[1]:
        raise FlrepError(f"{what} value {v} out of range")
    return v


class Cur:
    """Checked little-endian cursor; `base` = file (or payload) offset of buf[0]."""

    def __init__(self, buf, base=0):
        self.b = buf
        self.p = 0
        self.base = base

    def off(self):
        return self.base + self.p

    def remaining(self):
        return len(self.b) - self.p

    def take(self, n, what="data"):
        if n > self.remaining():
            raise Short(f"file ends inside the {what} at offset {self.off()}: {n} bytes needed, {self.remaining()} left")
        r = self.b[self.p:self.p + n]
        self.p += n
        return r

    def _u(self, fmt, n, what):
        return struct.unpack("<" + fmt, self.take(n, what))[0]

    def u8(self, what="data"):
        return self._u("B", 1, what)

    def u16(self, what="data"):
        return self._u("H", 2, what)

    def u32(self, what="data"):
        return self._u("I", 4, what)

    def i32(self, what="data"):
        return self._u("i", 4, what)

    def u64(self, what="data"):
        return self._u("Q", 8, what)

    def f64(self, what="data"):
        return self._u("d", 8, what)

    def varint(self, what="varint"):
        # §2.2: at most 10 bytes; 10th byte > 1 is malformed.
        v = 0
        for i in range(10):
            b = self.u8(what)
            if i == 9 and b > 1:
                raise FlrepError(f"{what}: malformed varint")
            v |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                return v
        raise FlrepError(f"{what}: malformed varint")

    def svarint(self, what="varint"):
        u = self.varint(what)
        return (u >> 1) ^ -(u & 1)

    def str16(self, what):
        n = self.u16(what)
        if n > MAX_STRING:
            raise FlrepError(f"bad string in {what}: {n} bytes, over the {MAX_STRING}-byte limit")
        raw = self.take(n, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise FlrepError(f"bad string in {what}: not valid UTF-8")

    def name(self, what):
        s = self.str16(what)
        p = name_problem(s)
        if p:
            raise FlrepError(f"bad string in {what}: {p}")
        return s


# ---------------------------------------------------------------- header and sections (§4, §5)

def parse_prefix(data):
    n = len(data)
    if n < 12:
        if n >= 4 and data[:4] != b"FLRP":
            raise FlrepError("not a .flrep file")
        raise FlrepError(f"file is {n} bytes: too short for a .flrep header")
    c = Cur(data)
    if c.take(4) != b"FLRP":
        raise FlrepError("not a .flrep file: expected magic \"FLRP\"")
    major, minor, header_len = c.u16(), c.u16(), c.u32()
    if major > 1:
        ev = None
        if n >= 14:
            ln = struct.unpack("<H", data[12:14])[0]
            if ln <= MAX_STRING and 14 + ln <= n:
                s = data[14:14 + ln].decode("utf-8", "replace")
                ev = "".join(ch for ch in s if not is_cc(ch) and ord(ch) not in BIDI)[:64]
        who = f"engine version {ev}" if ev else "an unknown engine version"
        raise FlrepError(f"this replay was recorded by {who} (format {major}.{minor}); this build reads format 1.x")
    if major == 0:
        raise FlrepError("format major version 0 is not one this build reads (it reads 1.x)")
    if header_len > MAX_HEADER_BYTES:
        raise FlrepError(f"header remainder of {header_len} bytes exceeds the {MAX_HEADER_BYTES}-byte limit")
    if 12 + header_len > n:
        raise Short("file ends inside the header")
    h = Cur(c.take(header_len, "header"), 12)
    hdr = {
        "format_major": major,
        "format_minor": minor,
        "engine_version": h.name("engineVersion"),
        "tick_rate_hz": h.u32("header"),
        "planet_radius_m": h.f64("header"),
        "start_unix_seconds": h.u64("header"),
        "mission_id": h.name("missionId"),
        "session_flags": h.u32("header"),
        "keyframe_interval_ticks": h.u32("header"),
        "position_quantum_m": h.f64("header"),
        "velocity_quantum_mps": h.f64("header"),
    }
    # anything after is a newer minor's field: ignored
    if not 1 <= hdr["tick_rate_hz"] <= 100_000:
        raise FlrepError("header field tickRateHz has an invalid value")
    r = hdr["planet_radius_m"]
    if not (r == 0.0 or (r == r and 1.0 <= r <= 1.0e10)):  # §4.2: -0.0 == 0.0, a flat world
        raise FlrepError("header field planetRadiusM has an invalid value")
    if hdr["keyframe_interval_ticks"] == 0:
        raise FlrepError("header field keyframeIntervalTicks has an invalid value")
    for k in ("position_quantum_m", "velocity_quantum_mps"):
        q = hdr[k]
        if not (q == q and 1.0e-6 <= q <= 1.0e3):
            raise FlrepError(f"header field {k} has an invalid value")

    sec = {"entity_types": [], "factions": [], "participants": [], "mission_objects": [], "metadata": [], "skipped": []}
    seen = []
    while True:
        at = c.off()
        if at + 6 > n:
            raise Short(f"file ends inside the section list at offset {at}")
        sid, ln = c.u16(), c.u32()
        if sid == 0:
            if ln != 0:
                raise FlrepError("header field section end marker length has an invalid value")
            break
        end = c.off() + ln
        if end > MAX_PREFIX_BYTES:
            raise FlrepError(f"header and sections need {end} bytes, over the {MAX_PREFIX_BYTES}-byte limit")
        if end > n:
            raise FlrepError(f"section 0x{sid:04X} at offset {at} declares {ln} bytes but only {n - c.off()} remain")
        payload = c.take(ln)
        if sid in seen:
            raise FlrepError(f"section 0x{sid:04X} appears twice")
        seen.append(sid)
        p = Cur(payload, end - ln)
        if sid == 1:
            sec["entity_types"] = parse_types(p)
        elif sid == 2:
            sec["factions"] = parse_factions(p)
        elif sid == 3:
            sec["participants"], sec["mission_objects"] = parse_roster(p)
        elif sid == 5:
            sec["metadata"] = parse_metadata(p)
        else:
            sec["skipped"].append(sid)
    for sid, nm in ((1, "entity-type manifest"), (2, "faction table"), (3, "roster")):
        if sid not in seen:
            raise FlrepError(f"required section 0x{sid:04X} ({nm}) is missing")
    return hdr, sec, c.off()


def fits(c, what, count, min_size):
    mx = c.remaining() // min_size
    if count > mx:
        raise FlrepError(f"{what} count {count} exceeds what fits ({mx})")
    return count


def parse_types(c):
    n = fits(c, "entity type", c.u16("entity-type manifest"), 8)
    out = []
    for _ in range(n):
        index = c.u16("entity-type manifest")
        tid = c.name("entity type id")
        dn = c.name("entity type name")
        cat = c.u8("entity-type manifest")
        pk = c.u8("entity-type manifest")
        out.append({"index": index, "id": tid, "display_name": dn, "category": CATEGORIES.get(cat, "other"), "projectile_kind": pk})
    return out


def parse_factions(c):
    n = fits(c, "faction", c.u16("faction table"), 5)
    if n > MAX_FACTIONS:
        raise FlrepError(f"faction count {n} exceeds what fits ({MAX_FACTIONS})")
    out = []
    for _ in range(n):
        index = c.u8("faction table")
        fid = c.name("faction id")
        dn = c.name("faction name")
        out.append({"index": index, "id": fid, "display_name": dn})
    return out


def parse_roster(c):
    n = fits(c, "participant", c.u32("roster"), 11)
    parts = []
    for _ in range(n):
        pid = c.u32("roster")
        cs = c.name("callsign")
        ent = c.u32("roster")
        fac = c.u8("roster")
        parts.append({"id": pid, "callsign": cs, "entity": ent, "faction": fac})
    n = fits(c, "mission object", c.u32("roster"), 8)
    objs = []
    for _ in range(n):
        oid = c.u32("roster")
        ent = c.u32("roster")
        objs.append({"object_id": oid, "entity": ent})
    return parts, objs


def parse_metadata(c):
    n = fits(c, "metadata entry", c.u32("metadata"), 4)
    out = []
    for _ in range(n):
        k = c.name("metadata key")
        v = sanitize(c.str16("metadata value"))  # §2.4, §5.6: a value is free text
        out.append([k, v])
    return out


# ---------------------------------------------------------------- events (§8)

EVENT_MIN = {1: 18, 2: 16, 3: 13, 4: 15, 5: 16, 6: 9, 7: 32}


def read_event(c):
    """Returns an event dict, or None for an unknown kind (skipped)."""
    kind = c.u8("event header")
    ln = c.u16("event header")
    at = c.off()
    if ln > c.remaining():
        raise FlrepError(f"event at offset {at} declares {ln} bytes but {c.remaining()} remain")
    p = Cur(c.take(ln), at)
    if not 1 <= kind <= 7:
        return None
    try:
        tick = p.u64()
        if kind == 1:
            body = {"kind": "kill", "killer": p.u32(), "victim": p.u32(), "weapon_type": p.u16()}
        elif kind == 2:
            body = {"kind": "spawn", "entity": p.u32(), "participant": p.u32()}
        elif kind == 3:
            body = {"kind": "despawn", "entity": p.u32(), "reason": p.u8()}
        elif kind == 4:
            body = {"kind": "chat", "participant": p.u32(), "channel": p.u8(), "text": sanitize(p.str16("chat text"))}
        elif kind == 5:
            body = {"kind": "admin", "participant": p.u32(), "action": sanitize(p.str16("admin action")), "detail": sanitize(p.str16("admin detail"))}
        elif kind == 6:
            body = {"kind": "alert_level", "level": p.u8()}
        else:
            source, target = p.u32(), p.u32()
            pos = [p.i32(), p.i32(), p.i32()]
            body = {"kind": "custom", "type": sanitize(p.str16("event type")), "source": source, "target": target, "pos": pos, "data": sanitize(p.str16("event data"))}
    except Short:
        raise FlrepError(f"event kind {kind} at offset {at}: payload too short")
    # trailing payload bytes: newer-minor fields, ignored
    body["tick"] = tick
    return body


# ---------------------------------------------------------------- trailer (§9)

def parse_trailer(data, table_offset, stream_start):
    b = data[table_offset:]
    if len(b) < 12:
        raise FlrepError("trailer too short")
    body = b[:-12]
    crc = struct.unpack("<I", b[-12:-8])[0]
    actual = zlib.crc32(body) & 0xFFFFFFFF
    if crc != actual:
        raise FlrepError(f"index checksum mismatch (stored {crc:08x}, computed {actual:08x})")
    c = Cur(body, table_offset)
    try:
        if c.take(4) != b"FLIX":
            raise FlrepError("no index magic \"FLIX\" at the table offset")
        n, first, last, m = c.u32(), c.u64(), c.u64(), c.u32()
    except Short:
        raise FlrepError("trailer too short")
    if n * 16 > c.remaining():
        raise FlrepError(f"index declares {n} entries but holds room for {c.remaining() // 16}")
    if m * 3 > c.remaining():
        raise FlrepError(f"index declares {m} markers, more than fit")
    entries = []
    for _ in range(n):
        t, o = c.u64(), c.u64()
        if entries and (t <= entries[-1][0] or o <= entries[-1][1]):
            raise FlrepError(f"index entries out of order at keyframe tick {t}")
        if o < stream_start or o + CHUNK_HEADER_LEN > table_offset:
            raise FlrepError(f"index entry for tick {t} points at offset {o}, outside the frame stream")
        entries.append((t, o))
    if not entries:
        raise FlrepError("index has no entries")
    if entries[0][1] != stream_start:
        raise FlrepError(f"first index entry points at {entries[0][1]}, not at the start of the frame stream ({stream_start})")
    if entries[0][0] != first:
        raise FlrepError(f"first keyframe tick {entries[0][0]} differs from the index's first tick {first}")
    if entries[-1][0] > last:
        raise FlrepError("last keyframe tick is after the index's last tick")
    markers = []
    for _ in range(m):
        try:
            e = read_event(c)
        except Short as s:
            raise FlrepError(str(s))
        if e is not None:
            markers.append(e)
    if c.remaining():
        raise FlrepError(f"{c.remaining()} unexpected bytes in the index")
    return first, last, entries, markers


# ---------------------------------------------------------------- chunks (§6)

class ChunkHeaderError(FlrepError):
    def __init__(self, msg, truncated=False):
        super().__init__(msg)
        self.truncated = truncated


def parse_chunk_header(b, offset, file_len):
    """§6.1 checks in the documented order. `b` holds up to 36 bytes at `offset`."""
    if len(b) < 4:
        raise ChunkHeaderError("file ends inside the chunk header", truncated=True)
    if b[:4] != b"FLCK":
        m = b[:4]
        shown = f"\"{m.decode()}\"" if all(0x21 <= x <= 0x7E for x in m) else "bytes " + " ".join(f"{x:02X}" for x in m)
        raise ChunkHeaderError(f"expected a chunk at offset {offset}, found {shown}")
    if len(b) < CHUNK_HEADER_LEN:
        raise ChunkHeaderError("file ends inside the chunk header", truncated=True)
    cl, ul, first, last, tc, crc = struct.unpack("<IIQQII", b[4:36])
    if cl > MAX_CHUNK_COMPRESSED:
        raise ChunkHeaderError(f"chunk at offset {offset}: compressedLength {cl} exceeds the limit of {MAX_CHUNK_COMPRESSED} bytes")
    if ul > MAX_CHUNK_UNCOMPRESSED:
        raise ChunkHeaderError(f"chunk at offset {offset}: uncompressedLength {ul} exceeds the limit of {MAX_CHUNK_UNCOMPRESSED} bytes")
    end = offset + CHUNK_HEADER_LEN + cl
    if end > file_len:
        raise ChunkHeaderError(f"chunk at offset {offset} ends at {end}, past the end of the file ({file_len} bytes)", truncated=True)
    if tc == 0 or last < first:
        raise ChunkHeaderError(f"chunk at offset {offset}: tickCount {tc} with ticks {first}..={last}")
    if tc * TICK_HEADER_LEN > ul:
        raise ChunkHeaderError(f"chunk at offset {offset}: tickCount {tc} cannot fit in {ul} bytes")
    return {"offset": offset, "cl": cl, "ul": ul, "first": first, "last": last, "tc": tc, "crc": crc, "end": end}


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def checksum_at(frame):
    """§6.2: where a frame's 4-byte content checksum is (RFC 8878 §3.1.1), or None when its header does
    not set Content_Checksum_flag or the frame is too damaged to walk (the decoder then refuses it)."""
    if len(frame) < 6 or frame[:4] != ZSTD_MAGIC or not frame[4] & 0x04:
        return None
    fhd = frame[4]
    single = bool(fhd & 0x20)
    fcs = {0: 1 if single else 0, 1: 2, 2: 4, 3: 8}[fhd >> 6]
    pos = 5 + (0 if single else 1) + (0, 1, 2, 4)[fhd & 3] + fcs
    while pos + 3 <= len(frame):
        h = int.from_bytes(frame[pos:pos + 3], "little")
        kind, size = (h >> 1) & 3, h >> 3
        if kind == 3:
            return None
        pos += 3 + (1 if kind == 1 else size)
        if h & 1:
            return pos if pos + 4 <= len(frame) else None
    return None


def content_checksum(data):
    """The low 32 bits of XXH64 (seed 0) of `data`, as libzstd writes it at the end of a frame."""
    f = zstandard.ZstdCompressor(level=1, write_checksum=True).compress(data)
    return struct.unpack("<I", f[-4:])[0]


def decompress(frame, expected):
    """§6.2: exactly one frame, window <= 8 MiB, output bounded by `expected` (+1 spare byte to detect
    more), then the content checksum when the frame carries one."""
    if frame[:4] != ZSTD_MAGIC:
        if len(frame) >= 4 and struct.unpack("<I", frame[:4])[0] & 0xFFFFFFF0 == 0x184D2A50:
            raise FlrepError("not exactly one zstd frame: a skippable frame where the frame should start")
        raise FlrepError("corrupt zstd data: no zstd frame magic")
    # libzstd verifies a checksum itself, as an error without the numbers and whenever it reaches the
    # frame's end: decode the frame without it (flag cleared, 4 bytes removed) and check it below, in
    # the document's order.
    at = checksum_at(frame)
    stored = None
    if at is not None:
        stored = struct.unpack("<I", frame[at:at + 4])[0]
        frame = frame[:4] + bytes([frame[4] & ~0x04]) + frame[5:at] + frame[at + 4:]
    dctx = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW)
    out = bytearray()
    try:
        with dctx.stream_reader(frame, read_across_frames=False) as r:
            while len(out) <= expected:
                b = r.read(expected + 1 - len(out))
                if not b:
                    break
                out += b
    except zstandard.ZstdError as e:
        raise FlrepError(f"corrupt zstd data: {e}")
    if len(out) > expected:
        raise FlrepError(f"zstd frame decompresses to more than the declared {expected} bytes")
    # Where the frame ends: a second pass (its output is the <= `expected` bytes just read).
    d = dctx.decompressobj()
    try:
        d.decompress(frame)
    except zstandard.ZstdError as e:
        raise FlrepError(f"corrupt zstd data: {e}")
    if not d.eof:
        raise FlrepError("corrupt zstd data: the frame is cut short")
    if d.unused_data:
        raise FlrepError(f"not exactly one zstd frame: {len(d.unused_data)} bytes after the end of the frame")
    if stored is not None:
        computed = content_checksum(bytes(out))
        if computed != stored:
            raise FlrepError(f"zstd content checksum mismatch (stored {stored:08x}, computed {computed:08x})")
    return bytes(out)


def read_record(c, prev_id):
    """§7.2–§7.6. Returns ('remove', id) | ('abs', state) | ('delta', dict)."""
    code = c.varint("entity id")
    ident = code if prev_id is None else prev_id + code + 1
    if ident > U32[1]:
        raise FlrepError(f"entity id gap {code} overflows u32")
    mask = c.varint("presence mask")
    if mask & ~KNOWN_BITS:
        raise FlrepError(f"presence mask 0x{mask:x} has unknown bits")
    if mask & REMOVE:
        if mask != REMOVE:
            raise FlrepError(f"remove record with other bits set (mask 0x{mask:x})")
        return "remove", ident, None
    absolute = bool(mask & ABSOLUTE)
    if absolute and mask & ABSOLUTE_FIELDS != ABSOLUTE_FIELDS:
        raise FlrepError(f"absolute record without every field (mask 0x{mask:x})")
    d = {}
    if mask & TYPE_FACTION:
        d["type_faction"] = (in_range(c.varint("type index"), U16, "type index"), c.u8("faction"))
    for sb, fb in ((POS_SMALL, POS), (ORIENT_SMALL, ORIENT), (VEL_SMALL, VEL)):
        if mask & sb and (absolute or not mask & fb):
            raise FlrepError(f"packed-residual bit without its delta field (mask 0x{mask:x})")

    def small(n, what):
        b = c.u8(what)
        if n < 4 and b >> (2 * n):
            raise FlrepError(f"{what}: unused bits set in packed residuals")
        out = []
        for k in range(n):
            v = (b >> (2 * k)) & 3
            out.append(v - 4 if v >= 2 else v)
        return out

    def full(n, what):
        return [in_range(c.svarint(what), I32, what) for _ in range(n)]

    for bit, sb, n, key in ((POS, POS_SMALL, 3, "pos"), (ORIENT, ORIENT_SMALL, 4, "orient"), (VEL, VEL_SMALL, 3, "vel")):
        if mask & bit:
            d[key] = small(n, key) if mask & sb else full(n, key)
    if mask & HEALTH:
        d["health"] = in_range(c.varint("health"), U16, "health")
    if mask & FLAGS:
        d["flags"] = in_range(c.varint("state flags"), U32, "state flags")
    if mask & ANIM:
        d["anim"] = in_range(c.svarint("animation state"), I32, "animation state")
    if absolute:
        for v in d["orient"]:
            in_range(v, I16, "orientation component")
        t, f = d["type_faction"]
        s = {"id": ident, "type_index": t, "faction": f, "pos": d["pos"], "orient": d["orient"], "vel": d["vel"],
             "health": d["health"], "flags": d["flags"], "anim": d.get("anim", 0)}
        return "abs", ident, s
    return "delta", ident, d


def live_abs(s):
    return {"s": s, "dpos": [0, 0, 0], "dori": [0, 0, 0, 0], "dvel": [0, 0, 0]}


def step(vals, ds, rs, rng_v, what, check_d):
    out, nd = [], []
    for v, d, r in zip(vals, ds, rs):
        n = v + d + r
        in_range(n, rng_v, what)
        if check_d:
            in_range(n - v, I32, what + " change")
        out.append(n)
        nd.append(n - v)
    return out, nd


def apply_delta(l, d):
    """§7.7. `d` = {} advances with zero residuals."""
    s = l["s"]
    pos, dpos = step(s["pos"], l["dpos"], d.get("pos", [0, 0, 0]), I32, "position", True)
    ori, dori = step(s["orient"], l["dori"], d.get("orient", [0, 0, 0, 0]), I16, "orientation", False)
    vel, dvel = step(s["vel"], l["dvel"], d.get("vel", [0, 0, 0]), I32, "velocity", True)
    t, f = d.get("type_faction", (s["type_index"], s["faction"]))
    ns = {"id": s["id"], "type_index": t, "faction": f, "pos": pos, "orient": ori, "vel": vel,
          "health": d.get("health", s["health"]), "flags": d.get("flags", s["flags"]), "anim": d.get("anim", s["anim"])}
    return {"s": ns, "dpos": dpos, "dori": dori, "dvel": dvel}


def decode_chunk(data, h):
    """§6.5. Returns (ticks, events) where ticks = [(tick, [state…])]."""
    at = h["offset"]
    frame = data[at + CHUNK_HEADER_LEN:h["end"]]
    if len(frame) != h["cl"]:
        raise FlrepError(f"chunk at offset {at} declares {h['cl']} compressed bytes but holds {len(frame)}")
    raw = decompress(frame, h["ul"])
    if len(raw) != h["ul"]:
        raise FlrepError(f"chunk at offset {at} declares {h['ul']} decompressed bytes but holds {len(raw)}")
    if zlib.crc32(raw) & 0xFFFFFFFF != h["crc"]:
        raise FlrepError(f"chunk at offset {at} is corrupt: CRC-32 mismatch")
    c = Cur(raw, 0)
    live = []  # list of live entries, ascending id
    ticks, events = [], []
    prev_tick = None
    try:
        for i in range(h["tc"]):
            tick, flags, rc, ec = c.u64("tick header"), c.u16("tick header"), c.u16("tick header"), c.u16("tick header")
            key = bool(flags & 1)
            if i == 0 and (not key or tick != h["first"]):
                raise FlrepError(f"chunk at offset {at}: first tick {tick} does not match the header's keyframe tick")
            if i > 0 and key:
                raise FlrepError(f"chunk at offset {at}, tick {tick}: a keyframe tick inside a chunk")
            if prev_tick is not None and tick <= prev_tick:
                raise FlrepError(f"chunk at offset {at}, tick {tick}: tick index does not increase")
            if flags & ~1:
                raise FlrepError(f"chunk at offset {at}, tick {tick}: unknown tick flags 0x{flags:04x}")
            prev_tick = tick
            recs = []
            last_id = None
            for _ in range(rc):
                kind, ident, val = read_record(c, last_id)
                last_id = ident
                if key and kind != "abs":
                    raise FlrepError(f"chunk at offset {at}, tick {tick}, entity {ident}: a keyframe tick holds a non-absolute record")
                recs.append((kind, ident, val))
            live = apply_tick(live, recs, key, at, tick)
            if len(live) > MAX_LIVE_ENTITIES:
                raise FlrepError(f"chunk at offset {at}, tick {tick}: {len(live)} live entities exceeds the limit")
            for _ in range(ec):
                e = read_event(c)
                if e is not None:
                    events.append(e)
            ticks.append((tick, [dict(l["s"]) for l in live]))
    except Short as s:
        raise FlrepError(f"chunk at offset {at}: {s}")
    if c.remaining():
        raise FlrepError(f"chunk at offset {at}: {c.remaining()} bytes left after the last of {h['tc']} ticks")
    if prev_tick != h["last"]:
        raise FlrepError(f"chunk at offset {at}: last tick {prev_tick} does not match the header's {h['last']}")
    return ticks, events


def apply_tick(live, recs, key, at, tick):
    """§7.9 merge."""
    if key:
        return [live_abs(s) for (_, _, s) in recs]
    out = []
    i = j = 0
    while i < len(live) or j < len(recs):
        l = live[i] if i < len(live) else None
        r = recs[j] if j < len(recs) else None
        if l is not None and (r is None or l["s"]["id"] < r[1]):
            out.append(apply_delta(l, {}))
            i += 1
        elif r is not None and (l is None or r[1] < l["s"]["id"]):
            if r[0] == "abs":
                out.append(live_abs(r[2]))
            else:
                raise FlrepError(f"chunk at offset {at}, tick {tick}, entity {r[1]}: {r[0]} record for an entity that is not in the world")
            j += 1
        else:
            if r[0] == "abs":
                out.append(live_abs(r[2]))
            elif r[0] == "delta":
                out.append(apply_delta(l, r[2]))
            # remove: drop
            i += 1
            j += 1
    return out


# ---------------------------------------------------------------- open (§13)

def open_file(data):
    hdr, sec, stream_start = parse_prefix(data)
    n = len(data)
    warnings = []
    if sec["skipped"]:
        warnings.append("skipped sections this build does not read: " + ", ".join(f"0x{i:04X}" for i in sec["skipped"]))
    problem = None
    if n < stream_start + MIN_TRAILER_LEN:
        problem = "no index trailer"
    else:
        table_offset = struct.unpack("<Q", data[-8:])[0]
        if table_offset < stream_start or table_offset > n - MIN_TRAILER_LEN or n - table_offset > MAX_TRAILER_BYTES:
            problem = "no index trailer"
        else:
            try:
                first, last, entries, _markers = parse_trailer(data, table_offset, stream_start)
            except FlrepError as e:
                problem = f"index trailer corrupt ({e})"
    if problem is None:
        chunks = []
        for k, (t, o) in enumerate(entries):
            end = entries[k + 1][1] if k + 1 < len(entries) else table_offset
            chunks.append({"offset": o, "end": end, "first": t})
        return hdr, sec, chunks, first, last, warnings, []
    # §13.3 forward scan
    scanned = []
    stop = None
    problems = []  # §13.3: a scan stopped by anything but a cut is corruption
    off = stream_start
    while off < n:
        b = data[off:off + CHUNK_HEADER_LEN]
        if len(b) >= 4 and b[:4] == b"FLIX":
            break
        try:
            h = parse_chunk_header(b, off, n)
        except ChunkHeaderError as e:
            if e.truncated:
                stop = f"the file ends inside the chunk at offset {off}: the recording was cut short"
            else:
                stop = f"stopped at offset {off}: {e}"
                problems.append(stop)
            break
        scanned.append(h)
        off = h["end"]
    if not scanned:
        raise FlrepError("the recording holds no complete chunk: nothing to play")
    for a, b in zip(scanned, scanned[1:]):
        if b["first"] <= a["last"]:
            raise FlrepError(f"chunk at offset {b['offset']}: starts at tick {b['first']}, not after the previous chunk's last tick {a['last']}")
    warnings.append(f"{problem}: index rebuilt by scanning {len(scanned)} chunks")
    if stop:
        warnings.append(stop)
    chunks = [{"offset": h["offset"], "end": h["end"], "first": h["first"]} for h in scanned]
    return hdr, sec, chunks, scanned[0]["first"], scanned[-1]["last"], warnings, problems


def chunk_header_for(data, ch, next_first=None):
    """§13.2: the header at an indexed chunk's offset must agree with the index (`next_first`: the
    next entry's keyframe tick, None for the last chunk)."""
    off = ch["offset"]
    try:
        h = parse_chunk_header(data[off:off + CHUNK_HEADER_LEN], off, len(data))
    except ChunkHeaderError as e:
        raise FlrepError(f"index entry for keyframe tick {ch['first']} points at offset {off}: {e}")
    if h["first"] != ch["first"]:
        raise FlrepError(f"index entry for keyframe tick {ch['first']} points at offset {off}: the chunk there starts at tick {h['first']}")
    if h["end"] != ch["end"]:
        raise FlrepError(f"index entry for keyframe tick {ch['first']} points at offset {off}: the chunk there ends at {h['end']}, the index says {ch['end']}")
    if next_first is not None and h["last"] >= next_first:
        raise FlrepError(f"chunk at offset {off}: ends at tick {h['last']}, not before the next chunk's keyframe tick {next_first}")
    return h


def dump(path, out):
    with open(path, "rb") as f:
        data = f.read()
    hdr, sec, chunks, first, last, warnings, problems = open_file(data)
    r = hdr["planet_radius_m"]
    info = {
        "format": "flrep",
        "format_major": hdr["format_major"],
        "format_minor": hdr["format_minor"],
        "engine_version": hdr["engine_version"],
        "tick_rate_hz": hdr["tick_rate_hz"],
        "world": {"kind": "flat"} if r == 0.0 else {"kind": "planet", "radius_m": r},
        "position_quantum_m": hdr["position_quantum_m"],
        "velocity_quantum_mps": hdr["velocity_quantum_mps"],
        "start_unix_seconds": hdr["start_unix_seconds"],
        "mission_id": hdr["mission_id"],
        "session_flags": hdr["session_flags"],
        "keyframe_interval_ticks": hdr["keyframe_interval_ticks"],
        "first_tick": first,
        "last_tick": last,
        "entity_types": sec["entity_types"],
        "factions": sec["factions"],
        "participants": sec["participants"],
        "mission_objects": sec["mission_objects"],
        "metadata": sec["metadata"],
        "warnings": warnings,
    }
    if problems:
        info["problems"] = problems
    out.write(json.dumps({"type": "info", "info": info}) + "\n")
    for k, ch in enumerate(chunks):
        h = chunk_header_for(data, ch, chunks[k + 1]["first"] if k + 1 < len(chunks) else None)
        if k + 1 == len(chunks) and h["last"] != last:  # §9, §13.2: the trailer's lastTick
            raise FlrepError(f"chunk at offset {h['offset']}: ends at tick {h['last']}, but the index's lastTick is {last}")
        ticks, events = decode_chunk(data, h)
        k = 0
        for idx, (tick, ents) in enumerate(ticks):
            out.write(json.dumps({"type": "tick", "tick": tick, "entities": ents}) + "\n")
            last_tick = idx + 1 == len(ticks)
            while k < len(events) and (last_tick or events[k]["tick"] <= tick):
                out.write(json.dumps({"type": "event", "event": events[k]}) + "\n")
                k += 1


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: flrep_reader.py FILE\n")
        return 2
    try:
        dump(argv[1], sys.stdout)
    except FlrepError as e:
        sys.stdout.flush()
        sys.stderr.write(f"flrep_reader: {argv[1]}: {e}\n")
        return 1
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
