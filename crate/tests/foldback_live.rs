//! Live mode end to end: `replay live-demo` (the game side) against tungstenite clients (the viewer
//! side, parsing with the same `parse_frame` as files): hello, frames, the desync found from live
//! frames, reconnects, and a viewer that never reads not stalling the game loop.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::foldback::diverge::{Bytes, Comparison, Status};
use replay_player::format::foldback::live::{Control, Hello, LiveRecording};
use replay_player::format::foldback::{parse_frame, Frame, Limits};
use replay_player::io::live::{LiveOptions, LiveServer};
use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

struct Demo {
    child: Child,
    port: u16,
    out: BufReader<std::process::ChildStdout>,
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(args: &[&str]) -> Demo {
    let mut child = Command::new(env!("CARGO_BIN_EXE_replay"))
        .arg("live-demo")
        .args(["--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let port = line.trim().rsplit(':').next().unwrap().parse().unwrap_or_else(|_| panic!("no port in {line:?}"));
    Demo { child, port, out }
}

fn connect(port: u16) -> WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>> {
    let (ws, _) = tungstenite::connect(format!("ws://127.0.0.1:{port}")).unwrap();
    ws
}

/// Reads the hello (first message) and returns a recording for it.
fn hello(ws: &mut WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>) -> (Hello, LiveRecording) {
    let Message::Text(t) = ws.read().unwrap() else { panic!("first message is not text") };
    let Control::Hello(h) = Control::parse(t.as_str()).unwrap() else { panic!("first message is not hello: {t}") };
    let rec = LiveRecording::from_hello(&h, Limits::default()).unwrap();
    (h, rec)
}

/// Reads until goodbye (or `stop(last tick)` says stop); returns the goodbye reason if one came.
fn read_frames(
    ws: &mut WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    rec: &mut LiveRecording,
    mut stop: impl FnMut(u64) -> bool,
) -> Option<String> {
    loop {
        match ws.read() {
            Ok(Message::Binary(b)) => {
                let f = parse_frame(&b).unwrap();
                let t = f.tick();
                rec.push(&b).unwrap();
                if t.is_some_and(&mut stop) {
                    return None;
                }
            }
            Ok(Message::Text(t)) => match Control::parse(t.as_str()).unwrap() {
                Control::Goodbye { reason } => return Some(reason),
                other => panic!("unexpected control {other:?}"),
            },
            Ok(_) => {}
            Err(e) => panic!("read error {e}"),
        }
    }
}

#[test]
fn live_demo_end_to_end() {
    // 240 ticks at 60 Hz: 4 s. The desync is 2.5 s in.
    let mut demo = start(&[
        "--ticks",
        "240",
        "--tick-rate",
        "60",
        "--desync-tick",
        "150",
        "--desync-entity",
        "101",
        "--desync-field",
        "position.x",
    ]);
    // A viewer that connects and never reads a byte.
    let mut idle = TcpStream::connect(("127.0.0.1", demo.port)).unwrap();
    use std::io::Write;
    idle.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").unwrap();

    // Viewer A: hello, metadata, some ticks, then it goes away.
    let mut a = connect(demo.port);
    let (ha, mut rec_a) = hello(&mut a);
    assert_eq!((ha.protocol_version, ha.tick_rate_hz, ha.peer_count, ha.build_id.len()), (1, 60, 2, 32));
    read_frames(&mut a, &mut rec_a, |t| t >= 20);
    assert!(rec_a.index().metadata.iter().any(|(k, _)| k == "game"), "a new viewer gets the metadata frames");
    assert!(rec_a.index().counts.tick_hash >= 2);
    drop(a);

    // Viewer B reconnects: a fresh hello, the metadata again, then live frames to the goodbye.
    let mut b = connect(demo.port);
    let (hb, mut rec_b) = hello(&mut b);
    assert_eq!(hb, ha);
    let reason = read_frames(&mut b, &mut rec_b, |_| false);
    assert_eq!(reason.as_deref(), Some("game_exited"));
    assert!(rec_b.index().metadata.iter().any(|(k, _)| k == "game"));
    let ix = rec_b.index();
    let first = ix.first_tick().unwrap();
    assert!(first > 20 && first < 150, "B joined live (first tick {first}), before the desync");
    assert_eq!(ix.last_tick(), Some(239), "every tick was produced");
    assert_eq!(ix.ticks.len() as u64, 240 - first, "B missed nothing after it joined");

    // The divergence model finds the desync from live frames.
    let cmp = Comparison::single(ix);
    assert_eq!(cmp.first_divergence(), Some(150));
    let data: Vec<Bytes<'_>> = cmp
        .reads_for_tick(150)
        .iter()
        .map(|r| Bytes { source: r.source, offset: r.offset, bytes: rec_b.read(r.offset, r.len).unwrap() })
        .collect();
    let e = cmp.entity_detail(150, 101, &data);
    let diff: Vec<&str> = e.fields.iter().filter(|f| f.status == Status::Disagree).map(|f| f.name.as_str()).collect();
    assert_eq!(diff, ["position.x"]);

    // The game loop ran every tick to its end while the idle viewer was connected and read nothing
    // (its socket is still open here): broadcasting never waited for it. (How long the 240 ticks
    // took is a figure of the line printed below, not asserted: this is a shared machine.)
    let mut rest = String::new();
    demo.out.read_to_string(&mut rest).unwrap();
    let st = demo.child.wait().unwrap();
    assert!(st.success());
    assert!(rest.contains("live-demo: 240 ticks in"), "{rest}");
    let connected: u64 = rest.split("viewers: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert_eq!(connected, 3, "the idle viewer, A and B: {rest}");
    eprintln!("{}", rest.trim());
    drop(idle);
}

#[test]
fn a_viewer_that_never_reads_is_disconnected_and_never_blocks_broadcast() {
    let hello = Hello { protocol_version: 1, tick_rate_hz: 60, peer_count: 2, build_id: "ab".repeat(16) };
    // A write timeout far longer than the test: the only way out for the idle viewer is its full queue.
    let opts = LiveOptions { queue_frames: 4, write_timeout: Duration::from_secs(600), ..LiveOptions::default() };
    let server = LiveServer::bind(0, &hello, opts).unwrap();
    let wait_viewers = |n: u64| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while server.stats().viewers < n && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(server.stats().viewers, n);
    };
    // A WebSocket client that completes the handshake and then never reads.
    let (mut ws, _) = tungstenite::connect(format!("ws://127.0.0.1:{}", server.port())).unwrap();
    let Message::Text(_) = ws.read().unwrap() else { panic!() };
    wait_viewers(1);
    // A second viewer that reads every frame, in its own thread, and says which 256 KiB frame it got.
    let (mut good, _) = tungstenite::connect(format!("ws://127.0.0.1:{}", server.port())).unwrap();
    let Message::Text(_) = good.read().unwrap() else { panic!() };
    wait_viewers(2);
    let (got_tx, got_rx) = std::sync::mpsc::channel::<u32>();
    let reader = std::thread::spawn(move || loop {
        match good.read() {
            Ok(Message::Binary(b)) if b.len() == 5 + 256 * 1024 => {
                got_tx.send(u32::from_le_bytes(b[5..9].try_into().unwrap())).unwrap();
            }
            Ok(Message::Binary(_)) => {}
            Ok(Message::Text(t)) => return Control::parse(t.as_str()).unwrap(),
            Ok(_) => {}
            Err(e) => panic!("the reading viewer lost its connection: {e}"),
        }
    });
    // 400 frames of 256 KiB (100 MiB): far more than socket buffers hold. Each is broadcast once the
    // reading viewer has the one before, so it never falls behind; the idle one fills its socket and
    // its queue of 4 and is disconnected. Broadcast returning each time is the property: a broadcast
    // that waited on the idle viewer would never return. (Its speed: `cargo run --example
    // broadcast_bench`.)
    let mut got = Vec::new();
    for i in 0..400u32 {
        let mut f = vec![0x42];
        f.extend_from_slice(&(256 * 1024u32).to_le_bytes());
        f.extend_from_slice(&i.to_le_bytes());
        f.resize(5 + 256 * 1024, 7);
        server.broadcast(f);
        got.push(got_rx.recv().unwrap());
    }
    assert_eq!(got, (0..400).collect::<Vec<u32>>(), "the reading viewer got every frame, in order");
    let st = server.stats();
    assert_eq!((st.dropped_slow, st.viewers, st.frames), (1, 1, 400), "the idle viewer alone was dropped: {st:?}");
    // The same client reconnecting is served again from scratch.
    let (mut again, _) = tungstenite::connect(format!("ws://127.0.0.1:{}", server.port())).unwrap();
    let Message::Text(t) = again.read().unwrap() else { panic!() };
    assert!(matches!(Control::parse(t.as_str()).unwrap(), Control::Hello(_)));
    wait_viewers(2);
    server.broadcast(vec![0x01, 18, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 9, 9, 9, 9, 9, 9, 9, 9]);
    let Message::Binary(b) = again.read().unwrap() else { panic!() };
    assert_eq!(parse_frame(&b).unwrap(), Frame::TickHash { tick: 1, peer: 1, hash: 0x0909_0909_0909_0909 });
    let st = server.finish("test_over");
    assert_eq!(st.connected, 3);
    let Message::Text(t) = again.read().unwrap() else { panic!() };
    assert_eq!(Control::parse(t.as_str()).unwrap(), Control::Goodbye { reason: "test_over".into() });
    assert_eq!(reader.join().unwrap(), Control::Goodbye { reason: "test_over".into() });
    drop(ws);
}
