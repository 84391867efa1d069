//! The HTTP segments' manifest (`manifest.json`, docs/live.md "Segments"): one type the source
//! writes ([`Manifest::to_json`]) and the viewer reads ([`Manifest::parse`]), with serde_json (the
//! `json` feature: not in the first-load decoder wasm, which has no serde; docs/ARCHITECTURE.md).
//!
//! A manifest comes from a server and is as hostile as a file: its size, its lists and its strings
//! are bounded, the segments it lists must follow each other (seq, offset, ticks), and a URI is a
//! plain file name beside the manifest (no scheme, no `/`, no `..`), so a manifest cannot send the
//! viewer to another origin.

use serde::{Deserialize, Serialize};

pub const MANIFEST_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub version: u32,
    /// [`super::stream_id`] of the prefix, as 8 lowercase hex digits.
    pub stream: String,
    pub tick_rate_hz: u32,
    /// Ticks per chunk the source writes (the latency floor: docs/live.md).
    pub chunk_ticks: u32,
    /// The longest listed segment in seconds, rounded up (HLS's target duration: poll about this often).
    pub target_duration_s: u32,
    /// The file's header + sections.
    pub prefix: FileRef,
    /// The segments listed, in order (a window of the latest when the source keeps one).
    pub segments: Vec<Segment>,
    /// The recording is over: no segment will be added.
    pub ended: bool,
    /// The complete recording (with its index trailer), once ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<FileRef>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileRef {
    pub uri: String,
    pub bytes: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Segment {
    /// The chunk's sequence number (its index in the file).
    pub seq: u64,
    pub uri: String,
    /// Where the chunk starts in the complete file.
    pub offset: u64,
    pub bytes: u64,
    pub first_tick: u64,
    pub last_tick: u64,
    /// The chunk's kills, for the timeline before the chunk is fetched.
    #[serde(default)]
    pub kills: Vec<Kill>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Kill {
    pub tick: u64,
    pub killer: u32,
    pub victim: u32,
    pub weapon: u16,
}

/// Bounds on what a manifest may hold.
#[derive(Clone, Debug)]
pub struct ManifestLimits {
    pub max_bytes: usize,
    pub max_segments: usize,
    pub max_kills_per_segment: usize,
    /// Largest segment (a chunk: its header and the largest compressed chunk).
    pub max_segment_bytes: u64,
    pub max_prefix_bytes: u64,
    pub max_file_bytes: u64,
}

impl Default for ManifestLimits {
    fn default() -> Self {
        let f = crate::format::flrep::Limits::default();
        ManifestLimits {
            // A 3-hour match in 2-second chunks lists 5,400 segments (~700 KB with a few kills each).
            max_bytes: 8 * 1024 * 1024,
            max_segments: 20_000,
            max_kills_per_segment: 4096,
            max_segment_bytes: 36 + u64::from(f.max_chunk_compressed),
            max_prefix_bytes: f.max_prefix_bytes,
            max_file_bytes: 1 << 40,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManifestError {
    TooLarge { len: usize, max: usize },
    Json(String),
    NewerVersion { got: u32 },
    BadVersion,
    Bad(String),
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ManifestError::TooLarge { len, max } => write!(f, "manifest of {len} bytes is over the limit of {max}"),
            ManifestError::Json(m) => write!(f, "manifest is not valid JSON of the manifest's shape: {m}"),
            ManifestError::NewerVersion { got } => {
                write!(f, "manifest version {got}; this build reads version {MANIFEST_VERSION}")
            }
            ManifestError::BadVersion => write!(f, "manifest version 0 is not a version"),
            ManifestError::Bad(m) => write!(f, "bad manifest: {m}"),
        }
    }
}
impl std::error::Error for ManifestError {}

/// A URI the manifest may name: a file name of 1 to 64 of `[A-Za-z0-9._-]`, not starting with a dot.
pub fn safe_uri(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && !s.starts_with('.')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

fn bad(m: String) -> ManifestError {
    ManifestError::Bad(m)
}

impl Manifest {
    /// Parses and checks a manifest's bytes.
    pub fn parse(bytes: &[u8], limits: &ManifestLimits) -> Result<Manifest, ManifestError> {
        if bytes.len() > limits.max_bytes {
            return Err(ManifestError::TooLarge { len: bytes.len(), max: limits.max_bytes });
        }
        // A version check first, so that a newer manifest of another shape says so.
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let v: Version = serde_json::from_slice(bytes).map_err(|e| ManifestError::Json(e.to_string()))?;
        if v.version == 0 {
            return Err(ManifestError::BadVersion);
        }
        if v.version > MANIFEST_VERSION {
            return Err(ManifestError::NewerVersion { got: v.version });
        }
        let m: Manifest = serde_json::from_slice(bytes).map_err(|e| ManifestError::Json(e.to_string()))?;
        m.check(limits)?;
        Ok(m)
    }

    /// The rules [`Self::parse`] applies after the JSON: bounds, order, names.
    pub fn check(&self, limits: &ManifestLimits) -> Result<(), ManifestError> {
        if self.stream.len() != 8 || !self.stream.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(bad(format!(
                "stream {:?} is not 8 lowercase hex digits",
                crate::bytes::clean_name(&self.stream, 32)
            )));
        }
        if self.tick_rate_hz == 0 || self.chunk_ticks == 0 {
            return Err(bad(format!(
                "tick rate {} Hz and {} ticks per chunk must be positive",
                self.tick_rate_hz, self.chunk_ticks
            )));
        }
        check_ref("prefix", &self.prefix, limits.max_prefix_bytes)?;
        if let Some(f) = &self.file {
            check_ref("file", f, limits.max_file_bytes)?;
            if !self.ended {
                return Err(bad("a complete file is named but the recording has not ended".into()));
            }
        }
        if self.segments.len() > limits.max_segments {
            return Err(bad(format!(
                "{} segments listed, over the limit of {}",
                self.segments.len(),
                limits.max_segments
            )));
        }
        let mut prev: Option<&Segment> = None;
        for s in &self.segments {
            if !safe_uri(&s.uri) {
                return Err(bad(format!("segment {}: its URI is not a plain file name", s.seq)));
            }
            if s.bytes < 36 || s.bytes > limits.max_segment_bytes {
                return Err(bad(format!(
                    "segment {}: {} bytes is outside [36, {}]",
                    s.seq, s.bytes, limits.max_segment_bytes
                )));
            }
            if s.last_tick < s.first_tick {
                return Err(bad(format!("segment {}: ticks {}..={} run backwards", s.seq, s.first_tick, s.last_tick)));
            }
            if s.offset < self.prefix.bytes {
                return Err(bad(format!("segment {}: offset {} is inside the prefix", s.seq, s.offset)));
            }
            if s.kills.len() > limits.max_kills_per_segment {
                return Err(bad(format!(
                    "segment {}: {} kills, over the limit of {}",
                    s.seq,
                    s.kills.len(),
                    limits.max_kills_per_segment
                )));
            }
            if let Some(p) = prev {
                if p.seq.checked_add(1) != Some(s.seq) {
                    return Err(bad(format!("segment {} follows segment {}", s.seq, p.seq)));
                }
                if p.offset.checked_add(p.bytes) != Some(s.offset) {
                    return Err(bad(format!(
                        "segment {} starts at offset {}; segment {} ended at {}",
                        s.seq,
                        s.offset,
                        p.seq,
                        p.offset.saturating_add(p.bytes)
                    )));
                }
                if s.first_tick <= p.last_tick {
                    return Err(bad(format!(
                        "segment {} starts at tick {}, not after tick {}",
                        s.seq, s.first_tick, p.last_tick
                    )));
                }
            }
            prev = Some(s);
        }
        Ok(())
    }

    /// The manifest as JSON (what the source writes).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

fn check_ref(what: &str, r: &FileRef, max: u64) -> Result<(), ManifestError> {
    if !safe_uri(&r.uri) {
        return Err(bad(format!("the {what}'s URI is not a plain file name")));
    }
    if r.bytes == 0 || r.bytes > max {
        return Err(bad(format!("the {what} of {} bytes is outside [1, {max}]", r.bytes)));
    }
    Ok(())
}
