//! The WebSocket side both live servers share (`.foldback`'s [`super::live`] and `.flrep`'s
//! [`super::flrep_live`]): a listener that accepts on its own thread, one thread per viewer (so a
//! viewer never blocks the recorder or another viewer), socket timeouts, the handshake with the
//! allowed origins and the request's query, and a linger on shutdown.

use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tungstenite::WebSocket;

/// Which browser origins may connect.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Origins {
    /// Any (and clients that send no `Origin`).
    #[default]
    Any,
    /// Only these exact origins (`https://example.org`); a request without an `Origin` header (not a
    /// browser) is let in, since any other client can send any origin it likes.
    Only(Vec<String>),
}

impl Origins {
    pub fn allows(&self, origin: Option<&str>) -> bool {
        match (self, origin) {
            (Origins::Any, _) | (Origins::Only(_), None) => true,
            (Origins::Only(list), Some(o)) => list.iter().any(|a| a == o),
        }
    }
}

#[derive(Clone, Debug)]
pub struct ViewerOptions {
    /// A socket write that blocks this long ends the viewer's connection.
    pub write_timeout: Duration,
    /// Time a new connection has to complete the WebSocket handshake.
    pub handshake_timeout: Duration,
    pub origins: Origins,
}

impl Default for ViewerOptions {
    fn default() -> Self {
        ViewerOptions {
            write_timeout: Duration::from_secs(2),
            handshake_timeout: Duration::from_secs(5),
            origins: Origins::Any,
        }
    }
}

/// A viewer whose handshake succeeded.
pub struct Join {
    pub ws: WebSocket<TcpStream>,
    /// The request's query (after `?`), if any.
    pub query: Option<String>,
    /// The server is stopping: a viewer's loop checks it between messages.
    pub stop: Arc<AtomicBool>,
}

/// What a server does with each viewer, on the viewer's own thread.
pub type Serve = Arc<dyn Fn(Join) + Send + Sync>;

/// The listener and its viewers' threads.
pub struct Viewers {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accept: Option<JoinHandle<()>>,
    refused: Arc<std::sync::atomic::AtomicU64>,
}

impl Viewers {
    /// Listens on `addr` and serves every viewer whose handshake succeeds with `serve`.
    pub fn listen(addr: impl ToSocketAddrs, name: &str, opts: ViewerOptions, serve: Serve) -> std::io::Result<Viewers> {
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let threads = Arc::new(Mutex::new(Vec::new()));
        let refused = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let (st, th, rf, n) = (stop.clone(), threads.clone(), refused.clone(), name.to_owned());
        let accept = std::thread::Builder::new()
            .name(format!("{name}-accept"))
            .spawn(move || accept_loop(listener, &n, &opts, &serve, &st, &th, &rf))?;
        Ok(Viewers { addr, stop, threads, accept: Some(accept), refused })
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
    /// Handshakes refused (an origin not allowed, a request that was not a WebSocket upgrade).
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Stops accepting, tells every viewer's loop to stop, and waits up to `linger` for them.
    pub fn finish(&mut self, linger: Duration) {
        self.stop.store(true, Ordering::Relaxed);
        let deadline = Instant::now() + linger;
        let threads: Vec<JoinHandle<()>> = self.threads.lock().map(|mut t| t.drain(..).collect()).unwrap_or_default();
        for t in threads {
            while !t.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
        if let Some(a) = self.accept.take() {
            let _ = a.join();
        }
    }
}

impl Drop for Viewers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn accept_loop(
    listener: TcpListener,
    name: &str,
    opts: &ViewerOptions,
    serve: &Serve,
    stop: &Arc<AtomicBool>,
    threads: &Mutex<Vec<JoinHandle<()>>>,
    refused: &Arc<std::sync::atomic::AtomicU64>,
) {
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, _)) => {
                let (o, s, st, rf) = (opts.clone(), serve.clone(), stop.clone(), refused.clone());
                let spawned =
                    std::thread::Builder::new().name(format!("{name}-viewer")).spawn(move || {
                        match handshake(stream, &o) {
                            Some((ws, query)) => s(Join { ws, query, stop: st }),
                            None => {
                                rf.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    });
                if let (Ok(h), Ok(mut t)) = (spawned, threads.lock()) {
                    t.retain(|h| !h.is_finished());
                    t.push(h);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(10)),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Timeouts, then the handshake: an origin not allowed is answered 403.
// The callback's `Result<Response, ErrorResponse>` is tungstenite's type, not ours to box.
#[allow(clippy::result_large_err)]
fn handshake(stream: TcpStream, opts: &ViewerOptions) -> Option<(WebSocket<TcpStream>, Option<String>)> {
    stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_nodelay(true))
        .and_then(|()| stream.set_read_timeout(Some(opts.handshake_timeout)))
        .and_then(|()| stream.set_write_timeout(Some(opts.write_timeout)))
        .ok()?;
    let mut query = None;
    let check = |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        query = req.uri().query().map(str::to_owned);
        let origin = req.headers().get("origin").map(|v| v.to_str().unwrap_or("\u{FFFD}"));
        if opts.origins.allows(origin) {
            Ok(resp)
        } else {
            let mut r = ErrorResponse::new(Some("origin not allowed".into()));
            *r.status_mut() = tungstenite::http::StatusCode::FORBIDDEN;
            Err(r)
        }
    };
    let ws = tungstenite::accept_hdr(stream, check).ok()?;
    Some((ws, query))
}
