//! The replay host's figures, side by side in one run on this machine (prints, asserts nothing):
//! 1. an upload with its check (`POST /api/replays` to a host in this process, loopback) beside
//!    `replay validate` of the same file (the library check it runs, on a file on disk);
//! 2. Range reads per second of one replay from the host beside nginx serving the same file
//!    (`/usr/sbin/nginx`, started here on 127.0.0.1 with as many workers as cores), the same client
//!    (this process, HOST_BENCH_CONC concurrent connections, 64 KiB ranges) for HOST_BENCH_SECONDS.
//!
//! `cargo run --release --example host_bench` (or `--profile test` for a quicker build: say which).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::host::server::{serve, AppState, Config};
use replay_player::host::store::Store;
use replay_player::sim::DogfightConfig;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn dogfight(seed: u64, entities: u32, seconds: f64) -> Vec<u8> {
    let cfg = DogfightConfig { seed, entities, seconds, keyframe_interval_ticks: 60, ..DogfightConfig::default() };
    replay_player::sim::dogfight_bytes(&cfg).unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

async fn start(data: &std::path::Path) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let mut cfg = Config::new(data.to_path_buf(), url.clone());
    cfg.upload_burst = 1_000_000;
    cfg.uploads_per_minute = 1_000_000;
    let state = AppState::new(Store::open(None, data).unwrap(), cfg);
    tokio::spawn(async move { serve(listener, state).await });
    url
}

/// Range reads per second against `url` (a file of `len` bytes).
async fn range_rate(c: &reqwest::Client, url: &str, len: u64, conc: u64, seconds: u64) -> f64 {
    let n = Arc::new(AtomicU64::new(0));
    let stop = Instant::now() + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..conc)
        .map(|i| {
            let (c, url, n) = (c.clone(), url.to_string(), n.clone());
            tokio::spawn(async move {
                let mut k = i + 1;
                while Instant::now() < stop {
                    k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let start = (k >> 16) % len.saturating_sub(65_536).max(1);
                    let r =
                        c.get(&url).header("range", format!("bytes={start}-{}", start + 65_535)).send().await.unwrap();
                    assert_eq!(r.status(), 206);
                    let b = r.bytes().await.unwrap();
                    assert_eq!(b.len(), 65_536);
                    n.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    n.load(Ordering::Relaxed) as f64 / seconds as f64
}

fn start_nginx(dir: &std::path::Path, root: &std::path::Path) -> Option<(std::process::Child, String)> {
    let nginx = std::path::Path::new("/usr/sbin/nginx");
    if !nginx.exists() {
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
    let t = |n: &str| format!("{n}_temp_path {};", dir.join("temp").join(n).display());
    let conf = format!(
        "daemon off;\nworker_processes auto;\npid {pid};\nerror_log {err} warn;\nevents {{ worker_connections 1024; }}\n\
         http {{\n {temps}\n access_log off;\n server {{\n  listen 127.0.0.1:{port};\n  root {root};\n  \
         location / {{ add_header Access-Control-Allow-Origin * always; }}\n }}\n}}\n",
        pid = dir.join("nginx.pid").display(),
        err = dir.join("error.log").display(),
        temps = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(t).join("\n "),
        root = root.display(),
    );
    std::fs::create_dir_all(dir.join("temp")).ok()?;
    std::fs::write(dir.join("nginx.conf"), conf).ok()?;
    let child = std::process::Command::new(nginx)
        .arg("-p")
        .arg(dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let end = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some((child, format!("http://127.0.0.1:{port}")))
}

#[tokio::main]
async fn main() {
    let seconds = env("HOST_BENCH_SECONDS", 5);
    let conc = env("HOST_BENCH_CONC", 32);
    let runs = env("HOST_BENCH_RUNS", 3) as usize;
    let entities = env("HOST_BENCH_ENTITIES", 100) as u32;
    let tmp = tempfile::tempdir().unwrap();
    let bytes = dogfight(9, entities, 300.0);
    let path = tmp.path().join("bench.flrep");
    std::fs::write(&path, &bytes).unwrap();
    println!("file: {entities} entities, 300 s, {:.1} MB", bytes.len() as f64 / 1e6);

    let c = reqwest::Client::builder().no_proxy().build().unwrap();
    let data = tmp.path().join("host");
    let url = start(&data).await;
    let (mut validate, mut upload) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let p = path.clone();
        tokio::task::spawn_blocking(move || {
            let mut src = replay_player::io::FileSource::open(&p).unwrap();
            let r = replay_player::io::validate::validate(&mut src).unwrap();
            assert!(r.passed());
        })
        .await
        .unwrap();
        validate.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let r = c.post(format!("{url}/api/replays")).body(bytes.clone()).send().await.unwrap();
        assert_eq!(r.status(), 201);
        let v: serde_json::Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
        upload.push(t.elapsed().as_secs_f64());
        let del = c
            .delete(format!("{url}/api/replays/{}", v["id"].as_str().unwrap()))
            .bearer_auth(v["deleteToken"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(del.status(), 204);
    }
    let (v, u) = (median(validate), median(upload));
    println!(
        "upload with its check: {:.0} ms; validate: {:.0} ms; ratio {:.2}x (median of {runs})",
        u * 1e3,
        v * 1e3,
        u / v
    );

    // Range reads: the host beside nginx, the same file.
    let r = c.post(format!("{url}/api/replays")).body(bytes.clone()).send().await.unwrap();
    let v: serde_json::Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    let file_url = v["file"].as_str().unwrap().to_string();
    let len = bytes.len() as u64;
    let host_rate = range_rate(&c, &file_url, len, conc, seconds).await;
    let root = tmp.path().join("www");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("bench.flrep"), &bytes).unwrap();
    match start_nginx(&tmp.path().join("nginx"), &root) {
        Some((mut child, nurl)) => {
            let nginx_rate = range_rate(&c, &format!("{nurl}/bench.flrep"), len, conc, seconds).await;
            let host_rate2 = range_rate(&c, &file_url, len, conc, seconds).await;
            // SIGTERM to the master stops its workers too (SIGKILL would leave them behind).
            let _ = std::process::Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
            let _ = child.wait();
            let host = (host_rate + host_rate2) / 2.0;
            println!(
                "range reads (64 KiB, {conc} connections, {seconds} s each): host {host:.0}/s ({host_rate:.0}, \
                 {host_rate2:.0}), nginx {nginx_rate:.0}/s; ratio {:.2}x",
                host / nginx_rate
            );
        }
        None => println!("range reads: host {host_rate:.0}/s; nginx not found or did not start (no ratio)"),
    }
}
