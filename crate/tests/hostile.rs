//! The hostile corpus (tests/fixtures/hostile/, written by `cargo run --example make_hostile`): each
//! file must fail with ONE specific error, or recover with a specific warning and keep a known number
//! of ticks, in bounded time. The committed files must be exactly what the generator writes.
//!
//! `peak_memory` re-runs this test binary once per file (a fresh process) and reads its peak RSS
//! (VmHWM); run with `--nocapture` to see the table that docs/security.md quotes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../examples/make_hostile.rs"]
#[allow(clippy::duplicated_attributes)] // the example allows what this file allows too
#[allow(dead_code)]
mod make_hostile;

use replay_player::format::flrep::header::write_prefix;
use replay_player::format::flrep::open::IndexSource;
use replay_player::format::flrep::{DecodedChunk, Error, Limits, Opened};
use replay_player::format::zstd::ZstdError;
use replay_player::format::SessionError;
use replay_player::io::FlrepFile;
use replay_player::model::WorldKind;
use replay_player::sim::Dogfight;
use std::path::PathBuf;
use std::time::Instant;

fn path(name: &str) -> PathBuf {
    make_hostile::hostile_dir().join(format!("{name}.flrep"))
}

fn load(name: &str) -> Vec<u8> {
    std::fs::read(path(name))
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo run --example make_hostile`)", path(name).display()))
}

/// Opens with `limits` and decodes every chunk (as the player does when it plays to the end).
struct Outcome {
    open: Result<Opened, Error>,
    chunks: Vec<Result<DecodedChunk, Error>>,
}

impl Outcome {
    fn open_err(&self) -> &Error {
        match &self.open {
            Err(e) => e,
            Ok(o) => panic!("opened (chunks {}, warnings {:?}); expected an error", o.chunks.len(), o.warnings),
        }
    }
    fn opened(&self) -> &Opened {
        self.open.as_ref().unwrap_or_else(|e| panic!("open failed: {e}"))
    }
    fn chunk_err(&self, i: usize) -> &Error {
        match self.chunks.get(i) {
            Some(Err(e)) => e,
            Some(Ok(_)) => panic!("chunk {i} decoded; expected an error"),
            None => panic!("no chunk {i} (the file has {}); open: {:?}", self.chunks.len(), self.open.as_ref().err()),
        }
    }
    /// Ticks of the chunks that decode, stopping at the first that fails (what plays from the start).
    fn ticks(&self) -> usize {
        self.chunks.iter().map_while(|c| c.as_ref().ok()).map(|c| c.ticks.len()).sum()
    }
    fn warnings(&self) -> String {
        self.opened().warnings.join(" | ")
    }
}

fn run_with(name: &str, limits: Limits) -> Outcome {
    let bytes = load(name);
    // Bounded work is asserted by the limits each case hits (and memory by `peak_memory`); the time
    // each case takes is a figure `peak_memory` prints, not a test.
    match FlrepFile::open(&bytes[..], limits) {
        Err(e) => Outcome { open: Err(e), chunks: Vec::new() },
        Ok(mut f) => {
            let chunks = (0..f.opened.chunks.len()).map(|i| f.chunk(i)).collect();
            Outcome { open: Ok(f.opened.clone()), chunks }
        }
    }
}

fn run(name: &str) -> Outcome {
    run_with(name, Limits::default())
}

/// The base recording's shape: 3 chunks (keyframes at ticks 0, 15 and 30).
static BASE_TICKS: std::sync::LazyLock<usize> = std::sync::LazyLock::new(|| {
    let b = make_hostile::base();
    let mut f = FlrepFile::open(&b[..], Limits::default()).expect("base opens");
    assert_eq!(f.opened.chunks.iter().map(|c| c.first_tick).collect::<Vec<_>>(), [0, 15, 30]);
    (0..3).map(|i| f.chunk(i).expect("base decodes").ticks.len()).sum()
});

macro_rules! open_fails {
    ($name:ident, $pat:pat $(if $guard:expr)?) => {
        #[test]
        fn $name() {
            let o = run(stringify!($name));
            let e = o.open_err();
            assert!(matches!(e, $pat $(if $guard)?), "{}: got {e:?} ({e})", stringify!($name));
        }
    };
}

macro_rules! chunk_fails {
    ($name:ident, $i:expr, $pat:pat $(if $guard:expr)?) => {
        #[test]
        fn $name() {
            let o = run(stringify!($name));
            let e = o.chunk_err($i);
            assert!(matches!(e, $pat $(if $guard)?), "{}: chunk {}: got {e:?} ({e})", stringify!($name), $i);
        }
    };
}

// --- container and header ---------------------------------------------------------------------

open_fails!(bad_magic, Error::BadMagic { found } if found == b"NOPE");
open_fails!(empty, Error::TooShort { len: 0 });
open_fails!(too_short, Error::TooShort { len: 6 });
open_fails!(major_zero, Error::UnsupportedMajor { file_major: 0 });
open_fails!(header_len_beyond_file, Error::Truncated { what: "header", .. });
open_fails!(header_len_u32_max, Error::HeaderTooLarge { len: u32::MAX, .. });
open_fails!(section_len_beyond_file, Error::SectionOverrun { id: 1, len: 1_000_000, .. });
open_fails!(section_len_u32_max, Error::PrefixTooLarge { .. });
open_fails!(roster_count_near_2_32, Error::CountTooLarge { what: "participant", count: 0xFFFF_FFFF, .. });
open_fails!(mission_objects_count_near_2_32, Error::CountTooLarge { what: "mission object", count: 0xFFFF_FFFE, .. });
open_fails!(metadata_count_near_2_32, Error::CountTooLarge { what: "metadata entry", count: 0xFFFF_FFFF, .. });
open_fails!(types_count_u16_max, Error::CountTooLarge { what: "entity type", count: 0xFFFF, .. });
open_fails!(duplicate_section, Error::DuplicateSection { id: 1 });
open_fails!(missing_roster, Error::MissingSection { id: 3, .. });
open_fails!(end_marker_nonzero, Error::BadHeaderField { field: "section end marker length", .. });
open_fails!(string_oversized, Error::BadString { what: "engineVersion", reason, .. } if reason.contains("over the 4096-byte limit"));
open_fails!(string_not_utf8, Error::BadString { what: "callsign", reason, .. } if reason == "not valid UTF-8");
open_fails!(string_nul, Error::BadString { what: "faction name", reason, .. } if reason == "contains NUL");
open_fails!(string_bidi_override, Error::BadString { what: "callsign", reason, .. } if reason.contains("bidirectional"));
open_fails!(string_bidi_isolate_type_name, Error::BadString { what: "entity type name", reason, .. } if reason.contains("bidirectional"));
open_fails!(tick_rate_zero, Error::BadHeaderField { field: "tickRateHz", .. });
open_fails!(planet_radius_nan, Error::BadHeaderField { field: "planetRadiusM", value } if value == "NaN");
open_fails!(position_quantum_zero, Error::BadHeaderField { field: "positionQuantumM", .. });
open_fails!(keyframe_interval_zero, Error::BadHeaderField { field: "keyframeIntervalTicks", .. });
open_fails!(prefix_only, Error::NoChunks);

#[test]
fn planet_radius_negative_zero() {
    // −0.0 == 0: a flat world, not a refusal (docs/format/flrep.md §4.2); the writer writes +0.0.
    let o = run("planet_radius_negative_zero");
    assert!(o.opened().header.planet_radius_m.is_sign_negative());
    assert_eq!(o.opened().info().world, WorldKind::Flat);
    assert_eq!(o.ticks(), *BASE_TICKS);
    let sim = Dogfight::new(make_hostile::base_config());
    let mut h = sim.header();
    h.planet_radius_m = -0.0;
    let mut p = Vec::new();
    write_prefix(&mut p, &h, &sim.sections());
    let at = 12 + 2 + h.engine_version.len() + 4;
    assert_eq!(p[at..at + 8], 0.0f64.to_le_bytes());
}

#[test]
fn newer_major() {
    let o = run("newer_major");
    let e = o.open_err();
    assert!(
        matches!(e, Error::NewerMajor { file_major: 3, file_minor: 0, engine_version } if engine_version == "0.7.0"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "this replay was recorded by engine version 0.7.0 (format 3.0); this build reads format 1.x"
    );
}

#[test]
fn bad_magic_and_empty_through_the_session() {
    // The session (what the worker drives) sniffs first: a file no reader knows is UnknownFormat.
    for (name, shown) in [("bad_magic", "4E 4F 50 45"), ("empty", "none: the file is empty")] {
        let bytes = load(name);
        match replay_player::io::open_session(&mut &bytes[..]) {
            Err(SessionError::UnknownFormat(m)) => assert!(m.contains(shown), "{name}: {m}"),
            Err(e) => panic!("{name}: {e:?}"),
            Ok(_) => panic!("{name} opened"),
        }
    }
}

#[test]
fn metadata_value_free_text() {
    // Keys are names (refused); values are free text: kept, with control and bidi characters
    // replaced and the tab kept (docs/format/flrep.md §2.4, §5.6).
    let o = run("metadata_value_free_text");
    assert_eq!(
        o.opened().sections.metadata,
        [("note".to_string(), "line one\u{FFFD}line two\ttabbed \u{FFFD}evil\u{FFFD} end".to_string())]
    );
    assert_eq!(o.ticks(), *BASE_TICKS);
}

#[test]
fn unknown_section() {
    let o = run("unknown_section");
    assert!(o.warnings().contains("skipped sections this build does not read: 0x0042"), "{}", o.warnings());
    assert_eq!(o.ticks(), *BASE_TICKS);
}

// --- index trailer ----------------------------------------------------------------------------

#[test]
fn index_entry_past_end() {
    // The trailer's CRC is valid but an entry points outside the stream: the index is not trusted,
    // the file is scanned and plays whole.
    let o = run("index_entry_past_end");
    assert!(
        o.warnings().contains(
            "index trailer corrupt (index entry for tick 30 points at offset 1099511627776, outside the frame stream)"
        ),
        "{}",
        o.warnings()
    );
    assert_eq!(o.ticks(), *BASE_TICKS);
}

#[test]
fn index_entry_mid_chunk() {
    // A valid trailer whose entry for chunk 1 points 10 bytes into it: found when that chunk is read.
    let o = run("index_entry_mid_chunk");
    assert_eq!(o.opened().index_source, replay_player::format::flrep::open::IndexSource::Trailer);
    let e = o.chunk_err(1);
    assert!(
        matches!(e, Error::IndexEntryMismatch { expected_tick: 15, reason, .. } if reason.starts_with("no chunk starts there")),
        "{e:?}"
    );
    // Chunk 0 now ends where the index says chunk 1 starts, not where its header says.
    assert!(matches!(o.chunk_err(0), Error::IndexEntryMismatch { expected_tick: 0, .. }));
    assert!(o.chunks[2].is_ok());
}

#[test]
fn index_entry_wrong_chunk() {
    // A valid trailer whose entry for tick 15 points at the chunk of tick 30.
    let o = run("index_entry_wrong_chunk");
    let e = o.chunk_err(1);
    assert!(
        matches!(e, Error::IndexEntryMismatch { expected_tick: 15, reason, .. } if reason == "the chunk there starts at tick 30"),
        "{e:?}"
    );
    assert!(matches!(o.chunk_err(0), Error::IndexEntryMismatch { expected_tick: 0, .. }));
}

#[test]
fn index_last_tick_wrong() {
    // The trailer says the recording ends at tick 36; the last chunk ends at 35. Opening (3 reads)
    // cannot see it; reading the last chunk refuses it, the others play.
    let o = run("index_last_tick_wrong");
    assert_eq!((o.opened().index_source, o.opened().last_tick), (IndexSource::Trailer, 36));
    let e = o.chunk_err(2);
    assert!(
        matches!(e, Error::ChunkTickMismatch { reason, .. } if reason == "ends at tick 35, but the index's lastTick is 36"),
        "{e:?}"
    );
    assert!(o.chunks[0].is_ok() && o.chunks[1].is_ok());
}

#[test]
fn index_crc_corrupt() {
    let o = run("index_crc_corrupt");
    assert!(o.warnings().contains("index trailer corrupt (index checksum mismatch"), "{}", o.warnings());
    assert!(o.warnings().contains("index rebuilt by scanning 3 chunks"), "{}", o.warnings());
    assert_eq!(o.ticks(), *BASE_TICKS);
}

#[test]
fn index_table_offset_past_end() {
    let o = run("index_table_offset_past_end");
    assert!(o.warnings().starts_with("no index trailer: index rebuilt by scanning 3 chunks"), "{}", o.warnings());
    assert_eq!(o.ticks(), *BASE_TICKS);
}

#[test]
fn index_table_offset_in_last_40() {
    // 38 bytes from the offset to the end cannot hold a trailer (40 fixed bytes): "no index
    // trailer", the same as an offset outside the stream; the scan stops at the stub's "FLIX".
    let o = run("index_table_offset_in_last_40");
    assert_eq!(o.warnings(), "no index trailer: index rebuilt by scanning 3 chunks");
    assert_eq!(o.ticks(), *BASE_TICKS);
}

#[test]
fn no_index_trailer() {
    let o = run("no_index_trailer");
    assert_eq!(o.warnings(), "no index trailer: index rebuilt by scanning 3 chunks");
    assert_eq!(o.ticks(), *BASE_TICKS);
}

#[test]
fn scan_chunk_len_over_cap() {
    // The scan stops at a length over the limit: chunk 0 plays, and the stop is a problem
    // (corruption: validate fails), not "cut short".
    let o = run("scan_chunk_len_over_cap");
    let stop =
        "stopped at offset 1670: chunk at offset 1670: compressedLength 4294967295 exceeds the limit of 16777216 bytes";
    assert_eq!(o.warnings(), format!("no index trailer: index rebuilt by scanning 1 chunks | {stop}"));
    assert_eq!(o.opened().problems, [stop]);
    assert_eq!(o.opened().info().problems, [stop]);
    assert_eq!(o.ticks(), 15);
    // A cut is not a problem.
    assert!(run("cut_mid_chunk").opened().problems.is_empty());
}

#[test]
fn cut_mid_chunk() {
    // An interrupted recording: the last complete chunks play, the cut one is reported.
    let o = run("cut_mid_chunk");
    assert!(o.warnings().contains("the file ends inside the chunk at offset"), "{}", o.warnings());
    assert_eq!(o.opened().chunks.len(), 1);
    assert_eq!(o.ticks(), 15);
}

// --- chunk headers and zstd frames --------------------------------------------------------------

chunk_fails!(chunk_compressed_len_past_end, 0, Error::ChunkBeyondFile { .. });
chunk_fails!(
    chunk_compressed_len_over_cap,
    0,
    Error::ChunkTooLarge { field: "compressedLength", len: 0xFFFF_FFFF, .. }
);
chunk_fails!(
    chunk_uncompressed_len_over_cap,
    0,
    Error::ChunkTooLarge { field: "uncompressedLength", len: 0x7FFF_FFFF, .. }
);
chunk_fails!(chunk_tick_count_cannot_fit, 0, Error::ChunkTickMismatch { reason, .. } if reason.contains("cannot fit"));
chunk_fails!(chunk_size_declared_larger, 0, Error::ChunkSizeMismatch { .. });
chunk_fails!(chunk_size_declared_smaller, 0, Error::Zstd { err: ZstdError::TooLarge { .. }, .. });
chunk_fails!(chunk_crc_mismatch, 0, Error::ChunkChecksum { .. });
chunk_fails!(zstd_window_1gib, 0, Error::Zstd { err: ZstdError::Window(_), .. });
chunk_fails!(zstd_bomb_2gib, 0, Error::Zstd { err: ZstdError::TooLarge { cap: 65536 }, .. });
chunk_fails!(zstd_bomb_at_cap, 0, Error::Zstd { err: ZstdError::TooLarge { cap: 16777216 }, .. });
chunk_fails!(zstd_two_frames, 0, Error::Zstd { err: ZstdError::NotOneFrame(m), .. } if m.ends_with("bytes after the end of the frame"));
chunk_fails!(zstd_skippable_frame, 0, Error::Zstd { err: ZstdError::NotOneFrame(m), .. } if m.starts_with("a skippable frame (magic 0x184D2A53, 6 bytes)"));

#[test]
fn damaged_chunk_leaves_the_others_playable() {
    for name in ["chunk_crc_mismatch", "chunk_size_declared_larger", "chunk_compressed_len_over_cap"] {
        let o = run(name);
        assert!(o.chunks[1].is_ok() && o.chunks[2].is_ok(), "{name}");
    }
}

// --- tick and record payloads -----------------------------------------------------------------

chunk_fails!(record_mask_unknown_bits, 0, Error::BadRecord { tick: 11, entity: 1, reason, .. } if reason.contains("unknown bits"));
chunk_fails!(delta_unknown_entity, 0, Error::BadRecord { tick: 11, entity: 5, reason, .. } if reason.starts_with("delta record for an entity that is not in the world"));
chunk_fails!(remove_unknown_entity, 0, Error::BadRecord { tick: 11, entity: 3, reason, .. } if reason.starts_with("remove record"));
chunk_fails!(orientation_out_of_range, 0, Error::BadRecord { tick: 10, entity: 1, reason, .. } if reason == "orientation component 40000 out of range");
chunk_fails!(position_overflow, 0, Error::BadRecord { tick: 11, entity: 1, reason, .. } if reason.starts_with("position overflows"));
chunk_fails!(tick_not_increasing, 0, Error::BadTick { tick: 11, reason, .. } if reason.contains("does not increase"));
chunk_fails!(keyframe_inside_chunk, 0, Error::BadTick { tick: 11, reason, .. } if reason.contains("keyframe tick inside a chunk"));
chunk_fails!(first_tick_not_keyframe, 0, Error::ChunkTickMismatch { reason, .. } if reason.contains("keyframe: false"));
chunk_fails!(bytes_after_last_tick, 0, Error::ChunkTickMismatch { reason, .. } if reason.starts_with("9 bytes left"));
chunk_fails!(tick_flags_unknown, 0, Error::BadTick { tick: 11, reason, .. } if reason.contains("unknown tick flags 0x0100"));
chunk_fails!(record_varint_overlong, 0, Error::BadRecord { tick: 11, reason, .. } if reason.contains("malformed varint"));
chunk_fails!(event_len_beyond_payload, 0, Error::BadTick { tick: 10, reason, .. } if reason.contains("declares 1000 bytes"));
chunk_fails!(state_amplification, 0, Error::TooManyStates { max: 2_000_000, .. });
chunk_fails!(chunks_overlap_indexed, 0, Error::ChunkTickMismatch { reason, .. } if reason.contains("next chunk"));
open_fails!(chunks_overlap_scanned, Error::ChunkTickMismatch { reason, .. } if reason.contains("not after the previous chunk's last tick 20"));

#[test]
fn event_kind_unknown() {
    // Unknown event kinds are skipped by their length, not an error; the events around them stay.
    let o = run("event_kind_unknown");
    let c = o.chunks[0].as_ref().expect("decodes");
    assert_eq!(c.skipped_events, 1);
    assert_eq!(c.events.len(), 2);
    assert_eq!(o.ticks(), 1);
}

#[test]
fn live_entities_over_limit() {
    assert_eq!(run("live_entities_50").ticks(), 1, "50 entities are fine by default");
    let o = run_with("live_entities_50", Limits { max_live_entities: 16, ..Limits::default() });
    let e = o.chunk_err(0);
    assert!(matches!(e, Error::TooManyEntities { count: 50, max: 16, .. }), "{e:?}");
}

// --- the corpus as a whole --------------------------------------------------------------------

#[test]
fn committed_files_are_what_the_generator_writes() {
    let dir = make_hostile::hostile_dir();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/hostile")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".flrep"))
        .collect();
    on_disk.sort();
    let cases = make_hostile::cases();
    let mut names: Vec<String> = cases.iter().map(|(n, _)| format!("{n}.flrep")).collect();
    names.sort();
    assert_eq!(on_disk, names, "run `cargo run --example make_hostile` and commit tests/fixtures/hostile/");
    assert!(cases.len() >= 30);
    for (name, bytes) in &cases {
        assert!(
            load(name) == *bytes,
            "{name}.flrep differs from the generator: run `cargo run --example make_hostile`"
        );
    }
}

/// The environment variable that makes `peak_memory` its own child: open and decode one file in a
/// fresh process and print VmHWM and the time taken (the parent runs it once per file). One test, so
/// the count of passing tests is the count of tests that checked something.
const RSS_CHILD: &str = "HOSTILE_RSS_FILE";

fn peak_memory_child(name: &str) {
    let t = Instant::now();
    if !name.is_empty() {
        let bytes = std::fs::read(name).expect("file");
        if let Ok(mut f) = FlrepFile::open(&bytes[..], Limits::default()) {
            for i in 0..f.opened.chunks.len() {
                let _ = f.chunk(i);
            }
        }
    }
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("VmHWM: 0 kB");
    println!("@@{} {ms:.1}@@", hwm.trim_start_matches("VmHWM:").trim().trim_end_matches(" kB"));
}

/// (VmHWM kB, milliseconds) of opening and decoding `file` in a fresh process.
fn child_hwm_kb(file: &str) -> (u64, f64) {
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args(["peak_memory", "--exact", "--nocapture", "--test-threads=1"])
        .env(RSS_CHILD, file)
        .output()
        .expect("child runs");
    assert!(out.status.success(), "child for {file} failed: {}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8_lossy(&out.stdout);
    // The harness prints "test peak_memory ... " on the same line.
    let figures = s.split("@@").nth(1).expect("child printed VmHWM");
    let mut it = figures.split(' ');
    let kb = it.next().and_then(|v| v.parse().ok()).expect("VmHWM kB");
    let ms = it.next().and_then(|v| v.parse().ok()).expect("milliseconds");
    (kb, ms)
}

#[test]
#[cfg(target_os = "linux")]
fn peak_memory() {
    if let Ok(name) = std::env::var(RSS_CHILD) {
        peak_memory_child(&name);
        return;
    }
    let (base, _) = child_hwm_kb("");
    let mut rows = Vec::new();
    for (name, bytes) in make_hostile::cases() {
        let (kb, ms) = child_hwm_kb(&path(name).to_string_lossy());
        rows.push((name, bytes.len(), kb, ms));
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.2));
    eprintln!("peak RSS (VmHWM) and time opening + decoding each hostile file; the bare test process: {base} kB");
    for (name, len, kb, ms) in &rows {
        eprintln!("  {name:<36} {len:>8} bytes  {kb:>7} kB  (+{} kB)  {ms:>8.1} ms", kb.saturating_sub(base));
    }
    // The player's budget is 512 MiB; no hostile file may get anywhere near it. The largest uses the
    // limits allow: a decoded chunk of `max_chunk_states` (2M × 52 bytes ≈ 104 MiB, state_amplification
    // stops exactly there) and the 16 MiB decompression cap plus the 8 MiB zstd window.
    for (name, _, kb, _) in &rows {
        assert!(kb.saturating_sub(base) < 160 * 1024, "{name}: {kb} kB");
    }
}
