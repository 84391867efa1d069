//! Two recordings compared tick by tick, sans-IO: a [`Comparison`] opens recording A, then B (two
//! [`Session`]s, any format each), checks that they are recordings of one session
//! ([`why_not_comparable`]), then asks for their chunks one at a time, A's and B's in the order the
//! [`TickComparer`] needs them, decoding each as it is handed over. Like a session's open, it says
//! which byte range of which file it wants ([`Comparison::want`]) and is handed those bytes
//! ([`Comparison::feed`]); `replay diff` (crate::io::compare_sources) and the browser's compare
//! worker (web/decoder/compare.rs) are its drivers. Memory: two sessions and at most one decoded
//! chunk of each, whatever the files' lengths (docs/playback.md "Comparing two recordings").

use super::{Limits, OpenStep, Session, SessionError};
use crate::model::compare::{why_not_comparable, Outcome, Side, TickComparer};
use crate::model::RecordingInfo;

/// A byte range of one of the two files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Want {
    pub side: Side,
    pub offset: u64,
    pub len: u64,
}

/// A reader's error, with the file it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareError {
    pub side: Side,
    pub error: SessionError,
}

impl std::fmt::Display for CompareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.side.name(), self.error)
    }
}
impl std::error::Error for CompareError {}

/// How far a comparison is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Ticks compared equal so far.
    pub ticks: u64,
    /// A's last tick compared equal.
    pub last_tick: Option<u64>,
    /// Chunks decoded of A and of B, and how many each has.
    pub chunks_done: [usize; 2],
    pub chunks: [usize; 2],
}

/// See the module comment.
pub struct Comparison {
    a: Session,
    b: Session,
    info: [Option<RecordingInfo>; 2],
    /// The next chunk of each side to decode.
    next: [usize; 2],
    want: Option<Want>,
    cmp: TickComparer,
    /// Set when the files cannot be compared (the comparer then never runs).
    mismatch: Option<Outcome>,
    failed: Option<CompareError>,
}

const fn ix(side: Side) -> usize {
    match side {
        Side::A => 0,
        Side::B => 1,
    }
}

impl Comparison {
    /// Starts comparing a file of `len_a` bytes (A) with one of `len_b` bytes (B), each read under `limits`.
    pub fn new(len_a: u64, len_b: u64, limits: Limits) -> Result<Self, CompareError> {
        let mut c = Comparison {
            a: Session::with_limits(len_a, limits.clone()),
            b: Session::with_limits(len_b, limits),
            info: [None, None],
            next: [0, 0],
            want: None,
            cmp: TickComparer::new(),
            mismatch: None,
            failed: None,
        };
        c.open_step(Side::A, None)?;
        Ok(c)
    }

    /// The byte range to hand over next, or `None` when the outcome is known (or the comparison failed).
    pub fn want(&self) -> Option<Want> {
        self.want
    }

    /// The outcome, once known.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.mismatch.as_ref().or_else(|| self.cmp.outcome())
    }

    /// The recording `side` holds, once it is open.
    pub fn info(&self, side: Side) -> Option<&RecordingInfo> {
        self.info.get(ix(side)).and_then(Option::as_ref)
    }

    pub fn progress(&self) -> Progress {
        Progress {
            ticks: self.cmp.compared(),
            last_tick: self.cmp.last().map(|l| l.0),
            chunks_done: self.next,
            chunks: [self.a.chunk_count(), self.b.chunk_count()],
        }
    }

    /// Hands over the bytes of [`want`](Self::want)'s range. An error ends the comparison (later
    /// calls repeat it).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), CompareError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let Some(w) = self.want.take() else {
            return Err(CompareError {
                side: Side::A,
                error: SessionError::Usage("feed() called but the comparison is not waiting for bytes".into()),
            });
        };
        let r = self.step(w, bytes);
        if let Err(e) = &r {
            self.want = None;
            self.failed = Some(e.clone());
        }
        r
    }

    fn session(&mut self, side: Side) -> &mut Session {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    fn next_chunk(&mut self, side: Side) -> &mut usize {
        let [a, b] = &mut self.next;
        match side {
            Side::A => a,
            Side::B => b,
        }
    }

    fn step(&mut self, w: Want, bytes: &[u8]) -> Result<(), CompareError> {
        if !self.session(w.side).is_open() {
            return self.open_step(w.side, Some(bytes));
        }
        let i = *self.next_chunk(w.side);
        let chunk =
            self.session(w.side).decode_chunk(i, bytes).map_err(|error| CompareError { side: w.side, error })?;
        *self.next_chunk(w.side) = i + 1;
        self.cmp.push(w.side, chunk);
        self.advance();
        Ok(())
    }

    /// One step of opening `side`; when it is open, B's open starts, or the comparison does.
    fn open_step(&mut self, side: Side, input: Option<&[u8]>) -> Result<(), CompareError> {
        let s = self.session(side);
        match s.next(input).map_err(|error| CompareError { side, error })? {
            OpenStep::Need { offset, len } => {
                self.want = Some(Want { side, offset, len });
                Ok(())
            }
            OpenStep::Ready => {
                let info = s.info();
                if let Some(slot) = self.info.get_mut(ix(side)) {
                    *slot = info;
                }
                match side {
                    Side::A => self.open_step(Side::B, None),
                    Side::B => {
                        if let [Some(a), Some(b)] = &self.info {
                            let reasons = why_not_comparable(a, b);
                            if !reasons.is_empty() {
                                self.mismatch = Some(Outcome::Mismatched { reasons });
                                self.want = None;
                                return Ok(());
                            }
                        }
                        self.advance();
                        Ok(())
                    }
                }
            }
        }
    }

    /// The next chunk the comparer needs (a side with none left is told it ended).
    fn advance(&mut self) {
        self.want = None;
        while let Some(side) = self.cmp.needs() {
            let i = *self.next_chunk(side);
            if let Some((offset, len)) = self.session(side).chunk_range(i) {
                self.want = Some(Want { side, offset, len });
                return;
            }
            self.cmp.end(side);
        }
    }
}
