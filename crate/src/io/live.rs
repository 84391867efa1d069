//! Live mode, game side: a loopback WebSocket server that streams `.foldback` frames to
//! viewers without ever blocking the game loop.
//!
//! - The game calls [`LiveServer::broadcast`] with each encoded frame. It never blocks: each viewer
//!   has a bounded queue ([`LiveOptions::queue_frames`]) and `broadcast` only `try_send`s.
//! - Each viewer is served by its own thread (handshake, `hello`, then the queue, one binary
//!   message per frame). A viewer whose queue is full **is disconnected** (not silently thinned:
//!   missing hashes would read as "peer has no hash"); it may reconnect.
//! - Viewers connect, disconnect and reconnect at any time; each connection gets a fresh `hello`,
//!   then the Metadata frames seen so far ([`LiveServer::broadcast_and_keep`]), then frames from that
//!   moment on — no backlog of hashes (a viewer that needs history opens the recording file).
//! - [`LiveServer::finish`] sends `goodbye` to every viewer and waits briefly for them to drain.

use super::viewers::{Join, ViewerOptions, Viewers};
use crate::format::foldback::live::{Control, Hello};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tungstenite::{Bytes, Message};

#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Frames queued per viewer before it counts as fallen behind and is disconnected.
    pub queue_frames: usize,
    /// A socket write that blocks this long ends the viewer's connection.
    pub write_timeout: Duration,
    /// Time a new connection has to complete the WebSocket handshake.
    pub handshake_timeout: Duration,
    /// Most bytes of Metadata frames kept for viewers that connect later.
    pub max_kept_bytes: usize,
    /// How long [`LiveServer::finish`] waits for viewers to receive `goodbye`.
    pub linger: Duration,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            queue_frames: 8192,
            write_timeout: Duration::from_secs(2),
            handshake_timeout: Duration::from_secs(5),
            max_kept_bytes: 1 << 20,
            linger: Duration::from_secs(2),
        }
    }
}

/// Counters (a snapshot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveStats {
    pub connected: u64,
    /// Viewers disconnected because their queue was full.
    pub dropped_slow: u64,
    /// Viewers that went away (socket error, closed).
    pub disconnected: u64,
    /// Frames handed to [`LiveServer::broadcast`].
    pub frames: u64,
    /// Viewers connected now.
    pub viewers: u64,
}

enum Msg {
    Frame(Bytes),
    Goodbye(String),
}

struct Slot {
    tx: SyncSender<Msg>,
}

struct Shared {
    viewers: Mutex<Vec<Slot>>,
    kept: Mutex<(Vec<Bytes>, usize)>,
    hello: String,
    opts: LiveOptions,
    connected: AtomicU64,
    dropped_slow: AtomicU64,
    disconnected: AtomicU64,
    frames: AtomicU64,
}

pub struct LiveServer {
    shared: Arc<Shared>,
    viewers: Viewers,
}

impl LiveServer {
    /// Listens on `127.0.0.1:port` (0: any free port) and starts accepting viewers.
    pub fn bind(port: u16, hello: &Hello, opts: LiveOptions) -> std::io::Result<LiveServer> {
        let shared = Arc::new(Shared {
            viewers: Mutex::new(Vec::new()),
            kept: Mutex::new((Vec::new(), 0)),
            hello: Control::Hello(hello.clone()).to_json(),
            opts: opts.clone(),
            connected: AtomicU64::new(0),
            dropped_slow: AtomicU64::new(0),
            disconnected: AtomicU64::new(0),
            frames: AtomicU64::new(0),
        });
        let sh = shared.clone();
        let vo = ViewerOptions {
            write_timeout: opts.write_timeout,
            handshake_timeout: opts.handshake_timeout,
            ..ViewerOptions::default()
        };
        let viewers = Viewers::listen(("127.0.0.1", port), "live", vo, Arc::new(move |j| serve_viewer(j, &sh)))?;
        Ok(LiveServer { shared, viewers })
    }

    pub fn port(&self) -> u16 {
        self.viewers.port()
    }

    /// Queues one encoded frame for every viewer. Never blocks on a viewer.
    pub fn broadcast(&self, frame: Vec<u8>) {
        self.shared.frames.fetch_add(1, Ordering::Relaxed);
        let b = Bytes::from(frame);
        let Ok(mut vs) = self.shared.viewers.lock() else { return };
        vs.retain(|v| match v.tx.try_send(Msg::Frame(b.clone())) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.shared.dropped_slow.fetch_add(1, Ordering::Relaxed);
                false
            }
            Err(TrySendError::Disconnected(_)) => false,
        });
    }

    /// [`Self::broadcast`], and keep the frame for viewers that connect later (Metadata).
    pub fn broadcast_and_keep(&self, frame: Vec<u8>) {
        if let Ok(mut k) = self.shared.kept.lock() {
            if k.1 + frame.len() <= self.shared.opts.max_kept_bytes {
                k.1 += frame.len();
                k.0.push(Bytes::from(frame.clone()));
            }
        }
        self.broadcast(frame);
    }

    pub fn stats(&self) -> LiveStats {
        let s = &self.shared;
        LiveStats {
            connected: s.connected.load(Ordering::Relaxed),
            dropped_slow: s.dropped_slow.load(Ordering::Relaxed),
            disconnected: s.disconnected.load(Ordering::Relaxed),
            frames: s.frames.load(Ordering::Relaxed),
            viewers: s.viewers.lock().map(|v| v.len() as u64).unwrap_or(0),
        }
    }

    /// Sends `goodbye` to every viewer, waits up to [`LiveOptions::linger`] for them to drain, stops
    /// accepting and returns the final counters.
    pub fn finish(mut self, reason: &str) -> LiveStats {
        if let Ok(mut vs) = self.shared.viewers.lock() {
            for v in vs.drain(..) {
                let _ = v.tx.try_send(Msg::Goodbye(reason.to_owned()));
            }
        }
        self.viewers.finish(self.shared.opts.linger);
        self.stats()
    }
}

fn serve_viewer(j: Join, shared: &Shared) {
    let Join { mut ws, stop, .. } = j;
    let opts = &shared.opts;
    if ws.send(Message::text(shared.hello.clone())).is_err() {
        shared.disconnected.fetch_add(1, Ordering::Relaxed);
        return;
    }
    // Register, and take the kept Metadata, under the viewers lock so no frame falls between.
    let (tx, rx) = sync_channel(opts.queue_frames.max(1));
    let kept: Vec<Bytes> = {
        let Ok(mut vs) = shared.viewers.lock() else { return };
        if stop.load(Ordering::Relaxed) {
            return;
        }
        vs.push(Slot { tx });
        shared.kept.lock().map(|k| k.0.clone()).unwrap_or_default()
    };
    shared.connected.fetch_add(1, Ordering::Relaxed);
    for b in kept {
        if ws.send(Message::Binary(b)).is_err() {
            shared.disconnected.fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Msg::Frame(b)) => {
                // Write without flushing while more is queued; flush when the queue is empty.
                if ws.write(Message::Binary(b)).is_err() {
                    break;
                }
                let mut ok = true;
                while let Ok(m) = rx.try_recv() {
                    match m {
                        Msg::Frame(b) => ok = ws.write(Message::Binary(b)).is_ok(),
                        Msg::Goodbye(r) => {
                            let _ = ws.write(Message::text(Control::Goodbye { reason: r }.to_json()));
                            let _ = ws.flush();
                            let _ = ws.close(None);
                            let _ = ws.flush();
                            return;
                        }
                    }
                    if !ok {
                        break;
                    }
                }
                if !ok || ws.flush().is_err() {
                    break;
                }
            }
            Ok(Msg::Goodbye(r)) => {
                let _ = ws.send(Message::text(Control::Goodbye { reason: r }.to_json()));
                let _ = ws.close(None);
                let _ = ws.flush();
                return;
            }
            Err(RecvTimeoutError::Timeout) => {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
            }
            // Dropped for falling behind (its sender was removed) or the server is gone.
            Err(RecvTimeoutError::Disconnected) => {
                let _ = ws.close(None);
                let _ = ws.flush();
                return;
            }
        }
    }
    shared.disconnected.fetch_add(1, Ordering::Relaxed);
}
