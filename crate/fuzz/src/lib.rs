//! The fuzz harness: one plain `fn(&[u8])` per target, shared by the libFuzzer targets
//! (`crate/fuzz/fuzz_targets/*.rs`, one line each) and by the ordinary `cargo test` that replays every
//! committed crash input (`crate/tests/fuzz_regressions.rs` includes this file with `#[path]`).
//!
//! A target panics when a reader misbehaves: a panic inside the reader, a result that breaks an
//! invariant the player relies on, or a round trip that does not read back what was written. Errors
//! are fine: hostile bytes are supposed to be refused.
//!
//! A new reader joins by adding its functions here, a line to [`TARGETS`], a file in `fuzz_targets/`
//! and a `[[bin]]` in `crate/fuzz/Cargo.toml`, plus seeds in `crate/fuzz/seeds/<target>/`
//! (written by `cargo run --example make_hostile`). Nothing else changes.
//!
//! Dependencies: `replay_player` and `crc32fast` only (both are available to the crate's tests).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, dead_code)]

use replay_player::format::flrep::chunk::{ChunkHeader, CHUNK_HEADER_LEN};
use replay_player::format::flrep::header::{Header, Sections};
use replay_player::format::flrep::writer::{default_header, Writer, WriterOptions};
use replay_player::format::flrep::{self, ChunkDecoder, DecodedChunk, Limits, Opener, Step};
use replay_player::format::zstd::{self, Decompressor, ZstdError};
use replay_player::format::{OpenStep, Session};
use replay_player::model::{
    Category, EntityState, EntityType, Event, EventBody, Faction, MissionObject, Participant, TickRange,
};

/// A fuzz target's body: any bytes in, no panic out.
pub type Harness = fn(&[u8]);

/// Every target: (name, harness). The names are the `fuzz_targets/<name>.rs` binaries and the
/// directories under `crate/fuzz/regressions/` and `crate/fuzz/seeds/`.
pub const TARGETS: &[(&str, Harness)] = &[
    ("flrep_open", flrep_open),
    ("flrep_chunk", flrep_chunk),
    ("flrep_play", flrep_play),
    ("zstd_decode", zstd_decode),
    ("flrep_roundtrip", flrep_roundtrip),
    ("foldback_frames", foldback_frames),
    ("live_messages", live_messages),
    ("live_manifest", live_manifest),
];

// foldback_frames: the `.foldback` reader (files and live messages); the harness lives with the
// foldback tests, which also replay it over fixtures, every truncation and byte flips.
#[path = "../../tests/common/foldback_harness.rs"]
mod foldback_harness;
pub use foldback_harness::foldback_frames;

// live_messages, live_manifest: the live `.flrep` parsers (format::live); the harnesses live with
// the live tests (crate/tests/live_flrep.rs), which also run them over a valid stream, its cuts and flips.
#[path = "../../tests/common/live_harness.rs"]
mod live_harness;
pub use live_harness::{live_manifest, live_messages};

/// The most bytes a reader may ask for in one read while opening (the largest of the limits that
/// bound a read: the prefix and the trailer).
fn max_read(l: &Limits) -> u64 {
    l.max_prefix_bytes.max(l.max_trailer_bytes).max(flrep::open::FIRST_READ)
}

// ---------------------------------------------------------------------------------------------
// flrep_open: the sans-IO opener over the input (header, sections, trailer or scan), then every
// index entry checked against the chunk header it points at (what a seek does first).

pub fn flrep_open(data: &[u8]) {
    let limits = Limits::default();
    let file_len = data.len() as u64;
    let mut op = Opener::new(file_len, limits.clone());
    let mut input: Option<&[u8]> = None;
    // The scan reads one chunk header per step; anything beyond that is a loop.
    let max_steps = file_len / CHUNK_HEADER_LEN as u64 + 16;
    let mut steps = 0u64;
    let opened = loop {
        steps += 1;
        assert!(steps <= max_steps, "opener took more than {max_steps} steps on a {file_len}-byte file");
        match op.next(input) {
            Err(e) => {
                let _ = e.to_string();
                return;
            }
            Ok(Step::Need { offset, len }) => {
                let end = offset.checked_add(len).expect("read range overflows");
                assert!(end <= file_len, "opener asked for {offset}+{len}, past the end ({file_len})");
                assert!(len <= max_read(&limits), "opener asked for {len} bytes at once");
                input = Some(&data[offset as usize..end as usize]);
            }
            Ok(Step::Ready(o)) => break o,
        }
    };
    check_opened(&opened, file_len);
    let _ = opened.info();
    for i in 0..opened.chunks.len() {
        let c = opened.chunks[i];
        let hb = &data[c.offset as usize..(c.offset as usize + CHUNK_HEADER_LEN).min(data.len())];
        if let Ok(h) = ChunkHeader::parse(hb, c.offset, file_len, &limits) {
            let _ = opened.check_chunk(i, &h).map_err(|e| e.to_string());
        }
    }
    for t in [0, opened.first_tick, opened.last_tick, opened.last_tick.saturating_add(1), u64::MAX] {
        assert!(opened.chunk_for_tick(t) < opened.chunks.len().max(1));
    }
}

fn check_opened(o: &flrep::Opened, file_len: u64) {
    assert!(!o.chunks.is_empty(), "opened with no chunks");
    assert!(o.stream_start <= file_len);
    let mut prev: Option<flrep::open::ChunkRef> = None;
    for c in &o.chunks {
        assert!(c.offset >= o.stream_start, "chunk before the stream start");
        assert!(c.offset.checked_add(c.len).is_some_and(|e| e <= file_len), "chunk {c:?} past the end ({file_len})");
        assert!(c.len >= CHUNK_HEADER_LEN as u64, "chunk {c:?} shorter than a chunk header");
        if let Some(p) = prev {
            assert!(c.offset >= p.offset + p.len, "chunks overlap: {p:?} {c:?}");
            assert!(c.first_tick > p.first_tick, "chunk ticks not increasing: {p:?} {c:?}");
        }
        prev = Some(*c);
    }
}

// ---------------------------------------------------------------------------------------------
// flrep_chunk: one chunk alone. Mode byte (data[0] % 4):
//   0: the bytes are a chunk (36-byte header + frame), decoded with the default limits;
//   1: the same with small limits (8 live entities, 64 KiB chunks);
//   2, 3: the bytes are a chunk's *decompressed payload* (after 20 bytes giving tickCount, lastTick
//      and a limits choice): the harness wraps it in a valid zstd frame (raw blocks) with a correct
//      CRC, so the tick and record decoder is reached on every input instead of stopping at the CRC.
//      Seeds are real chunk payloads from the generator; libFuzzer mutates them.

pub fn flrep_chunk(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let small = Limits {
        max_live_entities: 8,
        max_chunk_uncompressed: 64 * 1024,
        max_chunk_compressed: 64 * 1024,
        max_chunk_states: 4096,
        ..Limits::default()
    };
    match mode % 4 {
        0 | 1 => {
            let limits = if mode % 4 == 0 { Limits::default() } else { small };
            let hb = &rest[..rest.len().min(CHUNK_HEADER_LEN)];
            let Ok(h) = ChunkHeader::parse(hb, 0, rest.len() as u64, &limits) else { return };
            let frame = &rest[CHUNK_HEADER_LEN..h.end() as usize];
            let mut dec = ChunkDecoder::new(limits.clone());
            if let Ok(c) = dec.decode(&h, frame) {
                check_chunk(&c, &h, &limits);
            }
        }
        _ => {
            if rest.len() < 14 {
                return;
            }
            let tick_count = u32::from(u16::from_le_bytes([rest[0], rest[1]]));
            let last_tick = u64::from_le_bytes(rest[2..10].try_into().unwrap());
            let use_small = rest[10] & 1 == 1;
            let payload = &rest[14..];
            let first_tick = payload.get(..8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).unwrap_or(0);
            let limits = if use_small { small } else { Limits::default() };
            let frame = raw_zstd_frame(payload);
            let mut bytes = Vec::with_capacity(CHUNK_HEADER_LEN + frame.len());
            let h = ChunkHeader {
                offset: 0,
                compressed_len: frame.len() as u32,
                uncompressed_len: payload.len() as u32,
                first_tick,
                last_tick: last_tick.max(first_tick),
                tick_count: tick_count.max(1),
                crc32: crc32fast::hash(payload),
            };
            h.write(&mut bytes);
            bytes.extend_from_slice(&frame);
            let Ok(h) = ChunkHeader::parse(&bytes[..CHUNK_HEADER_LEN], 0, bytes.len() as u64, &limits) else { return };
            let mut dec = ChunkDecoder::new(limits.clone());
            let whole = dec.decode(&h, &bytes[CHUNK_HEADER_LEN..]);
            if let Ok(c) = &whole {
                check_chunk(c, &h, &limits);
            }
            // A range (decode_range: from = bytes 11..13 past the first tick; byte 13: how much
            // further `to` is, the stride and the state budget), fresh and then resumed from where it stopped:
            // on a chunk that decodes whole, the same piece as cut from the whole chunk. (A range of
            // a chunk bad further on may decode.)
            let from = first_tick.saturating_add(u64::from(u16::from_le_bytes([rest[11], rest[12]])));
            let to = from.saturating_add(1 + u64::from(rest[13] & 15) * 4);
            let max_states = [1, 8, 64, usize::MAX][usize::from(rest[13] >> 6)];
            let r = TickRange { from, to, stride: 1 + u64::from((rest[13] >> 4) & 3), max_states };
            // Fresh (decompressed here), and on `dec`, which holds the payload of its whole decode
            // (rolled forward again without decompressing).
            let mut fresh = ChunkDecoder::new(limits.clone());
            let piece = fresh.decode_range(&h, &bytes[CHUNK_HEADER_LEN..], r);
            let again = dec.holds(h.offset).map(|_| dec.decode_range(&h, &[], r));
            if let Ok(c) = &whole {
                // Skipped (unknown-kind) event records: the decoder counts those of the piece's
                // ticks, a cut from a whole chunk only knows the chunk's total.
                let same = |p: &flrep::Piece, want: flrep::Piece| {
                    assert!(p.chunk.skipped_events <= c.skipped_events);
                    let mut p = p.clone();
                    let mut want = want;
                    p.chunk.skipped_events = 0;
                    want.chunk.skipped_events = 0;
                    assert_eq!(p, want);
                };
                let p = piece.expect("a chunk that decodes whole decodes any range");
                same(&p, c.range(r));
                if let Some(a) = again {
                    same(&a.expect("the held payload decodes any range"), c.range(r));
                }
                assert!(!p.chunk.ticks.is_empty());
                assert!(p.end.is_none_or(|e| e > from));
                if let Some(end) = p.end {
                    // The next range resumes without the chunk's bytes.
                    assert!(fresh.resumable(h.offset, end).is_some());
                    let r2 = TickRange { from: end, to: u64::MAX, ..r };
                    let next = fresh.decode_range(&h, &[], r2).expect("resuming a chunk that decodes whole");
                    same(&next, c.range(r2));
                }
            }
        }
    }
}

/// A zstd frame holding `payload` in raw (stored) blocks: what a chunk's frame is after decompression
/// is taken out of the picture. Window 1 MiB, no content size, blocks of at most 128 KiB.
pub fn raw_zstd_frame(payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(payload.len() + 16);
    f.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD]);
    f.push(0x00); // Frame_Header_Descriptor: no single segment, no checksum, no dictionary, no FCS
    f.push(10 << 3); // Window_Descriptor: 2^(10+10) = 1 MiB
    let mut blocks = payload.chunks(128 * 1024).peekable();
    if blocks.peek().is_none() {
        f.extend_from_slice(&[0x01, 0x00, 0x00]); // one empty last raw block
    }
    while let Some(b) = blocks.next() {
        let last = u32::from(blocks.peek().is_none());
        let h = last | ((b.len() as u32) << 3);
        f.extend_from_slice(&h.to_le_bytes()[..3]);
        f.extend_from_slice(b);
    }
    f
}

/// What every successfully decoded chunk must satisfy (the player indexes with these).
pub fn check_chunk(c: &DecodedChunk, h: &ChunkHeader, limits: &Limits) {
    assert_eq!(c.ticks.len(), h.tick_count as usize, "tick count differs from the header");
    assert_eq!(c.offsets.len(), c.ticks.len() + 1, "offsets length");
    assert_eq!(c.offsets.first().copied(), Some(0));
    assert_eq!(c.offsets.last().map(|o| *o as usize), Some(c.entities.len()), "last offset");
    assert!(c.offsets.windows(2).all(|w| w[0] <= w[1]), "offsets not monotonic");
    assert!(c.ticks.windows(2).all(|w| w[0] < w[1]), "ticks not increasing");
    assert_eq!(c.ticks.first().copied(), Some(h.first_tick));
    assert_eq!(c.ticks.last().copied(), Some(h.last_tick));
    assert!(c.entities.len() <= limits.max_chunk_states, "more entity states than the limit");
    for i in 0..c.ticks.len() {
        let e = c.tick_entities(i);
        assert!(e.len() <= limits.max_live_entities, "more live entities than the limit");
        assert!(e.windows(2).all(|w| w[0].id < w[1].id), "entities of a tick not sorted by unique id");
    }
}

// ---------------------------------------------------------------------------------------------
// flrep_play: open and decode every chunk to the end through `format::Session`, exactly as the Web
// Worker drives it (a range past the end is handed over short, as `Blob.slice` would).

pub fn flrep_play(data: &[u8]) {
    // The player's limits except a 1 MiB decompressed-chunk cap (16 MiB in the player): the same
    // code paths, but a hostile chunk declaring the cap costs a 1 MiB buffer per execution instead
    // of 16 MiB (zeroing it was 40% of this target's time). Inputs are ≤ 16 KiB, so a legitimate
    // chunk over 1 MiB would be a >64:1 frame, which `zstd_decode` and `flrep_chunk` cover.
    let limits = Limits { max_chunk_uncompressed: 1024 * 1024, ..Limits::default() };
    let file_len = data.len() as u64;
    let mut s =
        Session::with_limits(file_len, replay_player::format::Limits { flrep: limits.clone(), ..Default::default() });
    let mut input: Option<&[u8]> = None;
    let max_steps = file_len / CHUNK_HEADER_LEN as u64 + 16;
    let mut steps = 0u64;
    loop {
        steps += 1;
        assert!(steps <= max_steps, "open took more than {max_steps} steps");
        match s.next(input) {
            Err(e) => {
                let _ = e.to_string();
                return;
            }
            Ok(OpenStep::Need { offset, len }) => {
                assert!(len <= max_read(&limits), "session asked for {len} bytes at once");
                input = Some(slice_like_blob(data, offset, len));
            }
            Ok(OpenStep::Ready) => break,
        }
    }
    let info = s.info().expect("open session has info");
    assert!(info.first_tick <= info.last_tick || s.chunk_count() > 0);
    let (markers, _) = s.markers();
    let _ = markers.len();
    let mut last_tick: Option<u64> = None;
    for i in 0..s.chunk_count() {
        let (offset, len) = s.chunk_range(i).expect("chunk range");
        assert!(offset.checked_add(len).is_some_and(|e| e <= file_len), "chunk range past the end");
        let bytes = slice_like_blob(data, offset, len);
        match s.decode_chunk(i, bytes) {
            Ok(c) => {
                assert_eq!(c.offsets.len(), c.ticks.len() + 1);
                assert_eq!(c.offsets.last().map(|o| *o as usize), Some(c.entities.len()));
                assert!(c.ticks.windows(2).all(|w| w[0] < w[1]), "ticks not increasing");
                assert_eq!(
                    c.ticks.first().copied(),
                    s.chunk_first_tick(i),
                    "chunk starts at a tick other than its index entry"
                );
                assert!(c.entities.len() <= limits.max_chunk_states);
                if let (Some(p), Some(first)) = (last_tick, c.ticks.first()) {
                    assert!(
                        *first > p,
                        "chunk {i} starts at tick {first}, not after the previous chunk's last tick {p}"
                    );
                }
                last_tick = c.ticks.last().copied();
                for k in 0..c.ticks.len() {
                    assert!(c.tick_entities(k).len() <= limits.max_live_entities);
                }
            }
            Err(e) => {
                let _ = e.to_string();
                last_tick = None;
            }
        }
    }
}

fn slice_like_blob(data: &[u8], offset: u64, len: u64) -> &[u8] {
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(data.len());
    let end = usize::try_from(offset.saturating_add(len)).unwrap_or(usize::MAX).min(data.len());
    &data[start..end]
}

// ---------------------------------------------------------------------------------------------
// zstd_decode: the capped decompressor on arbitrary frames (first byte % 16 == 15: a round trip of the
// input through the compressor instead; one input in 16, as ruzstd's compressor costs ~10× a
// decode per byte and the decoder is what reads strangers' bytes).

pub fn zstd_decode(data: &[u8]) {
    // One decompressor for every input, as the worker keeps one for every chunk: a fresh one per
    // input zeroed a new output buffer of up to the cap each time (most of this target's time), and
    // reuse is what the player does, so a frame that leaves the decoder broken is found here.
    thread_local! {
        static DEC: std::cell::RefCell<Decompressor> = std::cell::RefCell::new(Decompressor::new());
    }
    DEC.with_borrow_mut(|d| zstd_decode_with(d, data));
}

fn zstd_decode_with(d: &mut Decompressor, data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 16 != 15 {
        if rest.len() < 2 {
            return;
        }
        // Caps up to 1 MiB (the real cap is 16 MiB; small caps reach the "too large" path sooner).
        let cap = usize::from(u16::from_le_bytes([rest[0], rest[1]])) * 16;
        let frame = &rest[2..];
        match d.decompress(frame, cap) {
            Ok(out) => assert!(out.len() <= cap, "decompressor returned {} bytes over the cap {cap}", out.len()),
            Err(ZstdError::TooLarge { cap: c }) => assert_eq!(c, cap),
            Err(e) => {
                let _ = e.to_string();
            }
        }
        // The same decoder must still work after whatever that frame did to it (the probe frame is
        // compressed once per process: compressing it per input was half of this target's time).
        static AFTER: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let z = AFTER.get_or_init(|| zstd::compress(b"after"));
        assert_eq!(d.decompress(z, 5).map(<[u8]>::to_vec), Ok(b"after".to_vec()), "decoder unusable after a bad frame");
    } else {
        // The compressor only ever sees our own writer's data, so its round trip is checked on the
        // first 1 KiB (longer inputs only made executions slower: instrumented, it is ~10× a decode).
        let rest = &rest[..rest.len().min(1024)];
        let z = zstd::compress(rest);
        let out = d.decompress(&z, rest.len()).expect("own frame decodes");
        assert_eq!(out, rest, "compress/decompress round trip differs");
        if !rest.is_empty() {
            assert_eq!(d.decompress(&z, rest.len() - 1), Err(ZstdError::TooLarge { cap: rest.len() - 1 }));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// flrep_roundtrip: arbitrary ticks of entity states and events → Writer → reader: every tick, state,
// event, kill marker and header field must read back equal.

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, r)) => {
                self.0 = r;
                *b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }
    fn i32(&mut self) -> i32 {
        self.u32() as i32
    }
    /// A value biased towards small numbers and the edges, as game data has.
    fn i32ish(&mut self) -> i32 {
        match self.u8() % 8 {
            0 => 0,
            1 => i32::from(self.u8() as i8),
            2 => i32::MAX - i32::from(self.u8()),
            3 => i32::MIN + i32::from(self.u8()),
            4 => i32::from(self.u16() as i16),
            _ => self.i32(),
        }
    }
    fn text(&mut self, max: usize) -> String {
        let n = usize::from(self.u8()).min(max).min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        String::from_utf8_lossy(a).into_owned()
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn arbitrary_state(u: &mut Bytes, id: u32) -> EntityState {
    EntityState {
        id,
        type_index: u.u16(),
        faction: u.u8(),
        pos: [u.i32ish(), u.i32ish(), u.i32ish()],
        orient: [u.u16() as i16, u.u16() as i16, u.u16() as i16, u.u16() as i16],
        vel: [u.i32ish(), u.i32ish(), u.i32ish()],
        health: u.u16(),
        flags: u.u32(),
        anim: if u.u8().is_multiple_of(4) { u.i32() } else { 0 },
    }
}

/// Changes a state the way a game tick does: mostly small steps, sometimes a jump or a field change.
fn evolve(u: &mut Bytes, s: &mut EntityState) {
    let op = u.u8();
    let step = |v: i32, d: i32| v.wrapping_add(d);
    if op & 1 != 0 {
        for k in 0..3 {
            s.pos[k] = step(s.pos[k], i32::from(u.u8() as i8));
        }
    }
    if op & 2 != 0 {
        for k in 0..4 {
            s.orient[k] = s.orient[k].wrapping_add(i16::from(u.u8() as i8));
        }
    }
    if op & 4 != 0 {
        for k in 0..3 {
            s.vel[k] = step(s.vel[k], i32::from(u.u8() as i8));
        }
    }
    if op & 8 != 0 {
        s.health = u.u16();
    }
    if op & 16 != 0 {
        s.flags = u.u32();
    }
    if op & 32 != 0 {
        s.anim = u.i32();
    }
    if op & 64 != 0 {
        s.type_index = u.u16();
        s.faction = u.u8();
    }
    if op & 128 != 0 {
        // A jump: a teleport, or a wrap across the whole i32 range.
        let k = usize::from(u.u8() % 3);
        s.pos[k] = u.i32ish();
        s.vel[k] = u.i32ish();
    }
}

fn arbitrary_event(u: &mut Bytes, tick: u64) -> Event {
    let body = match u.u8() % 7 {
        0 => EventBody::Kill { killer: u.u32(), victim: u.u32(), weapon_type: u.u16() },
        1 => EventBody::Spawn { entity: u.u32(), participant: u.u32() },
        2 => EventBody::Despawn { entity: u.u32(), reason: u.u8() },
        3 => EventBody::Chat { participant: u.u32(), channel: u.u8(), text: u.text(255) },
        4 => EventBody::Admin { participant: u.u32(), action: u.text(255), detail: u.text(255) },
        5 => EventBody::AlertLevel { level: u.u8() },
        _ => EventBody::Custom {
            kind: u.text(64),
            source: u.u32(),
            target: u.u32(),
            pos: [u.i32(), u.i32(), u.i32()],
            data: u.text(255),
        },
    };
    // Events usually carry their own tick; the record does not tie them to it.
    let t = if u.u8().is_multiple_of(8) { u.u64() } else { tick };
    Event { tick: t, body }
}

/// What the reader gives back for an event the writer was handed: text is truncated to 4,096 bytes
/// and control / bidi characters become U+FFFD (the reader's documented sanitising).
fn expected_event(e: &Event) -> Event {
    let t = |s: &String| replay_player::bytes::sanitize_text(replay_player::bytes::truncate_utf8(s, 4096).to_owned());
    let body = match &e.body {
        EventBody::Chat { participant, channel, text } => {
            EventBody::Chat { participant: *participant, channel: *channel, text: t(text) }
        }
        EventBody::Admin { participant, action, detail } => {
            EventBody::Admin { participant: *participant, action: t(action), detail: t(detail) }
        }
        EventBody::Custom { kind, source, target, pos, data } => {
            EventBody::Custom { kind: t(kind), source: *source, target: *target, pos: *pos, data: t(data) }
        }
        other => other.clone(),
    };
    Event { tick: e.tick, body }
}

/// A name the reader accepts (names with control or bidi characters are refused on read, by design).
fn clean_name(u: &mut Bytes) -> String {
    u.text(32).chars().filter(|c| !c.is_control() && !replay_player::bytes::is_bidi_control(*c)).collect()
}

pub fn flrep_roundtrip(data: &[u8]) {
    let mut u = Bytes(data);
    let interval = 15 + u32::from(u.u8() % 32);
    let mut header: Header =
        default_header(&clean_name(&mut u), 1 + u32::from(u.u8()), if u.u8() % 2 == 0 { 0.0 } else { 6_371_000.0 });
    header.mission_id = clean_name(&mut u);
    header.start_unix_seconds = u.u64();
    header.session_flags = u.u32();
    header.keyframe_interval_ticks = interval;
    let sections = Sections {
        entity_types: (0..u.u8() % 4)
            .map(|i| EntityType {
                index: u16::from(i),
                id: clean_name(&mut u),
                display_name: clean_name(&mut u),
                category: Category::from_u8(u.u8() % 5),
                projectile_kind: u.u8(),
            })
            .collect(),
        factions: (0..u.u8() % 3)
            .map(|i| Faction { index: i, id: clean_name(&mut u), display_name: clean_name(&mut u) })
            .collect(),
        participants: (0..u.u8() % 4)
            .map(|_| Participant { id: u.u32(), callsign: clean_name(&mut u), entity: u.u32(), faction: u.u8() })
            .collect(),
        mission_objects: (0..u.u8() % 3).map(|_| MissionObject { object_id: u.u32(), entity: u.u32() }).collect(),
        metadata: (0..u.u8() % 3).map(|_| (clean_name(&mut u), clean_name(&mut u))).collect(),
        skipped: Vec::new(),
    };
    // The ticks: ids from a small space (so entities come and go) or anywhere in u32.
    let mut tick = match u.u8() % 4 {
        0 => u.u64() >> 1,
        _ => u64::from(u.u16()),
    };
    let mut live: Vec<EntityState> = Vec::new();
    let mut ticks: Vec<(u64, Vec<EntityState>, Vec<Event>)> = Vec::new();
    let n_ticks = 1 + usize::from(u.u8() % 96);
    for _ in 0..n_ticks {
        let ops = u.u8();
        for _ in 0..(ops % 4) {
            let id = if u.u8() % 4 == 0 { u.u32() } else { u32::from(u.u8()) };
            if let Err(at) = live.binary_search_by_key(&id, |s| s.id) {
                let s = arbitrary_state(&mut u, id);
                live.insert(at, s);
            }
        }
        if ops & 0x10 != 0 && !live.is_empty() {
            let k = usize::from(u.u8()) % live.len();
            live.remove(k);
        }
        for s in live.iter_mut() {
            if u.is_empty() {
                break;
            }
            evolve(&mut u, s);
        }
        let events: Vec<Event> = (0..(ops >> 5) % 4).map(|_| arbitrary_event(&mut u, tick)).collect();
        ticks.push((tick, live.clone(), events));
        let gap = 1 + u64::from(u.u8() % 4) * u64::from(u.u8());
        match tick.checked_add(gap) {
            Some(t) => tick = t,
            None => break,
        }
    }

    let opts = WriterOptions { keyframe_interval_ticks: interval, ..Default::default() };
    let mut w = Writer::new(Vec::new(), &header, &sections, opts).expect("writer accepts the header");
    for (t, states, events) in &ticks {
        w.tick(*t, states, events).expect("writer accepts sorted states");
    }
    let file = w.finish().expect("writer finishes");

    let mut f = replay_player::io::FlrepFile::open(&file[..], Limits::default())
        .unwrap_or_else(|e| panic!("written file does not open: {e}"));
    let o = &f.opened;
    assert_eq!(o.index_source, flrep::open::IndexSource::Trailer, "the written trailer was not used: {:?}", o.warnings);
    assert!(o.warnings.is_empty(), "warnings on a written file: {:?}", o.warnings);
    let mut h_expect = header.clone();
    h_expect.format_major = flrep::FORMAT_MAJOR;
    h_expect.format_minor = flrep::FORMAT_MINOR;
    assert_eq!(o.header, h_expect, "header differs");
    assert_eq!(o.sections, sections, "sections differ");
    assert_eq!(o.first_tick, ticks[0].0);
    assert_eq!(o.last_tick, ticks.last().map(|t| t.0).unwrap_or(0));
    let kills: Vec<Event> =
        ticks.iter().flat_map(|t| t.2.iter()).filter(|e| matches!(e.body, EventBody::Kill { .. })).cloned().collect();
    assert_eq!(o.markers, kills, "kill markers differ");

    let mut got_ticks = 0usize;
    let n_chunks = o.chunks.len();
    for i in 0..n_chunks {
        let c = f.chunk(i).unwrap_or_else(|e| panic!("chunk {i} of a written file does not decode: {e}"));
        let mut ev = c.events.iter();
        for k in 0..c.ticks.len() {
            let (t, states, events) = &ticks[got_ticks];
            assert_eq!(c.ticks[k], *t, "tick {got_ticks} differs");
            assert_eq!(c.tick_entities(k), &states[..], "states of tick {t} differ");
            for e in events {
                assert_eq!(ev.next(), Some(&expected_event(e)), "event of tick {t} differs");
            }
            got_ticks += 1;
        }
        assert!(ev.next().is_none(), "chunk {i} has more events than were written");
        assert_eq!(c.skipped_events, 0);
    }
    assert_eq!(got_ticks, ticks.len(), "read back {got_ticks} ticks of {}", ticks.len());
}
