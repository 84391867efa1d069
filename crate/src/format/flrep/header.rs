//! File header (fixed prefix + length-prefixed remainder) and the section list.

use super::error::{strerr, trunc};
use super::{Error, Limits, FORMAT_MAJOR, MAGIC};
use crate::bytes::{name_problem, Cursor, PutLe};
use crate::model::{Category, EntityType, Faction, MissionObject, Participant};

pub const PREFIX_LEN: usize = 12;

pub const SECTION_END: u16 = 0x0000;
pub const SECTION_TYPES: u16 = 0x0001;
pub const SECTION_FACTIONS: u16 = 0x0002;
pub const SECTION_ROSTER: u16 = 0x0003;
pub const SECTION_CAMERA: u16 = 0x0004;
pub const SECTION_METADATA: u16 = 0x0005;

/// The header fields of format 1.0.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub format_major: u16,
    pub format_minor: u16,
    pub engine_version: String,
    pub tick_rate_hz: u32,
    /// 0 means a flat world (no planet).
    pub planet_radius_m: f64,
    pub start_unix_seconds: u64,
    pub mission_id: String,
    pub session_flags: u32,
    pub keyframe_interval_ticks: u32,
    pub position_quantum_m: f64,
    pub velocity_quantum_mps: f64,
}

/// The tables from the sections.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sections {
    pub entity_types: Vec<EntityType>,
    pub factions: Vec<Faction>,
    pub participants: Vec<Participant>,
    pub mission_objects: Vec<MissionObject>,
    pub metadata: Vec<(String, String)>,
    /// Ids of sections this build skipped (unknown ids and the reserved camera track).
    pub skipped: Vec<u16>,
}

/// Result of trying to parse the file prefix from the bytes at hand.
// One value per open, moved out at once: boxing `Done` would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum Prefix {
    /// Need the first `n` bytes of the file (more than were given).
    NeedBytes(u64),
    Done {
        header: Header,
        sections: Sections,
        stream_start: u64,
    },
}

fn name(c: &mut Cursor, what: &'static str, max: usize) -> Result<String, Error> {
    let at = c.offset();
    let s = c.str16(max).map_err(strerr(what))?;
    if let Some(reason) = name_problem(&s) {
        return Err(Error::BadString { what, at, reason: reason.into() });
    }
    Ok(s)
}

/// Parses header and sections from `buf`, which holds the first `buf.len()` bytes of a file of
/// `file_len` bytes.
pub fn parse_prefix(buf: &[u8], file_len: u64, limits: &Limits) -> Result<Prefix, Error> {
    if file_len < PREFIX_LEN as u64 {
        if buf.len() >= 4 && buf.get(..4) != Some(MAGIC.as_slice()) {
            let mut found = [0u8; 4];
            found.copy_from_slice(buf.get(..4).unwrap_or(&[0; 4]));
            return Err(Error::BadMagic { found });
        }
        return Err(Error::TooShort { len: file_len });
    }
    if buf.len() < PREFIX_LEN {
        return Ok(Prefix::NeedBytes(PREFIX_LEN as u64));
    }
    let mut c = Cursor::new(buf);
    let magic: [u8; 4] = c.array().map_err(trunc("header"))?;
    if &magic != MAGIC {
        return Err(Error::BadMagic { found: magic });
    }
    let major = c.u16().map_err(trunc("header"))?;
    let minor = c.u16().map_err(trunc("header"))?;
    let header_len = c.u32().map_err(trunc("header"))?;
    let header_end = PREFIX_LEN as u64 + u64::from(header_len);
    if major > FORMAT_MAJOR {
        // The fixed prefix and the engineVersion string that opens the remainder are frozen across
        // all majors, so the refusal can name the recorder.
        let need = (PREFIX_LEN + 2) as u64;
        if (buf.len() as u64) < need.min(file_len) {
            return Ok(Prefix::NeedBytes(need));
        }
        let mut probe = Cursor::at(buf.get(PREFIX_LEN..).unwrap_or(&[]), PREFIX_LEN as u64);
        let mut engine_version = String::new();
        if let Ok(len) = probe.u16() {
            let want = PREFIX_LEN as u64 + 2 + u64::from(len);
            if want <= file_len && (buf.len() as u64) < want && len as usize <= limits.max_string {
                return Ok(Prefix::NeedBytes(want));
            }
            if let Ok(bytes) = probe.take(usize::from(len)) {
                let s = String::from_utf8_lossy(bytes);
                engine_version =
                    s.chars().filter(|c| !c.is_control() && !crate::bytes::is_bidi_control(*c)).take(64).collect();
            }
        }
        return Err(Error::NewerMajor { file_major: major, file_minor: minor, engine_version });
    }
    if major < 1 {
        return Err(Error::UnsupportedMajor { file_major: major });
    }
    if header_len > limits.max_header_bytes {
        return Err(Error::HeaderTooLarge { len: header_len, max: limits.max_header_bytes });
    }
    if header_end > file_len {
        return Err(Error::Truncated {
            what: "header",
            short: crate::bytes::Short {
                at: PREFIX_LEN as u64,
                need: u64::from(header_len),
                have: file_len - PREFIX_LEN as u64,
            },
        });
    }
    if (buf.len() as u64) < header_end {
        return Ok(Prefix::NeedBytes(header_end));
    }
    let rem = c.take(header_len as usize).map_err(trunc("header"))?;
    let header = parse_header_body(rem, major, minor, limits)?;

    // Sections: [id u16][byteLength u32][payload] until the end marker (id 0, length 0).
    let mut sections = Sections::default();
    let mut seen: Vec<u16> = Vec::new();
    loop {
        let at = c.offset();
        if at + 6 > file_len {
            return Err(Error::Truncated {
                what: "section list",
                short: crate::bytes::Short { at, need: 6, have: file_len - at },
            });
        }
        if c.remaining() < 6 {
            return Ok(Prefix::NeedBytes(at + 6));
        }
        let id = c.u16().map_err(trunc("section header"))?;
        let len = c.u32().map_err(trunc("section header"))?;
        if id == SECTION_END {
            if len != 0 {
                return Err(Error::BadHeaderField { field: "section end marker length", value: len.to_string() });
            }
            break;
        }
        let end = c.offset() + u64::from(len);
        if end > limits.max_prefix_bytes {
            return Err(Error::PrefixTooLarge { len: end, max: limits.max_prefix_bytes });
        }
        if end > file_len {
            return Err(Error::SectionOverrun { id, at, len: u64::from(len), remaining: file_len - c.offset() });
        }
        let want = (end + 6).min(file_len);
        if (buf.len() as u64) < want {
            return Ok(Prefix::NeedBytes(want));
        }
        let payload = c.take(len as usize).map_err(trunc("section"))?;
        if seen.contains(&id) {
            return Err(Error::DuplicateSection { id });
        }
        seen.push(id);
        let base = end - u64::from(len);
        let mut p = Cursor::at(payload, base);
        match id {
            SECTION_TYPES => sections.entity_types = parse_types(&mut p, limits)?,
            SECTION_FACTIONS => sections.factions = parse_factions(&mut p, limits)?,
            SECTION_ROSTER => {
                let (parts, objs) = parse_roster(&mut p, limits)?;
                sections.participants = parts;
                sections.mission_objects = objs;
            }
            SECTION_METADATA => sections.metadata = parse_metadata(&mut p, limits)?,
            _ => sections.skipped.push(id),
        }
    }
    for (id, name) in
        [(SECTION_TYPES, "entity-type manifest"), (SECTION_FACTIONS, "faction table"), (SECTION_ROSTER, "roster")]
    {
        if !seen.contains(&id) {
            return Err(Error::MissingSection { id, name });
        }
    }
    Ok(Prefix::Done { header, sections, stream_start: c.offset() })
}

fn parse_header_body(rem: &[u8], major: u16, minor: u16, limits: &Limits) -> Result<Header, Error> {
    let mut c = Cursor::at(rem, PREFIX_LEN as u64);
    let engine_version = name(&mut c, "engineVersion", limits.max_string)?;
    let tick_rate_hz = c.u32().map_err(trunc("header"))?;
    let planet_radius_m = c.f64().map_err(trunc("header"))?;
    let start_unix_seconds = c.u64().map_err(trunc("header"))?;
    let mission_id = name(&mut c, "missionId", limits.max_string)?;
    let session_flags = c.u32().map_err(trunc("header"))?;
    let keyframe_interval_ticks = c.u32().map_err(trunc("header"))?;
    let position_quantum_m = c.f64().map_err(trunc("header"))?;
    let velocity_quantum_mps = c.f64().map_err(trunc("header"))?;
    // Anything after these is a field from a newer minor version: ignored.
    if tick_rate_hz == 0 || tick_rate_hz > 100_000 {
        return Err(Error::BadHeaderField { field: "tickRateHz", value: tick_rate_hz.to_string() });
    }
    // Numeric: −0.0 == 0.0, a flat world (docs/format/flrep.md §4.2).
    if !(planet_radius_m == 0.0 || (planet_radius_m.is_finite() && (1.0..=1.0e10).contains(&planet_radius_m))) {
        return Err(Error::BadHeaderField { field: "planetRadiusM", value: planet_radius_m.to_string() });
    }
    if keyframe_interval_ticks == 0 {
        return Err(Error::BadHeaderField { field: "keyframeIntervalTicks", value: "0".into() });
    }
    for (field, q) in [("positionQuantumM", position_quantum_m), ("velocityQuantumMps", velocity_quantum_mps)] {
        if !(q.is_finite() && (1.0e-6..=1.0e3).contains(&q)) {
            return Err(Error::BadHeaderField { field, value: q.to_string() });
        }
    }
    Ok(Header {
        format_major: major,
        format_minor: minor,
        engine_version,
        tick_rate_hz,
        planet_radius_m,
        start_unix_seconds,
        mission_id,
        session_flags,
        keyframe_interval_ticks,
        position_quantum_m,
        velocity_quantum_mps,
    })
}

/// Refuses a count whose records (each at least `min_size` bytes) cannot fit in what remains.
fn fits(c: &Cursor, what: &'static str, count: u64, min_size: u64) -> Result<usize, Error> {
    let max = c.remaining() as u64 / min_size.max(1);
    if count > max {
        return Err(Error::CountTooLarge { what, count, max });
    }
    Ok(count as usize)
}

fn parse_types(c: &mut Cursor, limits: &Limits) -> Result<Vec<EntityType>, Error> {
    let count = c.u16().map_err(trunc("entity-type manifest"))?;
    let n = fits(c, "entity type", u64::from(count), 8)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let index = c.u16().map_err(trunc("entity-type manifest"))?;
        let id = name(c, "entity type id", limits.max_string)?;
        let display_name = name(c, "entity type name", limits.max_string)?;
        let category = c.u8().map_err(trunc("entity-type manifest"))?;
        let projectile_kind = c.u8().map_err(trunc("entity-type manifest"))?;
        v.push(EntityType { index, id, display_name, category: Category::from_u8(category), projectile_kind });
    }
    Ok(v)
}

fn parse_factions(c: &mut Cursor, limits: &Limits) -> Result<Vec<Faction>, Error> {
    let count = c.u16().map_err(trunc("faction table"))?;
    let n = fits(c, "faction", u64::from(count), 5)?;
    if n > 256 {
        return Err(Error::CountTooLarge { what: "faction", count: n as u64, max: 256 });
    }
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let index = c.u8().map_err(trunc("faction table"))?;
        let id = name(c, "faction id", limits.max_string)?;
        let display_name = name(c, "faction name", limits.max_string)?;
        v.push(Faction { index, id, display_name });
    }
    Ok(v)
}

fn parse_roster(c: &mut Cursor, limits: &Limits) -> Result<(Vec<Participant>, Vec<MissionObject>), Error> {
    let count = c.u32().map_err(trunc("roster"))?;
    let n = fits(c, "participant", u64::from(count), 11)?;
    let mut parts = Vec::with_capacity(n);
    for _ in 0..n {
        let id = c.u32().map_err(trunc("roster"))?;
        let callsign = name(c, "callsign", limits.max_string)?;
        let entity = c.u32().map_err(trunc("roster"))?;
        let faction = c.u8().map_err(trunc("roster"))?;
        parts.push(Participant { id, callsign, entity, faction });
    }
    let count = c.u32().map_err(trunc("roster"))?;
    let n = fits(c, "mission object", u64::from(count), 8)?;
    let mut objs = Vec::with_capacity(n);
    for _ in 0..n {
        let object_id = c.u32().map_err(trunc("roster"))?;
        let entity = c.u32().map_err(trunc("roster"))?;
        objs.push(MissionObject { object_id, entity });
    }
    Ok((parts, objs))
}

fn parse_metadata(c: &mut Cursor, limits: &Limits) -> Result<Vec<(String, String)>, Error> {
    let count = c.u32().map_err(trunc("metadata"))?;
    let n = fits(c, "metadata entry", u64::from(count), 4)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let k = name(c, "metadata key", limits.max_string)?;
        // Values are free text: kept, with control and bidi characters replaced.
        let val = crate::bytes::sanitize_text(c.str16(limits.max_string).map_err(strerr("metadata value"))?);
        v.push((k, val));
    }
    Ok(v)
}

/// Writes the fixed prefix, header remainder and sections (with the end marker).
pub fn write_prefix(out: &mut Vec<u8>, h: &Header, s: &Sections) {
    let n = |v: &str| crate::bytes::clean_name(v, 4096);
    let mut rem = Vec::new();
    rem.put_str16(&n(&h.engine_version));
    rem.put_u32(h.tick_rate_hz);
    // A flat world is written +0.0 (a reader takes −0.0 as flat too: docs/format/flrep.md §4.2).
    rem.put_f64(if h.planet_radius_m == 0.0 { 0.0 } else { h.planet_radius_m });
    rem.put_u64(h.start_unix_seconds);
    rem.put_str16(&n(&h.mission_id));
    rem.put_u32(h.session_flags);
    rem.put_u32(h.keyframe_interval_ticks);
    rem.put_f64(h.position_quantum_m);
    rem.put_f64(h.velocity_quantum_mps);
    out.extend_from_slice(MAGIC);
    out.put_u16(h.format_major);
    out.put_u16(h.format_minor);
    out.put_u32(rem.len() as u32);
    out.extend_from_slice(&rem);

    let mut p = Vec::new();
    p.put_u16(s.entity_types.len() as u16);
    for t in &s.entity_types {
        p.put_u16(t.index);
        p.put_str16(&n(&t.id));
        p.put_str16(&n(&t.display_name));
        p.put_u8(t.category as u8);
        p.put_u8(t.projectile_kind);
    }
    put_section(out, SECTION_TYPES, &p);
    p.clear();
    p.put_u16(s.factions.len() as u16);
    for f in &s.factions {
        p.put_u8(f.index);
        p.put_str16(&n(&f.id));
        p.put_str16(&n(&f.display_name));
    }
    put_section(out, SECTION_FACTIONS, &p);
    p.clear();
    p.put_u32(s.participants.len() as u32);
    for r in &s.participants {
        p.put_u32(r.id);
        p.put_str16(&n(&r.callsign));
        p.put_u32(r.entity);
        p.put_u8(r.faction);
    }
    p.put_u32(s.mission_objects.len() as u32);
    for m in &s.mission_objects {
        p.put_u32(m.object_id);
        p.put_u32(m.entity);
    }
    put_section(out, SECTION_ROSTER, &p);
    if !s.metadata.is_empty() {
        p.clear();
        p.put_u32(s.metadata.len() as u32);
        for (k, v) in &s.metadata {
            p.put_str16(&n(k));
            p.put_str16(crate::bytes::truncate_utf8(v, 4096));
        }
        put_section(out, SECTION_METADATA, &p);
    }
    out.put_u16(SECTION_END);
    out.put_u32(0);
}

pub fn put_section(out: &mut Vec<u8>, id: u16, payload: &[u8]) {
    out.put_u16(id);
    out.put_u32(payload.len() as u32);
    out.extend_from_slice(payload);
}
