//! Live `.flrep` (docs/live.md): `replay live-serve` and `io::flrep_live` against tungstenite
//! viewers that check every message with the player's parser (`format::live::LiveStream`), and
//! the segments directory read with the manifest parser; the parsers' hostile input.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "common/live_harness.rs"]
mod live_harness;

use replay_player::format::flrep::chunk::{ChunkDecoder, ChunkHeader};
use replay_player::format::flrep::writer::{EncodedChunk, WriterOptions};
use replay_player::format::flrep::Limits;
use replay_player::format::live::manifest::{Manifest, ManifestError, ManifestLimits};
use replay_player::format::live::message::{encode_chunk, encode_goodbye, encode_hello, encode_prefix};
use replay_player::format::live::{Goodbye, Hello, LiveError, LiveStream, Message, StreamEvent};
use replay_player::io::flrep_live::{FlrepLiveServer, LiveSink, Publisher, StreamInfo, WsOptions, WsSink};
use replay_player::io::viewers::{Origins, ViewerOptions};
use replay_player::io::{open_session, read_chunk};
use replay_player::model::state_hash;
use replay_player::sim::{Dogfight, DogfightConfig};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tungstenite::client::IntoClientRequest;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message as WsMessage, WebSocket};

type Ws = WebSocket<MaybeTlsStream<TcpStream>>;

struct Serve {
    child: Child,
    port: Option<u16>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `replay live-serve ARGS`; with `--ws`, reads the port from its first line.
fn serve(args: &[&str]) -> (Serve, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_replay"))
        .arg("live-serve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut port = None;
    if args.contains(&"--ws") {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        port = Some(line.trim().rsplit(':').next().unwrap().parse().unwrap_or_else(|_| panic!("no port in {line:?}")));
    }
    (Serve { child, port }, out)
}

fn wait_exit(s: &mut Serve, out: &mut BufReader<std::process::ChildStdout>) -> String {
    let mut all = String::new();
    let mut line = String::new();
    while out.read_line(&mut line).unwrap_or(0) > 0 {
        all.push_str(&line);
        line.clear();
    }
    assert!(s.child.wait().unwrap().success(), "live-serve failed: {all}");
    all
}

fn connect(port: u16, query: &str) -> Ws {
    let (ws, _) = tungstenite::connect(format!("ws://127.0.0.1:{port}/{query}")).unwrap();
    ws
}

/// What one viewer received, checked message by message by the player's parser.
#[derive(Default)]
struct Received {
    hello: Option<Hello>,
    prefix: Vec<u8>,
    /// (seq, offset, chunk bytes)
    chunks: Vec<(u64, u64, Vec<u8>)>,
    skipped: u64,
    goodbye: Option<(Goodbye, u64)>,
}

/// Reads until goodbye, or until `stop` says so after a chunk.
fn read(ws: &mut Ws, stream: &mut LiveStream, r: &mut Received, mut stop: impl FnMut(&Received) -> bool) {
    loop {
        let m = match ws.read() {
            Ok(WsMessage::Binary(b)) => b,
            Ok(WsMessage::Close(_)) | Err(_) => return,
            Ok(_) => continue,
        };
        match stream.push(&m).unwrap() {
            StreamEvent::Hello(h) => r.hello = Some(h),
            StreamEvent::Prefix(p) => r.prefix = p.to_vec(),
            StreamEvent::Chunk { seq, offset, bytes, skipped, .. } => {
                r.skipped += skipped;
                r.chunks.push((seq, offset, bytes.to_vec()));
                if stop(r) {
                    return;
                }
            }
            StreamEvent::Goodbye { goodbye, missing } => {
                r.goodbye = Some((goodbye, missing));
                return;
            }
        }
    }
}

/// Per-tick (tick, hash) of a complete recording, as `replay hash` prints them.
fn file_hashes(bytes: &[u8]) -> Vec<(u64, u64)> {
    let mut src = bytes.to_vec();
    let mut s = open_session(&mut src).unwrap();
    let mut v = Vec::new();
    for i in 0..s.chunk_count() {
        let c = read_chunk(&mut s, &mut src, i).unwrap();
        for (k, t) in c.ticks.iter().enumerate() {
            v.push((*t, state_hash(c.tick_entities(k))));
        }
    }
    v
}

/// (tick, hash) of one chunk decoded on its own (it must start with a keyframe to decode).
fn chunk_hashes(offset: u64, bytes: &[u8]) -> Vec<(u64, u64)> {
    let l = Limits::default();
    let h = ChunkHeader::parse(bytes, offset, offset + bytes.len() as u64, &l).unwrap();
    let c = ChunkDecoder::new(l).decode(&h, &bytes[36..]).unwrap();
    c.ticks.iter().enumerate().map(|(k, t)| (*t, state_hash(c.tick_entities(k)))).collect()
}

/// A generated 6 s match in 30-tick chunks, served over WebSocket on any free port.
const GENERATE: &[&str] = &["--generate", "--seconds", "6", "--live-chunk-ticks", "30", "--ws", "127.0.0.1:0"];

#[test]
fn a_viewer_from_the_start_receives_the_file_and_the_segments_hold_it() {
    let dir = tempfile::tempdir().unwrap();
    let seg = dir.path().join("seg");
    let out = dir.path().join("out.flrep");
    let (mut s, mut so) = serve(
        &[GENERATE, &["--rate", "3", "--segments", seg.to_str().unwrap(), "--out", out.to_str().unwrap()]].concat(),
    );
    let mut ws = connect(s.port.unwrap(), "?from=0");
    let mut stream = LiveStream::new(Limits::default());
    let mut r = Received::default();
    // While the match is played: every manifest read parses, names only segments that exist, and
    // a segment's bytes never change once listed.
    let mut seen: std::collections::HashMap<String, Vec<u8>> = std::collections::HashMap::new();
    let mut manifests = 0;
    read(&mut ws, &mut stream, &mut r, |r| {
        if let Ok(bytes) = std::fs::read(seg.join("manifest.json")) {
            let m = Manifest::parse(&bytes, &ManifestLimits::default()).unwrap();
            manifests += 1;
            for sg in &m.segments {
                let b = std::fs::read(seg.join(&sg.uri)).unwrap();
                assert_eq!(b.len() as u64, sg.bytes);
                assert_eq!(seen.entry(sg.uri.clone()).or_insert_with(|| b.clone()), &b, "{} changed", sg.uri);
            }
        }
        let _ = r;
        false
    });
    wait_exit(&mut s, &mut so);
    assert!(manifests > 3, "{manifests} manifests read while playing");
    let file = std::fs::read(&out).unwrap();
    // 6 s at 60 Hz in 30-tick chunks.
    assert_eq!(r.chunks.len(), 12);
    assert_eq!(r.hello.as_ref().unwrap().first_seq, 0);
    assert_eq!(r.skipped, 0);
    let (g, missing) = r.goodbye.clone().unwrap();
    assert_eq!((g.end_seq, missing, g.reason.as_str()), (12, 0, "match_over"));
    // prefix + chunks + the file's trailer is the file, byte for byte.
    let mut joined = r.prefix.clone();
    for (seq, offset, b) in &r.chunks {
        assert_eq!(*offset, joined.len() as u64, "chunk {seq}");
        joined.extend_from_slice(b);
    }
    assert!(file.len() > joined.len());
    joined.extend_from_slice(&file[joined.len()..]);
    assert_eq!(joined, file);
    // The finished file is a whole recording with its index.
    assert_eq!(file_hashes(&file).len(), 360);

    // The segments: the prefix, every chunk, the complete file, and an ended manifest.
    let m = Manifest::parse(&std::fs::read(seg.join("manifest.json")).unwrap(), &ManifestLimits::default()).unwrap();
    assert!(m.ended);
    assert_eq!(m.segments.len(), 12);
    assert_eq!(std::fs::read(seg.join(&m.prefix.uri)).unwrap(), r.prefix);
    for (sg, (seq, offset, b)) in m.segments.iter().zip(&r.chunks) {
        assert_eq!((sg.seq, sg.offset), (*seq, *offset));
        assert_eq!(&std::fs::read(seg.join(&sg.uri)).unwrap(), b);
    }
    let kills: usize = m.segments.iter().map(|s| s.kills.len()).sum();
    let mut src = file.clone();
    let sess = open_session(&mut src).unwrap();
    assert_eq!(kills, sess.markers().0.len());
    let whole = m.file.unwrap();
    assert_eq!(std::fs::read(seg.join(&whole.uri)).unwrap(), file);
    assert_eq!(whole.bytes, file.len() as u64);
    // No temporary file is left behind.
    let names: Vec<String> =
        std::fs::read_dir(&seg).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[test]
fn a_viewer_joining_mid_match_starts_at_the_latest_chunk_a_keyframe() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.flrep");
    let (mut s, mut so) = serve(&[GENERATE, &["--rate", "1", "--out", out.to_str().unwrap()]].concat());
    // Mid-match: a first viewer, from the start, has received two chunks (in real time the match
    // has some 5 s left to play).
    let mut first = connect(s.port.unwrap(), "?from=0");
    let mut probe = Received::default();
    read(&mut first, &mut LiveStream::new(Limits::default()), &mut probe, |r| r.chunks.len() >= 2);
    assert_eq!(probe.chunks.len(), 2, "the first viewer got two chunks before the end");
    drop(first);
    let mut ws = connect(s.port.unwrap(), "");
    let mut stream = LiveStream::new(Limits::default());
    let mut r = Received::default();
    read(&mut ws, &mut stream, &mut r, |_| false);
    wait_exit(&mut s, &mut so);
    let h = r.hello.unwrap();
    assert!(h.first_seq > 0, "joined at chunk {}", h.first_seq);
    assert_eq!(h.first_seq, h.head_seq - 1, "the latest whole chunk");
    assert_eq!(r.chunks[0].0, h.first_seq);
    // Each received chunk decodes alone, tick for tick as the finished file.
    let want = file_hashes(&std::fs::read(&out).unwrap());
    let mut got = Vec::new();
    for (_, offset, b) in &r.chunks {
        got.extend(chunk_hashes(*offset, b));
    }
    let at = want.iter().position(|x| *x == got[0]).unwrap();
    assert_eq!(&want[at..], &got[..]);
    assert_eq!(at as u64, h.first_seq * 30);
}

/// A server in this process, its prefix published; chunks are then pushed by the test.
fn server(opts: WsOptions) -> (Arc<Mutex<Option<FlrepLiveServer>>>, Publisher, u16) {
    let sim = Dogfight::new(DogfightConfig { entities: 4, ..DogfightConfig::default() });
    let info =
        StreamInfo { tick_rate_hz: 60, chunk_ticks: 30, prefix: Publisher::prefix_of(&sim.header(), &sim.sections()) };
    let srv = FlrepLiveServer::bind("127.0.0.1:0", opts).unwrap();
    let port = srv.port();
    let shared = Arc::new(Mutex::new(Some(srv)));
    let sinks: Vec<Box<dyn LiveSink>> = vec![Box::new(WsSink(shared.clone()))];
    (shared.clone(), Publisher::new(&info, sinks).unwrap(), port)
}

/// A chunk of `len` bytes: a valid header over filler (the server does not decode chunks).
fn synthetic_chunk(k: u64, len: usize) -> EncodedChunk {
    let h = ChunkHeader {
        offset: 0,
        compressed_len: (len - 36) as u32,
        uncompressed_len: 14 * 30,
        first_tick: k * 30,
        last_tick: k * 30 + 29,
        tick_count: 30,
        crc32: 0,
    };
    let mut bytes = Vec::with_capacity(len);
    h.write(&mut bytes);
    bytes.resize(len, (k % 251) as u8);
    EncodedChunk { bytes, first_tick: h.first_tick, last_tick: h.last_tick, markers: Vec::new() }
}

fn finish(shared: &Arc<Mutex<Option<FlrepLiveServer>>>) -> replay_player::io::flrep_live::WsStats {
    shared.lock().unwrap().take().unwrap().finish()
}

#[test]
fn a_slow_viewer_skips_to_the_newest_chunk_and_the_recorder_never_waits() {
    let (shared, mut p, port) = server(WsOptions { queue_chunks: 3, ..WsOptions::default() });
    p.chunk(&synthetic_chunk(0, 1000)).unwrap();
    let mut slow = connect(port, "?from=0");
    let mut fast = connect(port, "?from=0");
    let mut fs = LiveStream::new(Limits::default());
    let mut fr = Received::default();
    let (mut ss, mut sr) = (LiveStream::new(Limits::default()), Received::default());
    // The slow viewer reads its hello and prefix, then nothing while 120 chunks of 256 KiB (30 MiB,
    // more than loopback's socket buffers) are published; the fast one reads on its own thread.
    // Each chunk is published once the fast viewer has the one before: however loaded the machine,
    // it is never more than one behind (its queue holds 3), so only the slow one can skip.
    read(&mut slow, &mut ss, &mut sr, |_| true);
    let fast_has = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let fast_count = fast_has.clone();
    let fast_t = std::thread::spawn(move || {
        read(&mut fast, &mut fs, &mut fr, |r| {
            fast_count.store(r.chunks.len() as u64, std::sync::atomic::Ordering::SeqCst);
            false
        });
        fr
    });
    for k in 1..120 {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while fast_has.load(std::sync::atomic::Ordering::SeqCst) < k && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        p.chunk(&synthetic_chunk(k, 256 * 1024)).unwrap();
    }
    let published = p.chunks();
    let held = shared.lock().unwrap().as_ref().unwrap().stats();
    assert_eq!(held.chunks, published);
    std::thread::sleep(Duration::from_millis(300));
    p.end("match_over").unwrap();
    read(&mut slow, &mut ss, &mut sr, |_| false);
    let st = finish(&shared);
    let fr = fast_t.join().unwrap();
    assert_eq!(fr.chunks.len() as u64, published, "the fast viewer got every chunk");
    assert!(sr.skipped > 0, "the slow viewer skipped nothing");
    assert!(st.skips >= 1 && st.skipped_chunks == sr.skipped, "{st:?} vs {} skipped", sr.skipped);
    assert_eq!(sr.chunks.len() as u64 + sr.skipped, published);
    assert_eq!(sr.goodbye.unwrap().1, 0, "the slow viewer got the last chunk");
}

#[test]
fn resuming_with_from_has_no_gap_and_no_duplicate() {
    let (shared, mut p, port) = server(WsOptions::default());
    let mut sent = Vec::new();
    for k in 0..6 {
        let c = synthetic_chunk(k, 1000 + k as usize);
        sent.push(c.bytes.clone());
        p.chunk(&c).unwrap();
    }
    let mut stream = LiveStream::new(Limits::default());
    let mut r = Received::default();
    let mut ws = connect(port, "?from=0");
    read(&mut ws, &mut stream, &mut r, |r| r.chunks.len() == 4);
    drop(ws);
    for k in 6..10 {
        let c = synthetic_chunk(k, 1000 + k as usize);
        sent.push(c.bytes.clone());
        p.chunk(&c).unwrap();
    }
    stream.reconnect();
    let mut ws = connect(port, &format!("?from={}", stream.next_seq()));
    read(&mut ws, &mut stream, &mut r, |r| r.chunks.len() == 7);
    drop(ws);
    // A reconnect that asks for a chunk already received is refused by the viewer's parser.
    stream.reconnect();
    let mut dup = connect(port, "?from=3");
    let hello = loop {
        if let WsMessage::Binary(b) = dup.read().unwrap() {
            break b;
        }
    };
    let mut probe = stream.clone();
    assert_eq!(probe.push(&hello), Err(LiveError::ResumeBehind { first_seq: 3, expected: 7 }));
    drop(dup);
    let mut ws = connect(port, &format!("?from={}", stream.next_seq()));
    p.end("match_over").unwrap();
    read(&mut ws, &mut stream, &mut r, |_| false);
    finish(&shared);
    let seqs: Vec<u64> = r.chunks.iter().map(|c| c.0).collect();
    assert_eq!(seqs, (0..10).collect::<Vec<_>>());
    let got: Vec<Vec<u8>> = r.chunks.iter().map(|c| c.2.clone()).collect();
    assert_eq!(got, sent);
    assert_eq!(r.skipped, 0);
    assert_eq!(r.goodbye.unwrap().1, 0);
}

#[test]
fn origins_not_allowed_are_refused() {
    let opts = WsOptions {
        viewer: ViewerOptions { origins: Origins::Only(vec!["https://good.example".into()]), ..Default::default() },
        ..WsOptions::default()
    };
    let (shared, mut p, port) = server(opts);
    p.chunk(&synthetic_chunk(0, 500)).unwrap();
    let req = |origin: &str| {
        let mut r = format!("ws://127.0.0.1:{port}/").into_client_request().unwrap();
        r.headers_mut().insert("Origin", origin.parse().unwrap());
        r
    };
    match tungstenite::connect(req("https://evil.example")) {
        Err(tungstenite::Error::Http(resp)) => assert_eq!(resp.status(), 403),
        Err(e) => panic!("refused, but not with 403: {e}"),
        Ok(_) => panic!("an origin not allowed was let in"),
    }
    let (mut ok, _) = tungstenite::connect(req("https://good.example")).unwrap();
    let mut stream = LiveStream::new(Limits::default());
    let mut r = Received::default();
    read(&mut ok, &mut stream, &mut r, |_| true);
    assert_eq!(r.chunks.len(), 1);
    // A `from` that is not a number: the connection is closed.
    let mut bad = connect(port, "?from=x");
    assert!(!matches!(bad.read(), Ok(WsMessage::Binary(_))));
    let st = finish(&shared);
    assert_eq!(st.refused, 2, "{st:?}");
    assert_eq!(st.connected, 1);
}

#[test]
fn following_a_growing_file_publishes_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.flrep");
    let status = Command::new(env!("CARGO_BIN_EXE_replay"))
        .args(["generate", "--out", src.to_str().unwrap(), "--seconds", "5", "--keyframe-interval", "30"])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&src).unwrap();
    let grow = dir.path().join("grow.flrep");
    std::fs::write(&grow, b"").unwrap();
    let seg = dir.path().join("seg");
    let (mut s, mut so) =
        serve(&["--follow", grow.to_str().unwrap(), "--segments", seg.to_str().unwrap(), "--idle-timeout", "10"]);
    // The recorder: odd-sized writes that cut the prefix and the chunks anywhere.
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(&grow).unwrap();
        for piece in bytes.chunks(7919) {
            f.write_all(piece).unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_millis(15));
        }
    }
    let log = wait_exit(&mut s, &mut so);
    assert!(log.contains("recording_complete"), "{log}");
    assert_eq!(std::fs::read(seg.join("recording.flrep")).unwrap(), bytes);
    let m = Manifest::parse(&std::fs::read(seg.join("manifest.json")).unwrap(), &ManifestLimits::default()).unwrap();
    assert!(m.ended);
    assert_eq!(m.segments.len(), 10);
}

#[test]
fn a_follow_that_never_sees_a_recording_fails_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.flrep");
    std::fs::write(&f, b"not a replay at all, just text").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_replay"))
        .args(["live-serve", "--follow", f.to_str().unwrap(), "--segments"])
        .arg(dir.path().join("s"))
        .args(["--idle-timeout", "0.3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a .flrep file"), "{err}");
}

// ---- The parsers, alone ----------------------------------------------------------------------

fn valid_stream() -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut sim = Dogfight::new(DogfightConfig { entities: 3, seconds: 2.0, ..DogfightConfig::default() });
    let prefix = Publisher::prefix_of(&sim.header(), &sim.sections());
    let mut enc = replay_player::format::flrep::writer::ChunkEncoder::new(WriterOptions {
        keyframe_interval_ticks: 30,
        ..Default::default()
    })
    .unwrap();
    let mut chunks = Vec::new();
    while let Some((t, s, e)) = sim.step() {
        if let Some(c) = enc.push_tick(t, s, &e).unwrap() {
            chunks.push(c.bytes);
        }
    }
    chunks.extend(enc.flush().map(|c| c.bytes));
    (prefix, chunks)
}

fn messages() -> Vec<Vec<u8>> {
    let (prefix, chunks) = valid_stream();
    let id = replay_player::format::live::stream_id(&prefix);
    let mut v = vec![
        encode_hello(&Hello {
            version: 1,
            stream_id: id,
            first_seq: 0,
            head_seq: 0,
            tick_rate_hz: 60,
            chunk_ticks: 30,
        }),
        encode_prefix(&prefix),
    ];
    let mut off = prefix.len() as u64;
    for (k, c) in chunks.iter().enumerate() {
        v.push(encode_chunk(k as u64, off, c));
        off += c.len() as u64;
    }
    v.push(encode_goodbye(&Goodbye { end_seq: chunks.len() as u64, reason: "match_over".into() }));
    v
}

fn push_all(msgs: &[Vec<u8>]) -> Result<u64, LiveError> {
    let mut s = LiveStream::new(Limits::default());
    for m in msgs {
        s.push(m)?;
    }
    Ok(s.next_seq())
}

#[test]
fn the_message_parser_accepts_a_stream_and_refuses_each_fault_by_name() {
    let ok = messages();
    assert_eq!(push_all(&ok), Ok(4));
    let with = |i: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut m = ok.clone();
        f(&mut m[i]);
        push_all(&m).unwrap_err()
    };
    assert_eq!(with(0, &|m| m.clear()), LiveError::Empty);
    assert_eq!(with(0, &|m| m[0] = 9), LiveError::UnknownKind(9));
    assert!(matches!(with(0, &|m| m[1] = b'X'), LiveError::BadMagic { .. }));
    assert_eq!(with(0, &|m| m[5] = 2), LiveError::NewerVersion { got: 2 });
    assert!(matches!(with(0, &|m| m.truncate(20)), LiveError::Truncated { what: "hello", .. }));
    assert!(matches!(with(1, &|m| m[6] ^= 1), LiveError::StreamId { .. }));
    assert!(matches!(with(1, &|m| m.truncate(40)), LiveError::StreamId { .. }));
    assert!(matches!(with(2, &|m| m[17] = b'X'), LiveError::Chunk { seq: 0, .. }));
    assert!(matches!(with(2, &|m| m.push(0)), LiveError::ChunkLength { seq: 0, .. }));
    assert!(matches!(with(2, &|m| m.pop().map(|_| ()).unwrap()), LiveError::Chunk { seq: 0, .. }));
    assert!(matches!(with(3, &|m| m[9] ^= 1), LiveError::Offset { seq: 1, .. }));
    assert_eq!(with(2, &|m| m[1..9].fill(0xFF)), LiveError::SeqRange { seq: u64::MAX });
    assert!(matches!(with(2, &|m| m[9..17].fill(0xFF)), LiveError::TooLong { what: "chunk offset", .. }));
    assert!(matches!(with(6, &|m| m[1] = 1), LiveError::EndBefore { end_seq: 1, received: 4 }));
    assert!(matches!(with(6, &|m| m.push(0)), LiveError::TrailingBytes { what: "goodbye", extra: 1 }));
    // Order: a chunk before the prefix, a chunk twice, anything after goodbye.
    let mut m = ok.clone();
    m.swap(1, 2);
    assert_eq!(push_all(&m), Err(LiveError::Order { expected: "prefix", got: "chunk" }));
    let mut m = ok.clone();
    m.insert(3, ok[2].clone());
    assert_eq!(push_all(&m), Err(LiveError::Duplicate { seq: 0, expected: 1 }));
    let mut m = ok.clone();
    m.push(ok[2].clone());
    assert_eq!(push_all(&m), Err(LiveError::Order { expected: "nothing after goodbye", got: "chunk" }));
    // A skip (the server dropped chunks for a slow viewer) is reported, not refused.
    let mut s = LiveStream::new(Limits::default());
    for m in [&ok[0], &ok[1], &ok[2]] {
        s.push(m).unwrap();
    }
    assert!(matches!(s.push(&ok[4]), Ok(StreamEvent::Chunk { seq: 2, skipped: 1, .. })));
    // A message over the limit is refused before anything else is read.
    let huge = vec![3u8; (replay_player::format::live::message::max_message(&Limits::default()) + 1) as usize];
    assert!(matches!(Message::parse(&huge, &Limits::default()), Err(LiveError::TooLong { .. })));
}

#[test]
fn the_manifest_parser_refuses_hostile_manifests_by_name() {
    let good = r#"{"version":1,"stream":"0a0b0c0d","tick_rate_hz":60,"chunk_ticks":30,"target_duration_s":1,
        "prefix":{"uri":"prefix.flrep","bytes":300},"ended":false,
        "segments":[{"seq":4,"uri":"chunk-00000004.flck","offset":900,"bytes":100,"first_tick":120,"last_tick":149,
                     "kills":[{"tick":130,"killer":1,"victim":2,"weapon":0}]},
                    {"seq":5,"uri":"chunk-00000005.flck","offset":1000,"bytes":80,"first_tick":150,"last_tick":179}]}"#;
    let l = ManifestLimits::default();
    let m = Manifest::parse(good.as_bytes(), &l).unwrap();
    assert_eq!(m.segments.len(), 2);
    assert_eq!(m.segments[0].kills.len(), 1);
    let bad = |from: &str, to: &str| Manifest::parse(good.replacen(from, to, 1).as_bytes(), &l).unwrap_err();
    assert_eq!(bad(r#""version":1"#, r#""version":2"#), ManifestError::NewerVersion { got: 2 });
    assert!(matches!(bad("chunk-00000005.flck", "../../etc/passwd"), ManifestError::Bad(m) if m.contains("URI")));
    assert!(matches!(bad("chunk-00000005.flck", "https:x"), ManifestError::Bad(_)));
    assert!(matches!(bad(r#""seq":5"#, r#""seq":7"#), ManifestError::Bad(m) if m.contains("follows segment 4")));
    assert!(matches!(bad(r#""offset":1000"#, r#""offset":1001"#), ManifestError::Bad(m) if m.contains("offset")));
    assert!(matches!(bad(r#""first_tick":150"#, r#""first_tick":140"#), ManifestError::Bad(_)));
    assert!(matches!(bad("0a0b0c0d", "0A0B0C0D"), ManifestError::Bad(_)));
    assert!(matches!(bad(r#""ended":false"#, r#""ended":"no""#), ManifestError::Json(_)));
    assert!(matches!(
        bad(r#""ended":false"#, r#""ended":false,"file":{"uri":"r.flrep","bytes":9}"#),
        ManifestError::Bad(_)
    ));
    assert!(matches!(Manifest::parse(b"[1,2", &l), Err(ManifestError::Json(_))));
    let small = ManifestLimits { max_bytes: 100, ..ManifestLimits::default() };
    assert!(matches!(Manifest::parse(good.as_bytes(), &small), Err(ManifestError::TooLarge { max: 100, .. })));
    let one = ManifestLimits { max_segments: 1, ..ManifestLimits::default() };
    assert!(matches!(Manifest::parse(good.as_bytes(), &one), Err(ManifestError::Bad(_))));
}

#[test]
fn the_harnesses_run_over_a_valid_stream_its_cuts_and_flips() {
    let msgs = messages();
    let refs: Vec<Option<&[u8]>> = msgs.iter().map(|m| Some(m.as_slice())).collect();
    let input = live_harness::join(&refs);
    live_harness::live_messages(&input);
    for cut in (0..input.len()).step_by(97) {
        live_harness::live_messages(&input[..cut]);
    }
    for at in (0..input.len()).step_by(211) {
        let mut x = input.clone();
        x[at] ^= 0x5A;
        live_harness::live_messages(&x);
    }
    let m =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/live_manifest/manifest.json"))
            .unwrap();
    live_harness::live_manifest(m.as_bytes());
    for cut in 0..m.len() {
        live_harness::live_manifest(&m.as_bytes()[..cut]);
    }
    let _ = Instant::now();
}
