//! `replay live-serve`: a `.flrep` published while it is written (docs/live.md), from a growing file
//! (`--follow`) or from the dogfight generator played in real time (`--generate`, `--rate`), over
//! WebSocket (`--ws`) and as HTTP segments (`--segments`) at once.

use super::args::LiveServeArgs;
use super::{dogfight_config, Fail};
use replay_player::format::flrep::writer::{ChunkEncoder, EncodedChunk, WriterOptions};
use replay_player::format::flrep::Limits;
use replay_player::io::flrep_live::{FileSink, FlrepLiveServer, LiveSink, Publisher, StreamInfo, WsOptions, WsSink};
use replay_player::io::follow::{Followed, Follower};
use replay_player::io::segments::{SegmentOptions, SegmentWriter};
use replay_player::io::viewers::Origins;
use replay_player::sim::Dogfight;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn io_fail(what: &str) -> impl Fn(std::io::Error) -> Fail + '_ {
    move |e| Fail(format!("{what}: {e}"), 2)
}

pub fn live_serve(a: &LiveServeArgs) -> Result<u8, Fail> {
    if !(a.rate.is_finite() && a.rate > 0.0) {
        return Err(Fail("--rate must be a positive number".into(), 2));
    }
    let ws = match &a.ws {
        Some(addr) => {
            let opts = WsOptions {
                queue_chunks: a.ws_queue.max(1),
                viewer: replay_player::io::viewers::ViewerOptions {
                    origins: if a.allow_origin.is_empty() {
                        Origins::Any
                    } else {
                        Origins::Only(a.allow_origin.clone())
                    },
                    ..Default::default()
                },
                ..WsOptions::default()
            };
            let server =
                FlrepLiveServer::bind(addr.as_str(), opts).map_err(io_fail(&format!("cannot listen on {addr}")))?;
            println!("live-serve: ws://{}", server.addr());
            Some(Arc::new(Mutex::new(Some(server))))
        }
        None => None,
    };
    let mut sinks: Vec<Box<dyn LiveSink>> = Vec::new();
    if let Some(s) = &ws {
        sinks.push(Box::new(WsSink(s.clone())));
    }
    if let Some(dir) = &a.segments {
        let w = SegmentWriter::create(dir, SegmentOptions { window: a.manifest_window })
            .map_err(io_fail(&dir.display().to_string()))?;
        println!("live-serve: segments in {}", dir.display());
        sinks.push(Box::new(w));
    }
    let _ = std::io::stdout().flush();
    let summary = match &a.follow {
        Some(path) => follow(path, a, sinks)?,
        None => generate(a, sinks)?,
    };
    let ws_line = match ws.and_then(|s| s.lock().ok().and_then(|mut s| s.take())) {
        Some(server) => {
            let st = server.finish();
            format!(
                "; viewers: {} connected, {} skips ({} chunks) for falling behind, {} went away, {} refused",
                st.connected, st.skips, st.skipped_chunks, st.disconnected, st.refused
            )
        }
        None => String::new(),
    };
    println!("live-serve: {summary}{ws_line}");
    Ok(0)
}

fn generate(a: &LiveServeArgs, mut sinks: Vec<Box<dyn LiveSink>>) -> Result<String, Fail> {
    let mut cfg = dogfight_config(&a.sim)?;
    if let Some(t) = a.live_chunk_ticks {
        cfg.keyframe_interval_ticks = t;
    }
    let opts = WriterOptions { keyframe_interval_ticks: cfg.keyframe_interval_ticks, ..Default::default() };
    let mut enc = ChunkEncoder::new(opts).map_err(|e| Fail(format!("--live-chunk-ticks: {e}"), 2))?;
    if let Some(out) = &a.out {
        sinks.push(Box::new(FileSink::new(out)));
    }
    let mut sim = Dogfight::new(cfg.clone());
    let mut header = sim.header();
    header.keyframe_interval_ticks = cfg.keyframe_interval_ticks;
    let info = StreamInfo {
        tick_rate_hz: cfg.tick_rate_hz,
        chunk_ticks: cfg.keyframe_interval_ticks,
        prefix: Publisher::prefix_of(&header, &sim.sections()),
    };
    let mut p = Publisher::new(&info, sinks).map_err(io_fail("start"))?;
    let period = Duration::from_secs_f64(1.0 / (f64::from(cfg.tick_rate_hz) * a.rate));
    let start = Instant::now();
    let (mut steps, mut late, mut worst) = (0u32, 0u64, Duration::ZERO);
    while let Some((tick, states, events)) = sim.step() {
        let closed = enc.push_tick(tick, states, &events).map_err(|e| Fail(e.to_string(), 2))?;
        if let Some(c) = closed {
            p.chunk(&c).map_err(io_fail("publish"))?;
        }
        steps = steps.saturating_add(1);
        // The match's own schedule: tick k is due at start + k·period, whatever the viewers do.
        let due = start + period * steps;
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        } else if now - due > period {
            late += 1;
            worst = worst.max(now - due);
        }
    }
    if let Some(c) = enc.flush() {
        p.chunk(&c).map_err(io_fail("publish"))?;
    }
    let chunks = p.chunks();
    p.end("match_over").map_err(io_fail("end"))?;
    Ok(format!(
        "{steps} ticks in {:.2} s ({late} more than a tick late, worst {:.1} ms); {chunks} chunks",
        start.elapsed().as_secs_f64(),
        worst.as_secs_f64() * 1e3
    ))
}

fn follow(path: &std::path::Path, a: &LiveServeArgs, sinks: Vec<Box<dyn LiveSink>>) -> Result<String, Fail> {
    let name = path.display().to_string();
    let mut f = Follower::open(path, Limits::default()).map_err(io_fail(&name))?;
    let idle = Duration::from_secs_f64(a.idle_timeout.max(0.1));
    let poll = Duration::from_millis(50);
    let mut publisher: Option<Publisher> = None;
    let mut pending = Some(sinks);
    let mut last_change = Instant::now();
    let reason = loop {
        let step = f.poll().map_err(io_fail(&name))?;
        match step {
            Followed::Prefix { header, bytes } => {
                let info = StreamInfo {
                    tick_rate_hz: header.tick_rate_hz,
                    chunk_ticks: header.keyframe_interval_ticks.max(1),
                    prefix: bytes,
                };
                let sinks = pending.take().unwrap_or_default();
                publisher = Some(Publisher::new(&info, sinks).map_err(io_fail("start"))?);
                last_change = Instant::now();
            }
            Followed::Chunk(c) => {
                publish(publisher.as_mut(), &c)?;
                last_change = Instant::now();
            }
            Followed::Ended => break "recording_complete",
            Followed::Waiting { problem } => {
                if last_change.elapsed() >= idle {
                    if let Some(p) = problem {
                        if publisher.is_none() {
                            return Err(Fail(format!("{name}: {p}"), 1));
                        }
                        eprintln!("replay: {name}: {p}");
                    }
                    break "source_stalled";
                }
                std::thread::sleep(poll);
            }
        }
    };
    let Some(p) = publisher else {
        return Err(Fail(format!("{name}: no .flrep prefix after {:.1} s", idle.as_secs_f64()), 1));
    };
    let chunks = p.chunks();
    p.end(reason).map_err(io_fail("end"))?;
    Ok(format!("followed {name}: {chunks} chunks ({reason})"))
}

fn publish(p: Option<&mut Publisher>, c: &EncodedChunk) -> Result<(), Fail> {
    match p {
        Some(p) => p.chunk(c).map_err(io_fail("publish")),
        None => Err(Fail("a chunk before the prefix".into(), 2)),
    }
}
