//! Live `.flrep`, the source side (docs/live.md): a [`Publisher`] hands each closed chunk to its
//! [`LiveSink`]s — the WebSocket server ([`FlrepLiveServer`]), the HTTP segments directory
//! (`super::segments`) and the finished file (`FileSink`) — on the recorder's thread, none of which
//! waits for a viewer.
//!
//! The WebSocket server keeps the latest chunks once, in a shared history bounded in bytes, and
//! each viewer's thread walks it with its own cursor: a viewer's queue is the chunks between its
//! cursor and the head, bounded by [`WsOptions::queue_chunks`]; a viewer further behind skips to
//! the newest chunk (each chunk starts with a keyframe) instead of queueing more. Handing a chunk to
//! the server is a push under a lock that no socket write holds, so the recorder never blocks.

use super::viewers::{Join, ViewerOptions, Viewers};
use crate::format::flrep::header::Header;
use crate::format::flrep::writer::{EncodedChunk, FileAssembler};
use crate::format::live::message::{encode_chunk, encode_goodbye, encode_hello, encode_prefix};
use crate::format::live::{Goodbye, Hello, PROTOCOL_VERSION};
use std::collections::VecDeque;
use std::net::ToSocketAddrs;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;
use tungstenite::{Bytes, Message};

/// What a sink needs to know of the recording before its chunks.
#[derive(Clone, Debug)]
pub struct StreamInfo {
    pub tick_rate_hz: u32,
    pub chunk_ticks: u32,
    /// The file's header + sections.
    pub prefix: Vec<u8>,
}

/// A closed chunk, placed in the file.
pub struct LiveChunk<'a> {
    pub seq: u64,
    pub offset: u64,
    pub chunk: &'a EncodedChunk,
}

/// Where a live recording goes. Every call is made on the recorder's thread.
pub trait LiveSink {
    fn start(&mut self, info: &StreamInfo) -> std::io::Result<()>;
    fn chunk(&mut self, c: &LiveChunk) -> std::io::Result<()>;
    /// The recording is over; `trailer` is the complete file's index trailer.
    fn end(&mut self, trailer: &[u8], reason: &str) -> std::io::Result<()>;
}

/// Numbers the chunks, places them in the file and hands them to every sink.
pub struct Publisher {
    asm: FileAssembler,
    seq: u64,
    sinks: Vec<Box<dyn LiveSink>>,
}

impl Publisher {
    /// Starts every sink with the recording's prefix (`prefix`, as written at the file's start).
    pub fn new(info: &StreamInfo, mut sinks: Vec<Box<dyn LiveSink>>) -> std::io::Result<Publisher> {
        for s in &mut sinks {
            s.start(info)?;
        }
        Ok(Publisher { asm: FileAssembler::after_prefix(info.prefix.len() as u64), seq: 0, sinks })
    }

    /// The prefix of a recording written by this build's writer for `header` and `sections`.
    pub fn prefix_of(header: &Header, sections: &crate::format::flrep::header::Sections) -> Vec<u8> {
        FileAssembler::new(header, sections).1
    }

    pub fn chunk(&mut self, c: &EncodedChunk) -> std::io::Result<()> {
        let lc = LiveChunk { seq: self.seq, offset: self.asm.len(), chunk: c };
        for s in &mut self.sinks {
            s.chunk(&lc)?;
        }
        self.asm.add(c);
        self.seq += 1;
        Ok(())
    }

    /// Chunks published so far.
    pub fn chunks(&self) -> u64 {
        self.seq
    }

    /// Ends every sink (the trailer of the chunks published) and returns the trailer.
    pub fn end(self, reason: &str) -> std::io::Result<Vec<u8>> {
        let trailer = self.asm.finish();
        for mut s in self.sinks {
            s.end(&trailer, reason)?;
        }
        Ok(trailer)
    }
}

/// The finished recording written as it grows (prefix, chunks, trailer): `--out FILE`.
pub struct FileSink {
    path: std::path::PathBuf,
    file: Option<std::io::BufWriter<std::fs::File>>,
}

impl FileSink {
    pub fn new(path: &std::path::Path) -> FileSink {
        FileSink { path: path.to_owned(), file: None }
    }
    fn w(&mut self) -> std::io::Result<&mut std::io::BufWriter<std::fs::File>> {
        self.file.as_mut().ok_or_else(|| std::io::Error::other("the file sink was not started"))
    }
}

impl LiveSink for FileSink {
    fn start(&mut self, info: &StreamInfo) -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&self.path)?);
        f.write_all(&info.prefix)?;
        f.flush()?;
        self.file = Some(f);
        Ok(())
    }
    fn chunk(&mut self, c: &LiveChunk) -> std::io::Result<()> {
        use std::io::Write;
        let w = self.w()?;
        w.write_all(&c.chunk.bytes)?;
        // Whole chunks reach the file as they close, so that it can be followed (`--follow`).
        w.flush()
    }
    fn end(&mut self, trailer: &[u8], _reason: &str) -> std::io::Result<()> {
        use std::io::Write;
        let w = self.w()?;
        w.write_all(trailer)?;
        w.flush()
    }
}

#[derive(Clone, Debug)]
pub struct WsOptions {
    pub viewer: ViewerOptions,
    /// Chunks a viewer may fall behind the head before it skips to the newest one.
    pub queue_chunks: u64,
    /// Bytes of the latest chunks kept for joining and resuming viewers (`?from=N`).
    pub history_bytes: usize,
    /// How long [`FlrepLiveServer::finish`] waits for viewers to receive their last chunks and goodbye.
    pub linger: Duration,
}

impl Default for WsOptions {
    fn default() -> Self {
        WsOptions {
            viewer: ViewerOptions::default(),
            queue_chunks: 4,
            history_bytes: 64 << 20,
            linger: Duration::from_secs(3),
        }
    }
}

/// Counters (a snapshot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WsStats {
    pub connected: u64,
    /// Viewers connected now.
    pub viewers: u64,
    /// Times a viewer fell behind and skipped to the newest chunk.
    pub skips: u64,
    /// Chunks not sent because of those skips.
    pub skipped_chunks: u64,
    /// Connections that ended on a failed write (gone, or blocked past the write timeout).
    pub disconnected: u64,
    /// Handshakes refused (origin not allowed, not a WebSocket request, a bad `from`).
    pub refused: u64,
    pub chunks: u64,
}

struct HubState {
    hello: Option<Hello>,
    prefix: Option<Bytes>,
    /// (seq, chunk message), oldest first.
    chunks: VecDeque<(u64, Bytes)>,
    held: usize,
    /// The next chunk's seq.
    head: u64,
    goodbye: Option<Bytes>,
}

struct Hub {
    state: Mutex<HubState>,
    cv: Condvar,
    opts: WsOptions,
    connected: AtomicU64,
    viewers: AtomicU64,
    skips: AtomicU64,
    skipped_chunks: AtomicU64,
    disconnected: AtomicU64,
    bad_from: AtomicU64,
}

impl Hub {
    fn lock(&self) -> Option<MutexGuard<'_, HubState>> {
        self.state.lock().ok()
    }
}

/// The WebSocket server of a live `.flrep` (docs/live.md "WebSocket").
pub struct FlrepLiveServer {
    hub: Arc<Hub>,
    viewers: Viewers,
}

impl FlrepLiveServer {
    pub fn bind(addr: impl ToSocketAddrs, opts: WsOptions) -> std::io::Result<FlrepLiveServer> {
        let hub = Arc::new(Hub {
            state: Mutex::new(HubState {
                hello: None,
                prefix: None,
                chunks: VecDeque::new(),
                held: 0,
                head: 0,
                goodbye: None,
            }),
            cv: Condvar::new(),
            opts: opts.clone(),
            connected: AtomicU64::new(0),
            viewers: AtomicU64::new(0),
            skips: AtomicU64::new(0),
            skipped_chunks: AtomicU64::new(0),
            disconnected: AtomicU64::new(0),
            bad_from: AtomicU64::new(0),
        });
        let h = hub.clone();
        let viewers = Viewers::listen(addr, "flrep-live", opts.viewer, Arc::new(move |j| serve_viewer(j, &h)))?;
        Ok(FlrepLiveServer { hub, viewers })
    }

    pub fn port(&self) -> u16 {
        self.viewers.port()
    }
    pub fn addr(&self) -> std::net::SocketAddr {
        self.viewers.addr()
    }

    pub fn stats(&self) -> WsStats {
        let h = &self.hub;
        WsStats {
            connected: h.connected.load(Ordering::Relaxed),
            viewers: h.viewers.load(Ordering::Relaxed),
            skips: h.skips.load(Ordering::Relaxed),
            skipped_chunks: h.skipped_chunks.load(Ordering::Relaxed),
            disconnected: h.disconnected.load(Ordering::Relaxed),
            refused: self.viewers.refused() + h.bad_from.load(Ordering::Relaxed),
            chunks: h.lock().map(|s| s.head).unwrap_or(0),
        }
    }

    /// Sends goodbye (after their last chunks) to every viewer, waits up to [`WsOptions::linger`] for
    /// them, stops accepting and returns the final counters.
    pub fn finish(mut self) -> WsStats {
        self.viewers.finish(self.hub.opts.linger);
        self.stats()
    }
}

/// The server as a sink: a shared handle, so that the caller keeps the server to finish it.
pub struct WsSink(pub Arc<Mutex<Option<FlrepLiveServer>>>);

impl WsSink {
    fn with(&self, f: impl FnOnce(&Hub)) {
        if let Ok(s) = self.0.lock() {
            if let Some(s) = s.as_ref() {
                f(&s.hub);
            }
        }
    }
}

impl LiveSink for WsSink {
    fn start(&mut self, info: &StreamInfo) -> std::io::Result<()> {
        self.with(|hub| {
            if let Some(mut s) = hub.lock() {
                s.hello = Some(Hello {
                    version: PROTOCOL_VERSION,
                    stream_id: crate::format::live::stream_id(&info.prefix),
                    first_seq: 0,
                    head_seq: 0,
                    tick_rate_hz: info.tick_rate_hz,
                    chunk_ticks: info.chunk_ticks,
                });
                s.prefix = Some(Bytes::from(encode_prefix(&info.prefix)));
            }
            hub.cv.notify_all();
        });
        Ok(())
    }

    fn chunk(&mut self, c: &LiveChunk) -> std::io::Result<()> {
        let msg = Bytes::from(encode_chunk(c.seq, c.offset, &c.chunk.bytes));
        self.with(|hub| {
            if let Some(mut s) = hub.lock() {
                s.held += msg.len();
                s.chunks.push_back((c.seq, msg));
                s.head = c.seq + 1;
                // The history: bounded in bytes, but never fewer chunks than a viewer may lag by.
                let keep = usize::try_from(hub.opts.queue_chunks).unwrap_or(usize::MAX).saturating_add(1);
                while s.held > hub.opts.history_bytes && s.chunks.len() > keep {
                    if let Some((_, b)) = s.chunks.pop_front() {
                        s.held -= b.len();
                    }
                }
            }
            hub.cv.notify_all();
        });
        Ok(())
    }

    fn end(&mut self, _trailer: &[u8], reason: &str) -> std::io::Result<()> {
        self.with(|hub| {
            if let Some(mut s) = hub.lock() {
                let g = Goodbye { end_seq: s.head, reason: reason.to_owned() };
                s.goodbye = Some(Bytes::from(encode_goodbye(&g)));
            }
            hub.cv.notify_all();
        });
        Ok(())
    }
}

/// `from=N` out of a query; `Err` for a `from` that is not a number.
fn from_query(query: Option<&str>) -> Result<Option<u64>, ()> {
    let Some(q) = query else { return Ok(None) };
    for kv in q.split('&') {
        if let Some(v) = kv.strip_prefix("from=") {
            return v.parse().map(Some).map_err(|_| ());
        }
    }
    Ok(None)
}

enum Next {
    Send(Bytes),
    Goodbye(Bytes),
    Stop,
}

fn serve_viewer(j: Join, hub: &Hub) {
    let Join { mut ws, query, stop } = j;
    let Ok(from) = from_query(query.as_deref()) else {
        hub.bad_from.fetch_add(1, Ordering::Relaxed);
        let _ = ws.close(Some(tungstenite::protocol::CloseFrame {
            code: tungstenite::protocol::frame::coding::CloseCode::Policy,
            reason: "from= must be a chunk number".into(),
        }));
        let _ = ws.flush();
        return;
    };
    let wait = Duration::from_millis(100);
    let queue = hub.opts.queue_chunks.max(1);
    // Wait for the prefix; then pick the first chunk: `from`, or the latest whole chunk.
    let (hello, prefix, mut cursor, mut limit) = {
        let Some(mut s) = hub.lock() else { return };
        loop {
            if let (Some(h), Some(p)) = (&s.hello, &s.prefix) {
                let oldest = s.chunks.front().map(|c| c.0).unwrap_or(s.head);
                let cursor = match from {
                    Some(n) => n.clamp(oldest, s.head),
                    None => s.head.saturating_sub(1).max(oldest),
                };
                let hello = Hello { first_seq: cursor, head_seq: s.head, ..h.clone() };
                break (hello, p.clone(), cursor, queue.max(s.head - cursor));
            }
            if stop.load(Ordering::Relaxed) {
                return;
            }
            s = match hub.cv.wait_timeout(s, wait) {
                Ok((s, _)) => s,
                Err(_) => return,
            };
        }
    };
    hub.connected.fetch_add(1, Ordering::Relaxed);
    hub.viewers.fetch_add(1, Ordering::Relaxed);
    let ok = ws.send(Message::Binary(Bytes::from(encode_hello(&hello)))).is_ok()
        && ws.send(Message::Binary(prefix)).is_ok()
        && loop {
            let next = {
                let Some(mut s) = hub.lock() else { break false };
                loop {
                    if cursor < s.head {
                        let lag = s.head - cursor;
                        if lag > limit {
                            hub.skips.fetch_add(1, Ordering::Relaxed);
                            hub.skipped_chunks.fetch_add(lag - 1, Ordering::Relaxed);
                            cursor = s.head - 1;
                        }
                        let oldest = s.chunks.front().map(|c| c.0).unwrap_or(s.head);
                        if cursor < oldest {
                            hub.skipped_chunks.fetch_add(oldest - cursor, Ordering::Relaxed);
                            cursor = oldest;
                        }
                        if s.head - cursor <= queue {
                            limit = queue;
                        }
                        let at = usize::try_from(cursor - oldest).unwrap_or(usize::MAX);
                        match s.chunks.get(at) {
                            Some((_, b)) => break Next::Send(b.clone()),
                            None => break Next::Stop,
                        }
                    }
                    if let Some(g) = &s.goodbye {
                        break Next::Goodbye(g.clone());
                    }
                    if stop.load(Ordering::Relaxed) {
                        break Next::Stop;
                    }
                    s = match hub.cv.wait_timeout(s, wait) {
                        Ok((s, _)) => s,
                        Err(_) => break Next::Stop,
                    };
                }
            };
            match next {
                Next::Send(b) => {
                    if ws.send(Message::Binary(b)).is_err() {
                        break false;
                    }
                    cursor += 1;
                }
                Next::Goodbye(g) => {
                    let _ = ws.send(Message::Binary(g));
                    let _ = ws.close(None);
                    let _ = ws.flush();
                    break true;
                }
                Next::Stop => {
                    let _ = ws.close(None);
                    let _ = ws.flush();
                    break true;
                }
            }
        };
    if !ok {
        hub.disconnected.fetch_add(1, Ordering::Relaxed);
    }
    hub.viewers.fetch_sub(1, Ordering::Relaxed);
}
