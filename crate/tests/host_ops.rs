//! What an operator runs the host with (issue 37, docs/hosting.md "Operating"): /healthz, /readyz,
//! /metrics (parsed below by the text format's rules), the admin token's hide / show / delete,
//! `--keep-days`, and the real `replay` binary configured from the environment alone and stopped
//! by a real SIGTERM in the middle of an upload.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod host_common;

use host_common::*;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

/// `name{labels} value` lines of the Prometheus text format, by the whole series name.
fn parse_metrics(text: &str) -> HashMap<String, f64> {
    let mut out = HashMap::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("not a sample line: {line}"));
        let v: f64 = value.parse().unwrap_or_else(|_| panic!("not a number in {line}"));
        out.insert(series.to_string(), v);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_readiness_and_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |c| c.max_upload_bytes = 50_000).await;
    let c = client();
    let r = c.get(format!("{}/healthz", h.url)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = c.get(format!("{}/readyz", h.url)).send().await.unwrap();
    assert_eq!(r.status(), 200, "the store answers a write, a read and a delete");
    assert!(files_under(&dir.path().join("store")).iter().all(|f| !f.starts_with("ready")), "the probe is gone");

    let bytes = dogfight(3, 4, 3.0);
    let size = bytes.len() as f64;
    let (status, body) = upload(&c, &h.url, bytes).await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().unwrap().to_string();
    let (status, _) = upload(&c, &h.url, vec![0u8; 60_000]).await;
    assert_eq!(status, 413);
    let (status, _) = upload(&c, &h.url, b"not a replay".to_vec()).await;
    assert_eq!(status, 422);
    h.settled(3).await;
    let r = c.get(format!("{}/files/{id}", h.url)).header("range", "bytes=0-99").send().await.unwrap();
    assert_eq!(r.status(), 206);
    r.bytes().await.unwrap();
    let r = c.get(format!("{}/r/{id}/poster.png", h.url)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.bytes().await.unwrap();

    let r = c.get(format!("{}/metrics", h.url)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/plain; version=0.0.4"));
    let m = parse_metrics(&r.text().await.unwrap());
    assert_eq!(m["replay_host_upload_bytes_total"], size, "{m:?}");
    assert_eq!(m["replay_host_uploads_refused_total{reason=\"413\"}"], 1.0, "{m:?}");
    assert_eq!(m["replay_host_uploads_refused_total{reason=\"422\"}"], 1.0, "{m:?}");
    assert_eq!(m["replay_host_requests_total{route=\"/api/replays\",status=\"201\"}"], 1.0, "{m:?}");
    assert_eq!(m["replay_host_requests_total{route=\"/healthz\",status=\"200\"}"], 1.0, "{m:?}");
    assert_eq!(m["replay_host_requests_total{route=\"/files/{id}\",status=\"206\"}"], 1.0, "{m:?}");
    assert_eq!(m["replay_host_range_bytes_total"], 100.0, "{m:?}");
    assert_eq!(m["replay_host_poster_seconds_count"], 1.0, "{m:?}");
    assert!(m["replay_host_poster_seconds_sum"] > 0.0, "{m:?}");
    assert_eq!(m["replay_host_store_errors_total"], 0.0, "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_token_hides_shows_and_deletes_any_replay() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |c| c.admin_token = Some("admin-secret".into())).await;
    let c = client();
    let bytes = dogfight(5, 4, 3.0);
    let (status, body) = upload(&c, &h.url, bytes.clone()).await;
    assert_eq!(status, 201);
    let id = body["id"].as_str().unwrap().to_string();
    let token = body["deleteToken"].as_str().unwrap().to_string();
    let hidden = format!("{}/api/replays/{id}/hidden", h.url);

    // Without the token, with another: refused.
    assert_eq!(c.put(&hidden).send().await.unwrap().status(), 401);
    assert_eq!(c.put(&hidden).bearer_auth(&token).send().await.unwrap().status(), 403, "the delete token cannot hide");
    // Hidden: gone from the list, the page, the file, the poster, oEmbed.
    assert_eq!(c.put(&hidden).bearer_auth("admin-secret").send().await.unwrap().status(), 204);
    assert!(listed(&c, &h.url).await.is_empty());
    for path in [
        format!("/r/{id}"),
        format!("/files/{id}"),
        format!("/r/{id}/poster.png"),
        format!("/oembed?url={}/r/{id}&format=json", h.url),
    ] {
        let r = c.get(format!("{}{path}", h.url)).send().await.unwrap();
        assert_eq!(r.status(), 404, "{path} of a hidden replay");
    }
    // The same bytes uploaded again do not bring it back.
    let (status, body) = upload(&c, &h.url, bytes.clone()).await;
    assert_eq!(status, 410, "{body}");
    // Shown again: listed, its file read.
    assert_eq!(c.delete(&hidden).bearer_auth("admin-secret").send().await.unwrap().status(), 204);
    assert_eq!(listed(&c, &h.url).await.len(), 1);
    assert_eq!(c.get(format!("{}/files/{id}", h.url)).send().await.unwrap().status(), 200);
    // The uploader's token still deletes; the admin's deletes another's.
    let (_, other) = upload(&c, &h.url, dogfight(6, 4, 3.0)).await;
    let other = other["id"].as_str().unwrap().to_string();
    let del = |id: &str| c.delete(format!("{}/api/replays/{id}", h.url));
    assert_eq!(del(&id).bearer_auth(&token).send().await.unwrap().status(), 204);
    assert_eq!(del(&other).bearer_auth("admin-secret").send().await.unwrap().status(), 204);
    assert!(listed(&c, &h.url).await.is_empty());
    assert_nothing_stored(dir.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_days_removes_the_oldest() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |_| {}).await;
    let c = client();
    let (_, a) = upload(&c, &h.url, dogfight(7, 4, 3.0)).await;
    let (_, b) = upload(&c, &h.url, dogfight(8, 4, 3.0)).await;
    let (a, b) = (a["id"].as_str().unwrap().to_string(), b["id"].as_str().unwrap().to_string());
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let day = Duration::from_secs(86_400);
    let store = &h.state.store;
    // Kept for a day: nothing goes today, everything two days from now, oldest first.
    assert!(replay_player::host::retention::sweep(store, day, now).await.unwrap().is_empty());
    assert_eq!(listed(&c, &h.url).await.len(), 2);
    let mut removed = replay_player::host::retention::sweep(store, day, now + 2 * 86_400).await.unwrap();
    removed.sort();
    let mut want = vec![a, b];
    want.sort();
    assert_eq!(removed, want);
    assert!(listed(&c, &h.url).await.is_empty());
    assert_nothing_stored(dir.path());
}

/// `replay host` from the environment alone; returns the child and its address.
fn spawn_host(data: &std::path::Path) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_replay"))
        .arg("host")
        .env("REPLAY_HOST_DATA", data)
        .env("REPLAY_HOST_LISTEN", "127.0.0.1:0")
        .env("REPLAY_HOST_BODY_TIMEOUT", "3")
        .env("REPLAY_HOST_LOG_FORMAT", "json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr = line
        .split("listening on http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    // (Its later lines are read by the test that waits for the stop.)
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = out.read_to_string(&mut rest);
    });
    (child, addr)
}

fn sigterm(child: &std::process::Child) {
    let ok = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

#[test]
fn sigterm_finishes_the_upload_under_way_and_a_cut_one_is_never_listed() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = dogfight(9, 4, 3.0);
    let id = content_id(&bytes);

    // An upload half sent when the signal comes: its body is then finished, and it is stored.
    let (mut child, addr) = spawn_host(dir.path());
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!("POST /api/replays HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n", bytes.len());
    s.write_all(head.as_bytes()).unwrap();
    let half = bytes.len() / 2;
    s.write_all(&bytes[..half]).unwrap();
    s.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300)); // (the host has the head and half the body)
    sigterm(&child);
    s.write_all(&bytes[half..]).unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 201"), "the upload under way was finished: {answer}");
    let status = child.wait().unwrap();
    assert!(status.success(), "the host exits cleanly: {status}");
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let log: Vec<serde_json::Value> = err.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert!(
        log.iter().any(|l| l["fields"]["route"] == "/api/replays" && l["fields"]["status"] == 201),
        "one JSON line per request: {err}"
    );

    // An upload whose body stops when the signal comes: dropped after --body-timeout, never listed.
    let other = dogfight(10, 4, 3.0);
    let (mut child, addr) = spawn_host(dir.path());
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    let head = format!("POST /api/replays HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n", other.len());
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&other[..other.len() / 2]).unwrap();
    s.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    sigterm(&child);
    let status = child.wait().unwrap();
    assert!(status.success(), "the host exits once the cut upload is dropped: {status}");
    drop(s);

    // Started again over the same store: the finished upload listed, the cut one not.
    let (mut child, addr) = spawn_host(dir.path());
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.write_all(b"GET /api/replays HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut list = String::new();
    s.read_to_string(&mut list).unwrap();
    assert!(list.contains(&id), "{list}");
    assert!(!list.contains(&content_id(&other)), "{list}");
    sigterm(&child);
    assert!(child.wait().unwrap().success());
}
