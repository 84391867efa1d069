//! Live mode, viewer side and shared messages (spec: docs/format/foldback.md §7).
//!
//! Control messages are JSON text WebSocket messages (`hello`, `goodbye`); data messages are binary,
//! one frame each, in the file's frame layout, parsed by [`super::parse_frame`].
//!
//! A viewer keeps a [`LiveRecording`]: the frames it received appended to an in-memory `.foldback`
//! (a header made from the hello), indexed as they arrive by the same [`Index`] a file gets. The
//! divergence model and on-demand reads then work on live data exactly as on a file, reading ranges
//! from [`LiveRecording::bytes`].

use super::index::Index;
use super::{parse_frame_with, Error, Frame, Header, Limits, FORMAT_VERSION, FRAME_HEADER_LEN, HEADER_LEN};

/// The live protocol version this build speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// `{"type":"hello","protocol_version":1,"tick_rate_hz":60,"peer_count":2,"build_id":"<32 hex>"}`
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize, serde::Deserialize))]
pub struct Hello {
    pub protocol_version: u64,
    pub tick_rate_hz: u32,
    pub peer_count: u32,
    /// The header's build id as 32 lowercase hex digits.
    pub build_id: String,
}

impl Hello {
    pub fn for_header(h: &Header) -> Self {
        Hello {
            protocol_version: PROTOCOL_VERSION,
            tick_rate_hz: h.tick_rate_hz,
            peer_count: h.peer_count,
            build_id: h.build_id_hex(),
        }
    }
}

/// A control message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    Hello(Hello),
    Goodbye {
        reason: String,
    },
    /// A control type this build does not know (ignored, for forward compatibility).
    Other {
        kind: String,
    },
}

#[cfg(feature = "json")]
impl Control {
    /// The JSON text of a control message.
    pub fn to_json(&self) -> String {
        let v = match self {
            Control::Hello(h) => serde_json::json!({
                "type": "hello",
                "protocol_version": h.protocol_version,
                "tick_rate_hz": h.tick_rate_hz,
                "peer_count": h.peer_count,
                "build_id": h.build_id,
            }),
            Control::Goodbye { reason } => serde_json::json!({"type": "goodbye", "reason": reason}),
            Control::Other { kind } => serde_json::json!({ "type": kind }),
        };
        v.to_string()
    }

    /// Parses a text message. Unknown `type`s are [`Control::Other`]; unknown fields are ignored; a
    /// hello with a newer `protocol_version` is [`Error::NewerProtocol`].
    pub fn parse(text: &str) -> Result<Control, Error> {
        if text.len() > 64 * 1024 {
            return Err(Error::BadControl(format!(
                "{} bytes, over the 65536-byte limit for control messages",
                text.len()
            )));
        }
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| Error::BadControl(e.to_string()))?;
        let kind =
            v.get("type").and_then(|t| t.as_str()).ok_or_else(|| Error::BadControl("no \"type\" string".into()))?;
        match kind {
            "hello" => {
                let h: Hello =
                    serde_json::from_value(v.clone()).map_err(|e| Error::BadControl(format!("hello: {e}")))?;
                if h.protocol_version > PROTOCOL_VERSION {
                    return Err(Error::NewerProtocol { version: h.protocol_version, supported: PROTOCOL_VERSION });
                }
                if h.protocol_version == 0 {
                    return Err(Error::BadControl("hello: protocol_version 0 was never defined".into()));
                }
                Ok(Control::Hello(h))
            }
            "goodbye" => {
                Ok(Control::Goodbye { reason: v.get("reason").and_then(|r| r.as_str()).unwrap_or("").to_owned() })
            }
            other => Ok(Control::Other { kind: other.to_owned() }),
        }
    }
}

/// Default [`LiveRecording`] byte cap: past it, frames are still indexed (Level 1) but their bytes
/// are no longer kept (Level-2/3 detail for later ticks is then unavailable; a warning says so).
pub const DEFAULT_MAX_LIVE_BYTES: u64 = 256 * 1024 * 1024;

/// What a viewer builds from one live connection.
pub struct LiveRecording {
    bytes: Vec<u8>,
    index: Index,
    limits: Limits,
    max_bytes: u64,
    /// Frames whose bytes were not kept (over the cap).
    pub frames_not_kept: u64,
    /// Messages refused by [`parse_frame_with`] (the error is returned to the caller too).
    pub frames_refused: u64,
    pub goodbye: Option<String>,
    warnings: Vec<String>,
}

impl LiveRecording {
    /// Starts a recording from a hello. The header is the file header such a session would have.
    pub fn from_hello(hello: &Hello, limits: Limits) -> Result<Self, Error> {
        if hello.protocol_version > PROTOCOL_VERSION {
            return Err(Error::NewerProtocol { version: hello.protocol_version, supported: PROTOCOL_VERSION });
        }
        if hello.peer_count > limits.max_peers {
            return Err(Error::TooManyPeers { count: hello.peer_count, max: limits.max_peers });
        }
        let mut warnings = Vec::new();
        let build_id = super::parse_build_id(&hello.build_id).unwrap_or_else(|| {
            warnings.push(format!(
                "hello build_id {:?} is not 32 hex digits: recorded as zeros",
                crate::bytes::truncate_utf8(&hello.build_id, 64)
            ));
            [0; 16]
        });
        let header = Header {
            format_version: FORMAT_VERSION,
            flags: 0,
            tick_rate_hz: hello.tick_rate_hz,
            peer_count: hello.peer_count,
            build_id,
        };
        Ok(Self::new(header, limits, warnings))
    }

    pub fn new(header: Header, limits: Limits, warnings: Vec<String>) -> Self {
        let index = Index::new(header, &limits);
        LiveRecording {
            bytes: header.encode(),
            index,
            limits,
            max_bytes: DEFAULT_MAX_LIVE_BYTES,
            frames_not_kept: 0,
            frames_refused: 0,
            goodbye: None,
            warnings,
        }
    }

    pub fn set_max_bytes(&mut self, max: u64) {
        self.max_bytes = max.max(HEADER_LEN as u64);
    }

    /// Takes one binary message: parses it (the same parser as files), indexes it, keeps its bytes.
    /// Returns the frame. A refused message changes nothing but [`Self::frames_refused`].
    pub fn push<'m>(&mut self, msg: &'m [u8]) -> Result<Frame<'m>, Error> {
        let at = self.bytes.len() as u64;
        let frame = match parse_frame_with(msg, at, &self.limits) {
            Ok(f) => f,
            Err(e) => {
                self.frames_refused += 1;
                return Err(e);
            }
        };
        let len = msg.len() as u64;
        if at + len <= self.max_bytes {
            self.bytes.extend_from_slice(msg);
            self.index.add_frame(at, len, &frame);
        } else {
            // Index Level 1 without a byte range (ranges must point at kept bytes).
            self.frames_not_kept += 1;
            if let Frame::TickHash { .. } = frame {
                self.index.add_frame(at, 0, &frame);
            }
        }
        Ok(frame)
    }

    /// Takes one text message; a hello on an existing recording is refused (a reconnect starts a
    /// new recording), a goodbye is remembered.
    #[cfg(feature = "json")]
    pub fn push_control(&mut self, text: &str) -> Result<Control, Error> {
        let c = Control::parse(text)?;
        if let Control::Goodbye { reason } = &c {
            self.goodbye = Some(reason.clone());
        }
        Ok(c)
    }

    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The recording so far as `.foldback` bytes (header + every kept frame, no EndOfStream).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// A byte range of [`Self::bytes`] (what a file driver would read).
    pub fn read(&self, offset: u64, len: u64) -> Option<&[u8]> {
        let s = usize::try_from(offset).ok()?;
        let e = s.checked_add(usize::try_from(len).ok()?)?;
        self.bytes.get(s..e)
    }

    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.warnings.clone();
        if self.frames_not_kept > 0 {
            w.push(format!(
                "{} frames past the {}-byte live buffer were indexed (Level 1) but not kept",
                self.frames_not_kept, self.max_bytes
            ));
        }
        if self.frames_refused > 0 {
            w.push(format!("{} live messages refused", self.frames_refused));
        }
        w
    }

    /// Smallest live message: a frame header.
    pub const MIN_MESSAGE: usize = FRAME_HEADER_LEN;
}
