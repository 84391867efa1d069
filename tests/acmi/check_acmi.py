"""Reads an ACMI export back with PyPI pyacmi (an independent reader) and checks it against
`replay dump` of the same recording over the same ticks: the objects, their positions (within the
recording's position quantum), names, callsigns, removals, and the Destroyed / Message events.

Usage: check_acmi.py EXPORT.{txt,zip}.acmi DUMP.jsonl FROM_TICK TO_TICK NAME
"""
import contextlib
import io
import json
import math
import sys
import zipfile

from pyacmi.acmi import Acmi, AcmiFileReader

path, dump_path, from_tick, to_tick, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]


def fail(msg):
    print(f"FAIL {name}: {msg}")
    sys.exit(1)


def prop(s):
    """A string from the file as the exporter writes it in a property (docs/export.md)."""
    out = []
    s = s.replace("\r\n", "\n")
    for c in s:
        if c == "\\":
            out.append("\uff3c")
        elif c == "\n":
            out.append("\n")
        elif ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029\ufeff":
            out.append(" ")
        else:
            out.append(c)
    return "".join(out)


def event_text(s):
    return prop(s).replace("|", "\u00a6")


def unescape(v):
    return v.replace("\\,", ",")


def oid(entity):
    return format(entity + 1, "x")


# The recording, as `replay dump` prints it.
info = None
ticks = []  # (tick, entities, events)
for line in open(dump_path, encoding="utf-8"):
    o = json.loads(line)
    if o["type"] == "info":
        info = o["info"]
    elif o["type"] == "tick":
        ticks.append((o["tick"], o["entities"], []))
    elif o["type"] == "event" and ticks:
        ticks[-1][2].append(o["event"])
rng = [t for t in ticks if from_tick <= t[0] <= to_tick]
if not rng:
    fail("no tick in the range")
rate = info["tick_rate_hz"]
first = info["first_tick"]
q = info["position_quantum_m"]
world = info["world"]
types = {t["index"]: t for t in info["entity_types"]}

acmi = Acmi()
said = io.StringIO()
with contextlib.redirect_stdout(said):
    acmi.load_acmi(path)
# pyacmi reports each event line as an unknown global property (it keeps no events); anything
# else it says is shown.
for line in said.getvalue().splitlines():
    if line != "Unknown global property: Event":
        print(f"pyacmi ({name}): {line}")
if acmi.file_type != "text/acmi/tacview" or acmi.file_version != 2.2:
    fail(f"header {acmi.file_type} {acmi.file_version}")

# 1. The objects are the entities of the range.
want_ids = {oid(e["id"]) for _, ents, _ in rng for e in ents}
got_ids = set(acmi.objects.keys())
if want_ids != got_ids:
    fail(f"objects differ: only in dump {sorted(want_ids - got_ids)[:5]}, only in ACMI {sorted(got_ids - want_ids)[:5]}")

# 2. Positions at every tick, through the reader's own timeline (a tick without a frame keeps the
#    last frame's values).
frames = sorted(acmi.timeframes)
frame_at = {}
for f in frames:
    frame_at[first + round(f * rate)] = f
if min(frame_at) < from_tick or max(frame_at) > to_tick:
    fail(f"frames outside the range: ticks {min(frame_at)}..{max(frame_at)} for {from_tick}..{to_tick}")
cur = None
checked = 0
for tick, ents, _ in rng:
    cur = frame_at.get(tick, cur)
    if cur is None:
        fail(f"tick {tick} before the first frame")
    for e in ents:
        o = acmi.objects[oid(e["id"])]
        x, y, z = (v * q for v in e["pos"])
        lon, lat, alt = o.longitude(cur), o.latitude(cur), o.altitude(cur)
        if world["kind"] == "planet":
            R = world["radius_m"]
            r = math.sqrt(x * x + y * y + z * z)
            wlat = math.degrees(math.asin(max(-1.0, min(1.0, z / r)))) if r else 0.0
            wlon = math.degrees(math.atan2(y, x))
            walt = r - R
            m_per_deg = math.radians(R)
            dlon = abs(lon - wlon)
            dlon = min(dlon, 360 - dlon)
            if dlon * m_per_deg > q or abs(lat - wlat) * m_per_deg > q or abs(alt - walt) > q:
                fail(f"tick {tick} entity {e['id']}: {lon},{lat},{alt} vs {wlon},{wlat},{walt}")
        else:
            u, v = o.u(cur), o.v(cur)
            if abs(u - x) > q or abs(v - y) > q or abs(alt - z) > q:
                fail(f"tick {tick} entity {e['id']}: u|v|alt {u},{v},{alt} vs {x},{y},{z}")
        checked += 1

# 3. Names (the entity type's), callsigns (the roster's).
for _, ents, _ in rng[:1]:
    for e in ents:
        t = types.get(e["type_index"])
        if t is None:
            continue
        want = prop(t["display_name"] or t["id"])
        got = unescape(acmi.objects[oid(e["id"])].get_value("Name", frames[0]) or "")
        if got != want:
            fail(f"entity {e['id']} Name {got!r} vs {want!r}")
present = {e["id"] for e in rng[0][1]}
named = 0
for p in info["participants"]:
    if p["entity"] in present and p["entity"] != 4294967295:
        got = unescape(acmi.objects[oid(p["entity"])].get_value("CallSign", frames[0]) or "")
        if got != prop(p["callsign"]):
            fail(f"participant {p['id']} CallSign {got!r} vs {prop(p['callsign'])!r}")
        named += 1

# 4. Removals: an entity seen in the range and gone at its last tick was removed.
last_ids = {oid(e["id"]) for e in rng[-1][1]}
gone = want_ids - last_ids
removed = {k for k, o in acmi.objects.items() if o.removed_at is not None}
if not gone <= removed:
    fail(f"not removed: {sorted(gone - removed)[:5]}")

# 5. Events, read with pyacmi's own line reader (continuations) and field splitter (`\,`): it keeps
#    them as unknown global properties, so they are collected here.
if zipfile.is_zipfile(path):
    z = zipfile.ZipFile(path)
    names = z.namelist()
    if len(names) != 1 or not names[0].endswith(".txt.acmi"):
        fail(f"the zip must hold one .txt.acmi entry, holds {names}")
    fh = io.TextIOWrapper(z.open(names[0]), encoding="utf-8-sig")
else:
    fh = open(path, encoding="utf-8-sig")
events = []
for raw in AcmiFileReader(fh):
    line = raw.strip()
    if line.startswith("0,Event="):
        fields = Acmi.split_fields(line)
        if len(fields) != 2:
            fail(f"an event line split into {len(fields)} fields: {line!r}")
        events.append(unescape(fields[1].split("=", 1)[1]))
kills = [ev for _, _, evs in rng for ev in evs if ev["kind"] == "kill"]
destroyed = [e for e in events if e.startswith("Destroyed|")]
if [d.split("|")[1] for d in destroyed] != [oid(k["victim"]) for k in kills]:
    fail(f"{len(destroyed)} Destroyed events for {len(kills)} kills (or other victims)")
chats = [ev for _, _, evs in rng for ev in evs if ev["kind"] == "chat"]
messages = [e for e in events if e.startswith("Message|")]
if len(messages) != len(chats):
    fail(f"{len(messages)} Message events for {len(chats)} chats")
for m, c in zip(messages, chats):
    text = m.split("|", 2)[-1] if m.count("|") >= 2 else m.split("|", 1)[1]
    # The reader strips each physical line: compare without the edges' white space.
    if text.strip() != event_text(c["text"]).strip():
        fail(f"chat {c['text']!r} read back as {text!r}")

print(
    f"ok   {name}: {len(got_ids)} objects, {checked} positions, {named} callsigns, {len(removed)} removed, "
    f"{len(destroyed)} kills, {len(messages)} chats, {len(frames)} frames"
)
