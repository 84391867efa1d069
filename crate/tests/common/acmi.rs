//! Test helpers for the exports: recordings made in memory, a whole-session read, and a small
//! ACMI reader that follows the format's rules (line continuation, `\,`), to check what the
//! exporter wrote. The independent reader is PyPI `pyacmi` (tests/acmi/check.sh).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::export::Span;
use replay_player::format::flrep::writer::Writer;
use replay_player::format::flrep::WriterOptions;
use replay_player::format::Session;
use replay_player::io::{open_session, read_chunk};
use replay_player::model::{state_hash, EntityState, Event, RecordingInfo};
use replay_player::sim::{Dogfight, DogfightConfig};

/// A dogfight `.flrep` in memory.
pub fn dogfight(seed: u64, entities: u32, seconds: f64, radius: f64) -> Vec<u8> {
    let cfg = DogfightConfig {
        seed,
        entities,
        seconds,
        planet_radius_m: radius,
        keyframe_interval_ticks: 60,
        ..DogfightConfig::default()
    };
    let mut sim = Dogfight::new(cfg.clone());
    let opts = WriterOptions { keyframe_interval_ticks: cfg.keyframe_interval_ticks, ..Default::default() };
    let mut w = Writer::new(Vec::new(), &sim.header(), &sim.sections(), opts).unwrap();
    while let Some((tick, states, events)) = sim.step() {
        w.tick(tick, states, &events).unwrap();
    }
    w.finish().unwrap()
}

pub fn open(bytes: &[u8]) -> (Session, Vec<u8>) {
    let mut src = bytes.to_vec();
    let s = open_session(&mut src).unwrap();
    (s, src)
}

/// One tick: its number, states and the events recorded in it.
pub type Tick = (u64, Vec<EntityState>, Vec<Event>);

/// Every tick of a recording, and its info.
pub fn ticks(bytes: &[u8]) -> (RecordingInfo, Vec<Tick>) {
    let (mut s, mut src) = open(bytes);
    let info = s.info().unwrap();
    let mut out = Vec::new();
    for i in 0..s.chunk_count() {
        let c = read_chunk(&mut s, &mut src, i).unwrap();
        c.for_each_tick(0, u64::MAX, |t, st, ev| -> Result<(), ()> {
            out.push((t, st.to_vec(), ev.to_vec()));
            Ok(())
        })
        .unwrap();
    }
    (info, out)
}

/// (tick, state hash) of every tick.
pub fn hashes(bytes: &[u8]) -> Vec<(u64, u64)> {
    ticks(bytes).1.iter().map(|(t, s, _)| (*t, state_hash(s))).collect()
}

/// The ACMI text of `span` of a recording.
pub fn export(bytes: &[u8], span: Option<Span>) -> String {
    let (mut s, mut src) = open(bytes);
    let span = span.unwrap_or_else(|| Span::all(&s.info().unwrap()));
    let (out, _) = replay_player::io::export::acmi(&mut s, &mut src, span, Vec::new()).unwrap();
    String::from_utf8(out).unwrap()
}

/// One logical ACMI line.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Header(String),
    Frame(f64),
    Remove(String),
    /// Object id and its properties (values unescaped).
    Object(String, Vec<(String, String)>),
}

/// Reads ACMI text by the format's rules: a line ending in `\` continues on the next (the line
/// feed kept); fields split at commas not preceded by `\`; `\,` is a comma.
pub fn read(text: &str) -> Vec<Line> {
    let mut logical = Vec::new();
    let mut cur = String::new();
    for l in text.split('\n') {
        if let Some(head) = l.strip_suffix('\\') {
            cur.push_str(head);
            cur.push('\n');
            continue;
        }
        cur.push_str(l);
        logical.push(std::mem::take(&mut cur));
    }
    assert_eq!(logical.last().map(String::as_str), Some(""), "the text must end with a line feed");
    logical.pop();
    logical
        .into_iter()
        .map(|l| {
            if l.starts_with("FileType=") || l.starts_with("FileVersion=") {
                return Line::Header(l);
            }
            if let Some(t) = l.strip_prefix('#') {
                return Line::Frame(t.parse().unwrap_or_else(|_| panic!("bad time frame {l:?}")));
            }
            if let Some(id) = l.strip_prefix('-') {
                return Line::Remove(id.to_string());
            }
            let mut fields = Vec::new();
            let mut f = String::new();
            let mut chars = l.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '\\' if chars.peek() == Some(&',') => {
                        f.push(',');
                        chars.next();
                    }
                    ',' => fields.push(std::mem::take(&mut f)),
                    c => f.push(c),
                }
            }
            fields.push(f);
            let id = fields.remove(0);
            let props = fields
                .into_iter()
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or_else(|| panic!("property without '=' in {l:?}"));
                    (k.to_string(), v.to_string())
                })
                .collect();
            Line::Object(id, props)
        })
        .collect()
}

/// What the exporter must make of a string in event text.
pub fn as_event_text(s: &str) -> String {
    s.replace("\r\n", "\n")
        .chars()
        .map(|c| match c {
            '|' => '¦',
            '\\' => '＼',
            '\n' => '\n',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}
