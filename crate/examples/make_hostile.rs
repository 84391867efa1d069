//! Writes the hostile `.flrep` corpus (tests/fixtures/hostile/) and the fuzz seed corpora
//! (crate/fuzz/seeds/<target>/). Deterministic: the same build writes the same bytes, and
//! crate/tests/hostile.rs checks that the committed files are exactly what this writes.
//!
//! `cargo run --example make_hostile` (from the repository root or crate/).
//!
//! Each hostile file is a small valid recording with one defect. What each must do (fail with which
//! error, or recover with which warning) is asserted in crate/tests/hostile.rs; the threat model and
//! the limits are in docs/security.md. A new reader adds its own cases in the same way.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, dead_code)]

use replay_player::bytes::PutLe;
use replay_player::format::flrep::chunk::{ChunkHeader, CHUNK_HEADER_LEN, TICK_KEYFRAME};
use replay_player::format::flrep::header::{
    put_section, write_prefix, Header, Sections, SECTION_END, SECTION_FACTIONS, SECTION_METADATA, SECTION_ROSTER,
    SECTION_TYPES,
};
use replay_player::format::flrep::trailer::{self, Trailer};
use replay_player::format::flrep::{self, record, Limits, TRAILER_MAGIC};
use replay_player::format::zstd;
use replay_player::model::{EntityState, Event, EventBody};
use replay_player::sim::{dogfight_bytes, Dogfight, DogfightConfig};
use std::path::{Path, PathBuf};

/// The small recording most cases start from: 6 aircraft, 31 ticks at 30 Hz, chunks of 15 ticks.
pub fn base_config() -> DogfightConfig {
    DogfightConfig {
        seed: 7,
        entities: 6,
        seconds: 1.2,
        tick_rate_hz: 30,
        keyframe_interval_ticks: 15,
        ..Default::default()
    }
}

pub fn base() -> Vec<u8> {
    dogfight_bytes(&base_config()).expect("generator")
}

/// Where the base file's parts are.
pub struct Layout {
    pub stream_start: usize,
    /// (offset, len) of each chunk.
    pub chunks: Vec<(usize, usize)>,
    pub table_offset: usize,
}

pub fn layout(file: &[u8]) -> Layout {
    let o = replay_player::io::open_flrep(&mut &file[..], &Limits::default()).expect("base opens");
    let table_offset = u64::from_le_bytes(file[file.len() - 8..].try_into().unwrap()) as usize;
    Layout {
        stream_start: o.stream_start as usize,
        chunks: o.chunks.iter().map(|c| (c.offset as usize, c.len as usize)).collect(),
        table_offset,
    }
}

fn header() -> Header {
    let sim = Dogfight::new(base_config());
    sim.header()
}

fn sections() -> Sections {
    Dogfight::new(base_config()).sections()
}

/// The header remainder as the writer lays it out (engineVersion first).
fn remainder(h: &Header) -> Vec<u8> {
    let mut r = Vec::new();
    r.put_str16(&h.engine_version);
    r.put_u32(h.tick_rate_hz);
    r.put_f64(h.planet_radius_m);
    r.put_u64(h.start_unix_seconds);
    r.put_str16(&h.mission_id);
    r.put_u32(h.session_flags);
    r.put_u32(h.keyframe_interval_ticks);
    r.put_f64(h.position_quantum_m);
    r.put_f64(h.velocity_quantum_mps);
    r
}

/// Fixed prefix + remainder + the given sections + the end marker.
fn prefix_raw(major: u16, minor: u16, rem: &[u8], sections: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(flrep::MAGIC);
    out.put_u16(major);
    out.put_u16(minor);
    out.put_u32(rem.len() as u32);
    out.extend_from_slice(rem);
    for (id, p) in sections {
        put_section(&mut out, *id, p);
    }
    out.put_u16(SECTION_END);
    out.put_u32(0);
    out
}

fn types_section(names: &[(&str, &str)]) -> Vec<u8> {
    let mut p = Vec::new();
    p.put_u16(names.len() as u16);
    for (i, (id, name)) in names.iter().enumerate() {
        p.put_u16(i as u16);
        p.put_str16(id);
        p.put_str16(name);
        p.put_u8(1);
        p.put_u8(0);
    }
    p
}

fn factions_section(names: &[(&str, &str)]) -> Vec<u8> {
    let mut p = Vec::new();
    p.put_u16(names.len() as u16);
    for (i, (id, name)) in names.iter().enumerate() {
        p.put_u8(i as u8);
        p.put_str16(id);
        p.put_str16(name);
    }
    p
}

/// Roster with raw callsign bytes (so a case can put invalid UTF-8 there).
fn roster_section(callsigns: &[&[u8]]) -> Vec<u8> {
    let mut p = Vec::new();
    p.put_u32(callsigns.len() as u32);
    for (i, c) in callsigns.iter().enumerate() {
        p.put_u32(i as u32 + 1);
        p.put_u16(c.len() as u16);
        p.extend_from_slice(c);
        p.put_u32(i as u32 + 1);
        p.put_u8(0);
    }
    p.put_u32(0);
    p
}

fn good_sections() -> Vec<(u16, Vec<u8>)> {
    vec![
        (SECTION_TYPES, types_section(&[("f16c", "F-16C Viper")])),
        (SECTION_FACTIONS, factions_section(&[("blue", "Blue Force"), ("red", "Red Force")])),
        (SECTION_ROSTER, roster_section(&[b"Maverick", b"Iceman"])),
    ]
}

/// The base file's frame stream and trailer after a new prefix (chunk offsets in the trailer moved).
fn with_prefix(prefix: Vec<u8>) -> Vec<u8> {
    let b = base();
    let l = layout(&b);
    let chunks: Vec<Vec<u8>> = l.chunks.iter().map(|&(o, n)| b[o..o + n].to_vec()).collect();
    assemble(prefix, &chunks, true)
}

/// prefix + chunks (+ a valid trailer).
fn assemble(prefix: Vec<u8>, chunks: &[Vec<u8>], with_trailer: bool) -> Vec<u8> {
    let mut out = prefix;
    let mut entries = Vec::new();
    let mut last_tick = 0;
    for c in chunks {
        let first = u64::from_le_bytes(c[12..20].try_into().unwrap());
        last_tick = u64::from_le_bytes(c[20..28].try_into().unwrap());
        entries.push((first, out.len() as u64));
        out.extend_from_slice(c);
    }
    if with_trailer {
        let t =
            Trailer { first_tick: entries.first().map(|e| e.0).unwrap_or(0), last_tick, entries, markers: Vec::new() };
        let off = out.len() as u64;
        trailer::write(&mut out, off, &t);
    }
    out
}

fn base_prefix() -> Vec<u8> {
    let mut p = Vec::new();
    write_prefix(&mut p, &header(), &sections());
    p
}

/// A chunk around an uncompressed payload, with a correct CRC and lengths.
fn chunk(first_tick: u64, last_tick: u64, tick_count: u32, payload: &[u8]) -> Vec<u8> {
    let frame = zstd::compress(payload);
    chunk_with_frame(first_tick, last_tick, tick_count, payload.len() as u32, crc32fast::hash(payload), &frame)
}

fn chunk_with_frame(
    first_tick: u64,
    last_tick: u64,
    tick_count: u32,
    uncompressed_len: u32,
    crc32: u32,
    frame: &[u8],
) -> Vec<u8> {
    let h = ChunkHeader {
        offset: 0,
        compressed_len: frame.len() as u32,
        uncompressed_len,
        first_tick,
        last_tick,
        tick_count,
        crc32,
    };
    let mut out = Vec::new();
    h.write(&mut out);
    out.extend_from_slice(frame);
    out
}

fn tick_header(p: &mut Vec<u8>, tick: u64, keyframe: bool, records: u16, events: u16) {
    p.put_u64(tick);
    p.put_u16(if keyframe { TICK_KEYFRAME } else { 0 });
    p.put_u16(records);
    p.put_u16(events);
}

fn state(id: u32) -> EntityState {
    EntityState {
        id,
        type_index: 0,
        faction: 0,
        pos: [100 * id as i32, 0, 8000],
        orient: [0, 0, 0, 32767],
        vel: [64, 0, 0],
        health: 10000,
        flags: 3,
        anim: 0,
    }
}

/// A keyframe tick holding entities `ids`.
fn keyframe(p: &mut Vec<u8>, tick: u64, ids: &[u32]) {
    tick_header(p, tick, true, ids.len() as u16, 0);
    let mut prev = None;
    for &id in ids {
        record::write_absolute(p, &state(id), prev);
        prev = Some(id);
    }
}

/// A one-chunk file over the given payload (ticks first..=last, count ticks), with a valid trailer.
fn one_chunk_file(first: u64, last: u64, count: u32, payload: &[u8]) -> Vec<u8> {
    assemble(base_prefix(), &[chunk(first, last, count, payload)], true)
}

fn event_bytes(e: &Event) -> Vec<u8> {
    let mut v = Vec::new();
    replay_player::format::flrep::event::write(&mut v, e);
    v
}

/// zstd frame header: magic, descriptor (no single segment, no FCS), window descriptor.
fn zstd_header(window_descriptor: u8) -> Vec<u8> {
    vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, window_descriptor]
}

/// Every hostile case: (file name without extension, bytes).
pub fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let b = base();
    let l = layout(&b);
    let h = header();
    let mut v: Vec<(&'static str, Vec<u8>)> = Vec::new();
    let patch = |at: usize, bytes: &[u8]| {
        let mut f = b.clone();
        f[at..at + bytes.len()].copy_from_slice(bytes);
        f
    };

    // --- container and header ---------------------------------------------------------------
    v.push(("bad_magic", patch(0, b"NOPE")));
    v.push(("empty", Vec::new()));
    v.push(("too_short", b"FLRP\x01\x00".to_vec()));
    {
        let mut h7 = h.clone();
        h7.engine_version = "0.7.0".into();
        let mut f = prefix_raw(3, 0, &remainder(&h7), &good_sections());
        f.extend_from_slice(&[0xAB; 64]); // a format-3 body this build cannot read
        v.push(("newer_major", f));
    }
    v.push(("major_zero", patch(4, &0u16.to_le_bytes())));
    v.push(("header_len_beyond_file", patch(8, &60_000u32.to_le_bytes())));
    v.push(("header_len_u32_max", patch(8, &u32::MAX.to_le_bytes())));
    {
        // The first section (types) declares more bytes than the file holds.
        let at = 12 + remainder(&h).len();
        let mut f = b.clone();
        f[at + 2..at + 6].copy_from_slice(&1_000_000u32.to_le_bytes());
        v.push(("section_len_beyond_file", f));
        let mut f = b.clone();
        f[at + 2..at + 6].copy_from_slice(&u32::MAX.to_le_bytes());
        v.push(("section_len_u32_max", f));
    }
    {
        let rem = remainder(&h);
        let mut s = good_sections();
        let mut roster = Vec::new();
        roster.put_u32(0xFFFF_FFFF); // participants
        roster.put_u32(1);
        s[2].1 = roster;
        v.push(("roster_count_near_2_32", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut s = good_sections();
        let mut roster = Vec::new();
        roster.put_u32(0);
        roster.put_u32(0xFFFF_FFFE); // mission objects
        roster.put_u64(0);
        s[2].1 = roster;
        v.push(("mission_objects_count_near_2_32", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut s = good_sections();
        let mut meta = Vec::new();
        meta.put_u32(0xFFFF_FFFF);
        meta.put_str16("k");
        meta.put_str16("v");
        s.push((SECTION_METADATA, meta));
        v.push(("metadata_count_near_2_32", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut s = good_sections();
        let mut types = Vec::new();
        types.put_u16(0xFFFF);
        types.extend_from_slice(&[0; 16]);
        s[0].1 = types;
        v.push(("types_count_u16_max", with_prefix(prefix_raw(1, 0, &rem, &s))));

        let mut s = good_sections();
        s.push((SECTION_TYPES, types_section(&[("x", "X")])));
        v.push(("duplicate_section", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut s = good_sections();
        s.remove(2);
        v.push(("missing_roster", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut s = good_sections();
        s.insert(1, (0x0042, b"a section from the future".to_vec()));
        v.push(("unknown_section", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut f = prefix_raw(1, 0, &rem, &good_sections());
        let n = f.len();
        f[n - 4..].copy_from_slice(&7u32.to_le_bytes());
        f.extend_from_slice(&[0; 7]);
        v.push(("end_marker_nonzero", f));

        // Strings.
        let mut hs = h.clone();
        hs.engine_version = "9".repeat(5000);
        v.push(("string_oversized", with_prefix(prefix_raw(1, 0, &remainder(&hs), &good_sections()))));
        let mut s = good_sections();
        s[2].1 = roster_section(&[b"Maverick", b"Ice\xFF\xFEman"]);
        v.push(("string_not_utf8", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut s = good_sections();
        s[1].1 = factions_section(&[("blue", "Blue\0Force"), ("red", "Red Force")]);
        v.push(("string_nul", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut s = good_sections();
        s[2].1 = roster_section(&[b"Maverick", "\u{202E}nimda".as_bytes()]);
        v.push(("string_bidi_override", with_prefix(prefix_raw(1, 0, &rem, &s))));
        let mut s = good_sections();
        s[0].1 = types_section(&[("f16c", "F-16C \u{2066}Viper\u{2069}")]);
        v.push(("string_bidi_isolate_type_name", with_prefix(prefix_raw(1, 0, &rem, &s))));
        // A metadata value is free text (docs/format/flrep.md §2.4, §5.6): kept, sanitised.
        let mut s = good_sections();
        let mut meta = Vec::new();
        meta.put_u32(1);
        meta.put_str16("note");
        meta.put_str16("line one\nline two\ttabbed \u{202E}evil\0 end");
        s.push((SECTION_METADATA, meta));
        v.push(("metadata_value_free_text", with_prefix(prefix_raw(1, 0, &rem, &s))));

        // Header fields.
        let field = |f: &dyn Fn(&mut Header)| {
            let mut hh = h.clone();
            f(&mut hh);
            with_prefix(prefix_raw(1, 0, &remainder(&hh), &good_sections()))
        };
        v.push(("tick_rate_zero", field(&|h| h.tick_rate_hz = 0)));
        v.push(("planet_radius_nan", field(&|h| h.planet_radius_m = f64::NAN)));
        v.push(("planet_radius_negative_zero", field(&|h| h.planet_radius_m = -0.0)));
        v.push(("position_quantum_zero", field(&|h| h.position_quantum_m = 0.0)));
        v.push(("keyframe_interval_zero", field(&|h| h.keyframe_interval_ticks = 0)));
    }

    // --- index trailer ------------------------------------------------------------------------
    let (c0, c1, c2) = (l.chunks[0], l.chunks[1], l.chunks[2]);
    let chunk_bytes: Vec<Vec<u8>> = l.chunks.iter().map(|&(o, n)| b[o..o + n].to_vec()).collect();
    let first_ticks: Vec<u64> = chunk_bytes.iter().map(|c| u64::from_le_bytes(c[12..20].try_into().unwrap())).collect();
    let last_tick = u64::from_le_bytes(chunk_bytes[2][20..28].try_into().unwrap());
    // A trailer written with the given entries (and a valid CRC) after the base file's chunks.
    let with_trailer = |entries: Vec<(u64, u64)>, last_tick: u64| {
        let mut f = b[..l.table_offset].to_vec();
        let t = Trailer { first_tick: first_ticks[0], last_tick, entries, markers: Vec::new() };
        trailer::write(&mut f, l.table_offset as u64, &t);
        f
    };
    let with_entries = |entries: Vec<(u64, u64)>| with_trailer(entries, last_tick);
    v.push((
        "index_entry_past_end",
        with_entries(vec![(first_ticks[0], c0.0 as u64), (first_ticks[1], c1.0 as u64), (first_ticks[2], 1 << 40)]),
    ));
    v.push((
        "index_entry_mid_chunk",
        with_entries(vec![
            (first_ticks[0], c0.0 as u64),
            (first_ticks[1], c1.0 as u64 + 10),
            (first_ticks[2], c2.0 as u64),
        ]),
    ));
    v.push((
        "index_entry_wrong_chunk",
        with_entries(vec![(first_ticks[0], c0.0 as u64), (first_ticks[1], c2.0 as u64)]),
    ));
    // A valid trailer whose lastTick is one past the last chunk's (docs/format/flrep.md §9, §13.2).
    let entries = vec![(first_ticks[0], c0.0 as u64), (first_ticks[1], c1.0 as u64), (first_ticks[2], c2.0 as u64)];
    v.push(("index_last_tick_wrong", with_trailer(entries, last_tick + 1)));
    {
        let mut f = b.clone();
        let at = l.table_offset + 4 + 4 + 8 + 8 + 4 + 16 + 8; // entry 1's offset: CRC now wrong
        f[at] ^= 0x01;
        v.push(("index_crc_corrupt", f));
        let n = b.len();
        v.push(("index_table_offset_past_end", patch(n - 8, &u64::MAX.to_le_bytes())));
        // A table offset 38 bytes before the end: a CRC-valid "FLIX" stub too short for the trailer's
        // 40 fixed bytes. No trailer (docs/format/flrep.md §13.1 step 3), not a corrupt one.
        let mut f = b[..l.table_offset].to_vec();
        let mut stub = TRAILER_MAGIC.to_vec();
        stub.extend_from_slice(&[0; 22]);
        let crc = crc32fast::hash(&stub);
        f.extend_from_slice(&stub);
        f.put_u32(crc);
        f.put_u64(l.table_offset as u64);
        v.push(("index_table_offset_in_last_40", f));
        v.push(("no_index_trailer", b[..l.table_offset].to_vec()));
        // No trailer, and chunk 1's compressedLength over the limit (and past the end): the scan stops
        // there, and that is corruption, not a cut (docs/format/flrep.md §13.3).
        let mut f = b[..l.table_offset].to_vec();
        f[c1.0 + 4..c1.0 + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        v.push(("scan_chunk_len_over_cap", f));
        v.push(("cut_mid_chunk", b[..c2.0 - 20].to_vec()));
        v.push(("prefix_only", b[..l.stream_start].to_vec()));
    }

    // --- chunk headers and zstd frames ----------------------------------------------------------
    let ch = |i: usize, field_at: usize, bytes: &[u8]| patch(l.chunks[i].0 + field_at, bytes);
    v.push(("chunk_compressed_len_past_end", ch(0, 4, &4_000_000u32.to_le_bytes())));
    v.push(("chunk_compressed_len_over_cap", ch(0, 4, &u32::MAX.to_le_bytes())));
    v.push(("chunk_uncompressed_len_over_cap", ch(0, 8, &0x7FFF_FFFFu32.to_le_bytes())));
    v.push(("chunk_tick_count_cannot_fit", ch(0, 28, &1_000_000u32.to_le_bytes())));
    {
        let uncompressed = u32::from_le_bytes(chunk_bytes[0][8..12].try_into().unwrap());
        v.push(("chunk_size_declared_larger", ch(0, 8, &(uncompressed + 10).to_le_bytes())));
        v.push(("chunk_size_declared_smaller", ch(0, 8, &(uncompressed - 10).to_le_bytes())));
        let crc = u32::from_le_bytes(chunk_bytes[0][32..36].try_into().unwrap());
        v.push(("chunk_crc_mismatch", ch(0, 32, &(crc ^ 0x8000_0000).to_le_bytes())));
    }
    {
        // A frame declaring a 1 GiB window (exponent 20 → 2^30): refused before any allocation.
        let mut frame = zstd_header(20 << 3);
        frame.extend_from_slice(&[0x01, 0x00, 0x00]);
        let c = chunk_with_frame(0, 0, 1, 64, 0, &frame);
        v.push(("zstd_window_1gib", assemble(base_prefix(), &[c], true)));
        // A decompression bomb: 16,384 RLE blocks of 128 KiB (2 GiB) in a 64 KiB frame, declared as
        // 64 KiB of ticks.
        let mut frame = zstd_header(13 << 3); // 8 MiB window: the largest accepted
        let blocks = 16_384u32;
        for i in 0..blocks {
            let last = u32::from(i + 1 == blocks);
            let hdr = last | (1 << 1) | ((128 * 1024) << 3);
            frame.extend_from_slice(&hdr.to_le_bytes()[..3]);
            frame.push(0);
        }
        let c = chunk_with_frame(0, 0, 1, 64 * 1024, 0, &frame);
        v.push(("zstd_bomb_2gib", assemble(base_prefix(), &[c], true)));
        // A smaller bomb (256 blocks: 32 MiB) declared at the largest accepted size (16 MiB).
        let mut frame = zstd_header(13 << 3);
        for i in 0..256u32 {
            let hdr = u32::from(i == 255) | (1 << 1) | ((128 * 1024) << 3);
            frame.extend_from_slice(&hdr.to_le_bytes()[..3]);
            frame.push(0);
        }
        let c = chunk_with_frame(0, 0, 1, 16 * 1024 * 1024, 0, &frame);
        v.push(("zstd_bomb_at_cap", assemble(base_prefix(), &[c], true)));
        // compressedLength holds exactly one frame (docs/format/flrep.md §6.2): a payload split into
        // two frames, and a skippable frame before the real one, both with a valid CRC.
        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1, 2]);
        let crc = crc32fast::hash(&p);
        let two = [zstd::compress(&p[..20]), zstd::compress(&p[20..])].concat();
        let c = chunk_with_frame(10, 10, 1, p.len() as u32, crc, &two);
        v.push(("zstd_two_frames", assemble(base_prefix(), &[c], true)));
        let mut skip = vec![0x53, 0x2A, 0x4D, 0x18, 6, 0, 0, 0];
        skip.extend_from_slice(b"hidden");
        skip.extend_from_slice(&zstd::compress(&p));
        let c = chunk_with_frame(10, 10, 1, p.len() as u32, crc, &skip);
        v.push(("zstd_skippable_frame", assemble(base_prefix(), &[c], true)));
    }

    // --- tick and record payloads (valid zstd, valid CRC: the decoder itself must refuse) ---------
    {
        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1, 2]);
        tick_header(&mut p, 11, false, 1, 0);
        p.put_varint(1); // id 1
        p.put_varint(1 << 12); // unknown presence bit
        v.push(("record_mask_unknown_bits", one_chunk_file(10, 11, 2, &p)));

        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1, 2]);
        tick_header(&mut p, 11, false, 1, 0);
        p.put_varint(5); // id 5: never added
        p.put_varint(record::HEALTH);
        p.put_varint(5000);
        v.push(("delta_unknown_entity", one_chunk_file(10, 11, 2, &p)));

        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1]);
        tick_header(&mut p, 11, false, 1, 0);
        p.put_varint(3);
        p.put_varint(record::REMOVE);
        v.push(("remove_unknown_entity", one_chunk_file(10, 11, 2, &p)));

        let mut p = Vec::new();
        tick_header(&mut p, 10, true, 1, 0);
        let mut s = Vec::new();
        record::write_absolute(&mut s, &state(1), None);
        // Re-write with an orientation component of 40,000 (over i16).
        s.clear();
        s.put_varint(1);
        s.put_varint(record::ABSOLUTE | record::ABSOLUTE_FIELDS);
        s.put_varint(0);
        s.put_u8(0);
        [0i64, 0, 0].iter().for_each(|x| s.put_svarint(*x));
        [40_000i64, 0, 0, 32767].iter().for_each(|x| s.put_svarint(*x));
        [0i64, 0, 0].iter().for_each(|x| s.put_svarint(*x));
        s.put_varint(100);
        s.put_varint(1);
        p.extend_from_slice(&s);
        v.push(("orientation_out_of_range", one_chunk_file(10, 10, 1, &p)));

        let mut p = Vec::new();
        tick_header(&mut p, 10, true, 1, 0);
        let mut st = state(1);
        st.pos = [i32::MAX - 1, 0, 0];
        st.vel = [0, 0, 0];
        record::write_absolute(&mut p, &st, None);
        tick_header(&mut p, 11, false, 1, 0);
        p.put_varint(1);
        p.put_varint(record::POS);
        [5i64, 0, 0].iter().for_each(|x| p.put_svarint(*x)); // i32::MAX - 1 + 5 overflows
        v.push(("position_overflow", one_chunk_file(10, 11, 2, &p)));

        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1]);
        tick_header(&mut p, 11, false, 0, 0);
        tick_header(&mut p, 11, false, 0, 0);
        v.push(("tick_not_increasing", one_chunk_file(10, 11, 3, &p)));

        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1]);
        keyframe(&mut p, 11, &[1]);
        v.push(("keyframe_inside_chunk", one_chunk_file(10, 11, 2, &p)));

        let mut p = Vec::new();
        tick_header(&mut p, 10, false, 0, 0);
        v.push(("first_tick_not_keyframe", one_chunk_file(10, 10, 1, &p)));

        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1]);
        p.extend_from_slice(&[0xEE; 9]);
        v.push(("bytes_after_last_tick", one_chunk_file(10, 10, 1, &p)));

        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1]);
        tick_header(&mut p, 11, false, 0, 0);
        let n = p.len();
        p[n - 6..n - 4].copy_from_slice(&0x0100u16.to_le_bytes()); // flags: an unknown bit
        v.push(("tick_flags_unknown", one_chunk_file(10, 11, 2, &p)));

        let mut p = Vec::new();
        keyframe(&mut p, 10, &[1]);
        tick_header(&mut p, 11, false, 1, 0);
        p.extend_from_slice(&[0xFF; 11]); // an over-long varint id
        v.push(("record_varint_overlong", one_chunk_file(10, 11, 2, &p)));

        let mut p = Vec::new();
        tick_header(&mut p, 10, true, 1, 1);
        record::write_absolute(&mut p, &state(1), None);
        p.put_u8(4); // chat
        p.put_u16(1000); // but only a few bytes follow
        p.extend_from_slice(&[0; 12]);
        v.push(("event_len_beyond_payload", one_chunk_file(10, 10, 1, &p)));

        let mut p = Vec::new();
        tick_header(&mut p, 10, true, 1, 3);
        record::write_absolute(&mut p, &state(1), None);
        p.extend_from_slice(&event_bytes(&Event { tick: 10, body: EventBody::AlertLevel { level: 2 } }));
        p.put_u8(200); // a kind from the future: skipped by its length
        p.put_u16(5);
        p.extend_from_slice(b"later");
        p.extend_from_slice(&event_bytes(&Event {
            tick: 10,
            body: EventBody::Chat { participant: 1, channel: 0, text: "still here".into() },
        }));
        v.push(("event_kind_unknown", one_chunk_file(10, 10, 1, &p)));

        // 50 entities at once: fine by default, refused under a 16-entity limit (the test sets it).
        let ids: Vec<u32> = (1..=50).collect();
        let mut p = Vec::new();
        keyframe(&mut p, 10, &ids);
        v.push(("live_entities_50", one_chunk_file(10, 10, 1, &p)));

        // Decoded-state amplification: 2,000 entities, then 20,000 empty ticks (14 bytes each) that
        // re-emit every live entity: 40 million states (2 GB) from a ~10 KB frame.
        let ids: Vec<u32> = (1..=2000).collect();
        let mut p = Vec::new();
        keyframe(&mut p, 0, &ids);
        for t in 1..20_000u64 {
            tick_header(&mut p, t, false, 0, 0);
        }
        v.push(("state_amplification", one_chunk_file(0, 19_999, 20_000, &p)));
    }

    // --- chunk order --------------------------------------------------------------------------
    {
        // Two chunks whose ticks overlap (0..=20, then 10..=12), once with a valid index and once
        // without (the scan path): both must refuse, not play time backwards.
        let mut p0 = Vec::new();
        keyframe(&mut p0, 0, &[1]);
        for t in 1..=20 {
            tick_header(&mut p0, t, false, 0, 0);
        }
        let mut p1 = Vec::new();
        keyframe(&mut p1, 10, &[1]);
        tick_header(&mut p1, 11, false, 0, 0);
        tick_header(&mut p1, 12, false, 0, 0);
        let chunks = [chunk(0, 20, 21, &p0), chunk(10, 12, 3, &p1)];
        v.push(("chunks_overlap_indexed", assemble(base_prefix(), &chunks, true)));
        v.push(("chunks_overlap_scanned", assemble(base_prefix(), &chunks, false)));
    }
    v
}

/// Seed inputs for each fuzz target: (target, file name, bytes).
pub fn seeds() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut out = Vec::new();
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("base", base()),
        (
            "flat_world",
            dogfight_bytes(&DogfightConfig {
                seed: 3,
                entities: 4,
                seconds: 1.0,
                tick_rate_hz: 20,
                planet_radius_m: 0.0,
                keyframe_interval_ticks: 15,
                ..Default::default()
            })
            .expect("gen"),
        ),
        (
            "busy",
            dogfight_bytes(&DogfightConfig {
                seed: 11,
                entities: 12,
                seconds: 2.0,
                tick_rate_hz: 30,
                keyframe_interval_ticks: 20,
                ..Default::default()
            })
            .expect("gen"),
        ),
    ];
    for (name, f) in &files {
        out.push(("flrep_open", format!("{name}.flrep"), f.clone()));
        out.push(("flrep_play", format!("{name}.flrep"), f.clone()));
        let l = layout(f);
        out.push(("flrep_open", format!("{name}_no_index.flrep"), f[..l.table_offset].to_vec()));
        for (i, &(o, n)) in l.chunks.iter().enumerate() {
            let c = &f[o..o + n];
            let mut mode0 = vec![0u8];
            mode0.extend_from_slice(c);
            out.push(("flrep_chunk", format!("{name}_c{i}_raw.bin"), mode0));
            // Mode 2: the decompressed payload, behind tickCount u16, lastTick u64, limits byte, pad.
            let h = ChunkHeader::parse(&c[..CHUNK_HEADER_LEN], 0, c.len() as u64, &Limits::default()).expect("chunk");
            let payload = zstd::Decompressor::new()
                .decompress(&c[CHUNK_HEADER_LEN..], h.uncompressed_len as usize)
                .expect("frame")
                .to_vec();
            let mut mode2 = vec![2u8];
            mode2.put_u16(h.tick_count as u16);
            mode2.put_u64(h.last_tick);
            mode2.extend_from_slice(&[0, 0, 0, 0]);
            mode2.extend_from_slice(&payload);
            out.push(("flrep_chunk", format!("{name}_c{i}_payload.bin"), mode2));
            let mut z = vec![0u8];
            z.put_u16(((h.uncompressed_len as usize).div_ceil(16)) as u16);
            z.extend_from_slice(&c[CHUNK_HEADER_LEN..]);
            out.push(("zstd_decode", format!("{name}_c{i}.zst.bin"), z));
            if i == 0 {
                let mut r = vec![1u8];
                r.extend_from_slice(&payload[..payload.len().min(2048)]);
                out.push(("zstd_decode", format!("{name}_roundtrip.bin"), r));
            }
        }
    }
    // The live parsers: a connection's messages (u16 length + bytes each, as the harness splits
    // them) and the segments' manifest, both of the "busy" recording.
    if let Some((_, f)) = files.iter().find(|(n, _)| *n == "busy") {
        let (msgs, manifest) = live_seeds(f);
        out.push(("live_messages", "busy_stream.bin".into(), msgs));
        out.push(("live_manifest", "manifest.json".into(), manifest));
    }
    // Round trip: pseudo-random byte strings (the harness reads them as a script of ticks).
    let mut rng = replay_player::sim::Rng::new(42);
    for i in 0..4 {
        let n = 256 << i;
        let bytes: Vec<u8> = (0..n).map(|_| (rng.next_u64() & 0xff) as u8).collect();
        out.push(("flrep_roundtrip", format!("random_{n}.bin"), bytes));
    }
    out
}

/// The live messages of a whole recording `f` (hello, prefix, chunks, goodbye) in the
/// `live_messages` harness's framing, and a manifest listing its chunks.
fn live_seeds(f: &[u8]) -> (Vec<u8>, Vec<u8>) {
    use replay_player::format::live::manifest::{FileRef, Manifest, Segment};
    use replay_player::format::live::message::{encode_chunk, encode_goodbye, encode_hello, encode_prefix};
    use replay_player::format::live::{Goodbye, Hello};
    let l = layout(f);
    let prefix = &f[..l.stream_start];
    let id = replay_player::format::live::stream_id(prefix);
    let mut msgs = vec![
        encode_hello(&Hello {
            version: 1,
            stream_id: id,
            first_seq: 0,
            head_seq: 0,
            tick_rate_hz: 30,
            chunk_ticks: 20,
        }),
        encode_prefix(prefix),
    ];
    let mut segments = Vec::new();
    for (i, &(o, n)) in l.chunks.iter().enumerate() {
        msgs.push(encode_chunk(i as u64, o as u64, &f[o..o + n]));
        let h = ChunkHeader::parse(&f[o..o + n], o as u64, f.len() as u64, &Limits::default()).expect("chunk");
        segments.push(Segment {
            seq: i as u64,
            uri: format!("chunk-{i:08}.flck"),
            offset: o as u64,
            bytes: n as u64,
            first_tick: h.first_tick,
            last_tick: h.last_tick,
            kills: Vec::new(),
        });
    }
    msgs.push(encode_goodbye(&Goodbye { end_seq: l.chunks.len() as u64, reason: "match_over".into() }));
    let mut joined = Vec::new();
    for m in &msgs {
        joined.put_u16(m.len() as u16);
        joined.extend_from_slice(m);
    }
    let m = Manifest {
        version: 1,
        stream: format!("{id:08x}"),
        tick_rate_hz: 30,
        chunk_ticks: 20,
        target_duration_s: 1,
        prefix: FileRef { uri: "prefix.flrep".into(), bytes: prefix.len() as u64 },
        segments,
        ended: true,
        file: Some(FileRef { uri: "recording.flrep".into(), bytes: f.len() as u64 }),
    };
    (joined, m.to_json().into_bytes())
}

fn root() -> PathBuf {
    // CARGO_MANIFEST_DIR is crate/; the repository root is its parent.
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

pub fn hostile_dir() -> PathBuf {
    root().join("tests/fixtures/hostile")
}

fn main() -> std::io::Result<()> {
    let dir = hostile_dir();
    std::fs::create_dir_all(&dir)?;
    let cases = cases();
    for (name, bytes) in &cases {
        std::fs::write(dir.join(format!("{name}.flrep")), bytes)?;
    }
    let l = layout(&base());
    println!(
        "base: {} bytes, stream at {}, chunks {:?}, table at {}",
        base().len(),
        l.stream_start,
        l.chunks,
        l.table_offset
    );
    println!("wrote {} hostile files to {}", cases.len(), dir.display());
    let seeds = seeds();
    for (target, name, bytes) in &seeds {
        let d = root().join("crate/fuzz/seeds").join(target);
        std::fs::create_dir_all(&d)?;
        std::fs::write(d.join(name), bytes)?;
    }
    println!("wrote {} fuzz seeds to {}", seeds.len(), root().join("crate/fuzz/seeds").display());
    Ok(())
}
