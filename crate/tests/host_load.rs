//! The replay host under load on loopback (bounded): 20 concurrent uploads of distinct files while
//! 200 concurrent readers make Range reads of one replay for `HOST_LOAD_SECONDS` (default 10).
//! Nothing that should pass is refused, every stored object's hash is the sent file's, every range
//! read is the file's bytes. Prints the figures and the peak RSS (VmHWM, server and clients in one
//! process); asserts no timing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod host_common;

use host_common::*;
use sha2::Digest;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(str::to_string))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_and_range_readers_at_once() {
    let seconds: u64 = std::env::var("HOST_LOAD_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |_| {}).await;
    let c = client();
    let read_file = dogfight(100, 30, 60.0);
    let (s, v) = upload(&c, &h.url, read_file.clone()).await;
    assert_eq!(s, 201, "{v}");
    let read_url = v["file"].as_str().unwrap().to_string();
    let read_file = Arc::new(read_file);
    let uploads: Vec<Vec<u8>> = (0..20).map(|i| dogfight(200 + i, 20, 40.0)).collect();
    let upload_bytes: usize = uploads.iter().map(Vec::len).sum();

    let stop_at = Instant::now() + Duration::from_secs(seconds);
    let reads = Arc::new(AtomicU64::new(0));
    let read_bytes = Arc::new(AtomicU64::new(0));
    let mut readers = Vec::new();
    for r in 0..200u64 {
        let (c, url, file, reads, read_bytes) =
            (c.clone(), read_url.clone(), read_file.clone(), reads.clone(), read_bytes.clone());
        readers.push(tokio::spawn(async move {
            let len = file.len() as u64;
            let mut k = r;
            while Instant::now() < stop_at {
                k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let start = (k >> 16) % len;
                let n = 1 + (k >> 40) % 65_536;
                let end = (start + n).min(len) - 1;
                let resp = c.get(&url).header("range", format!("bytes={start}-{end}")).send().await.unwrap();
                assert_eq!(resp.status(), 206);
                let got = resp.bytes().await.unwrap();
                assert_eq!(got.as_ref(), &file[start as usize..=end as usize]);
                reads.fetch_add(1, Ordering::Relaxed);
                read_bytes.fetch_add(got.len() as u64, Ordering::Relaxed);
            }
        }));
    }
    let t0 = Instant::now();
    let ups: Vec<_> = uploads
        .iter()
        .cloned()
        .map(|b| {
            let (c, url) = (c.clone(), h.url.clone());
            tokio::spawn(async move { upload(&c, &url, b).await })
        })
        .collect();
    let mut ids = Vec::new();
    for (u, b) in ups.into_iter().zip(&uploads) {
        let (s, v) = u.await.unwrap();
        assert_eq!(s, 201, "{v}");
        assert_eq!(v["id"], content_id(b).as_str());
        ids.push(v["id"].as_str().unwrap().to_string());
    }
    let upload_s = t0.elapsed().as_secs_f64();
    for r in readers {
        r.await.unwrap();
    }
    // Every stored object is the sent file (its SHA-256), and every upload is listed.
    for (id, b) in ids.iter().zip(&uploads) {
        let stored = std::fs::read(dir.path().join("store/files").join(id)).unwrap();
        assert_eq!(sha2::Sha256::digest(&stored), sha2::Sha256::digest(b), "{id}");
    }
    assert_eq!(listed(&c, &h.url).await.len(), 21);
    let n = reads.load(Ordering::Relaxed);
    assert!(n > 0);
    println!(
        "host load: 20 uploads ({:.1} MB) in {upload_s:.2} s beside 200 Range readers; {n} range reads \
         ({:.1} MB) in {seconds} s = {:.0}/s; peak RSS (VmHWM) {} MiB",
        upload_bytes as f64 / 1e6,
        read_bytes.load(Ordering::Relaxed) as f64 / 1e6,
        n as f64 / seconds as f64,
        vm_hwm_kib() / 1024
    );
}
