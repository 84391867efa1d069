//! The replay host's server (`replay host`, issue 32), in-process on 127.0.0.1:0 over a temporary
//! directory: upload, list, Range reads, delete, dedupe, the hostile corpus, cut / slow / oversized
//! / lying bodies, paths, tokens, markup in names, restarts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod host_common;

use host_common::*;
use std::io::{Read, Write};
use std::time::Duration;

fn golden(name: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/golden").join(name)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upload_list_range_read_delete() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |_| {}).await;
    let c = client();
    let bytes = golden("events.flrep");
    let id = content_id(&bytes);

    let r = c
        .post(format!("{}/api/replays", h.url))
        .header("x-filename", "events.flrep")
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: serde_json::Value = r.json_value().await;
    assert_eq!(v["id"], id.as_str());
    assert_eq!(v["page"], format!("{}/r/{id}", h.url));
    assert_eq!(v["file"], format!("{}/files/{id}", h.url));
    assert_eq!(v["poster"], format!("{}/r/{id}/poster.png", h.url));
    assert!(v["embed"].as_str().unwrap().starts_with(&format!("{}/embed.html?url=", h.url)));
    assert!(v["oembed"].as_str().unwrap().starts_with(&format!("{}/oembed?url=", h.url)));
    let token = v["deleteToken"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 64);

    // The record keeps only the token's hash.
    let rec = std::fs::read_to_string(dir.path().join(format!("store/replays/{id}.json"))).unwrap();
    assert!(!rec.contains(&token));
    assert!(rec.contains(&replay_player::host::upload::sha256_hex(&token)));

    let list = listed(&c, &h.url).await;
    assert_eq!(list.len(), 1);
    let e = &list[0];
    assert_eq!(e["id"], id.as_str());
    assert_eq!(e["format"], "flrep");
    assert_eq!(e["kills"], 2, "{e}");
    assert_eq!(e["players"], 2);
    assert_eq!(e["ticks"], 118);
    assert!((e["duration"].as_f64().unwrap() - 5.85).abs() < 1e-9);
    assert_eq!(e["title"], "golden-events — Alpha vs Bravo");
    assert_eq!(e["page"], format!("{}/r/{id}", h.url));

    // Range reads.
    let file = format!("{}/files/{id}", h.url);
    let r = c.get(&file).header("range", "bytes=10-109").send().await.unwrap();
    assert_eq!(r.status(), 206);
    let hd = r.headers().clone();
    assert_eq!(hd["content-range"], format!("bytes 10-109/{}", bytes.len()));
    assert_eq!(hd["etag"], format!("\"{id}\""));
    assert_eq!(hd["cache-control"], "public, max-age=31536000, immutable");
    assert_eq!(hd["access-control-allow-origin"], "*");
    assert!(hd["access-control-expose-headers"].to_str().unwrap().contains("Content-Range"));
    assert_eq!(r.bytes().await.unwrap().as_ref(), &bytes[10..110]);
    let r = c.get(&file).header("range", "bytes=-16").send().await.unwrap();
    assert_eq!(r.status(), 206);
    assert_eq!(r.bytes().await.unwrap().as_ref(), &bytes[bytes.len() - 16..]);
    let r = c.get(&file).header("range", format!("bytes={}-", bytes.len())).send().await.unwrap();
    assert_eq!(r.status(), 416);
    assert_eq!(r.headers()["content-range"], format!("bytes */{}", bytes.len()));
    let r = c.get(&file).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap().as_ref(), &bytes[..]);
    let r = c.get(&file).header("if-none-match", format!("\"{id}\"")).send().await.unwrap();
    assert_eq!(r.status(), 304);

    // Delete: no token, a forged one, then the right one.
    let del = format!("{}/api/replays/{id}", h.url);
    assert_eq!(c.delete(&del).send().await.unwrap().status(), 401);
    let forged = "0".repeat(64);
    assert_eq!(c.delete(&del).bearer_auth(&forged).send().await.unwrap().status(), 403);
    assert_eq!(c.delete(&del).bearer_auth(&token[..63]).send().await.unwrap().status(), 403);
    assert_eq!(listed(&c, &h.url).await.len(), 1, "a refused delete removed nothing");
    assert_eq!(c.delete(&del).bearer_auth(&token).send().await.unwrap().status(), 204);
    assert!(listed(&c, &h.url).await.is_empty());
    assert_eq!(c.get(&file).send().await.unwrap().status(), 404);
    assert_eq!(c.delete(&del).bearer_auth(&token).send().await.unwrap().status(), 404);
    assert_nothing_stored(dir.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_file_twice_is_one_replay() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |_| {}).await;
    let c = client();
    let bytes = dogfight(3, 6, 4.0);
    let (s1, v1) = upload(&c, &h.url, bytes.clone()).await;
    let (s2, v2) = upload(&c, &h.url, bytes.clone()).await;
    assert_eq!((s1, s2), (201, 200));
    assert_eq!(v1["id"], v2["id"]);
    assert_eq!(v2["existing"], true);
    assert!(v2.get("deleteToken").is_none(), "a second uploader gets no token: {v2}");
    for k in ["page", "file", "embed", "poster", "oembed"] {
        assert_eq!(v1[k], v2[k]);
    }
    assert_eq!(listed(&c, &h.url).await.len(), 1);
    let files = files_under(&dir.path().join("store"));
    assert_eq!(files.iter().filter(|f| f.starts_with("files/")).count(), 1, "{files:?}");
    assert!(!files.iter().any(|f| f.starts_with("tmp/")), "{files:?}");
    // The first token still deletes it.
    let del = format!("{}/api/replays/{}", h.url, v1["id"].as_str().unwrap());
    assert_eq!(c.delete(&del).bearer_auth(v1["deleteToken"].as_str().unwrap()).send().await.unwrap().status(), 204);
}

/// Every file of the hostile corpora: the host's verdict is `replay validate`'s (the library's),
/// refusals are 422 with the reader's message, and nothing refused is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hostile_corpus_is_refused_with_the_readers_message() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |_| {}).await;
    let c = client();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut paths = Vec::new();
    for sub in ["hostile", "hostile/spark", "foldback/hostile"] {
        for e in std::fs::read_dir(root.join(sub)).unwrap().flatten() {
            if e.path().is_file() && !e.path().extension().is_some_and(|x| x == "jsonl" || x == "md") {
                paths.push(e.path());
            }
        }
    }
    paths.sort();
    let (mut refused, mut accepted) = (0, Vec::new());
    for p in &paths {
        let bytes = std::fs::read(p).unwrap();
        let verdict = {
            let mut src = bytes.clone();
            replay_player::io::validate::validate(&mut src)
        };
        let (status, v) = upload(&c, &h.url, bytes.clone()).await;
        match verdict {
            Ok(r) if r.passed() => {
                assert!(status == 201 || status == 200, "{}: {status} {v}", p.display());
                accepted.push(content_id(&bytes));
            }
            Ok(r) => {
                assert_eq!(status, 422, "{}: {v}", p.display());
                let msg = v["error"].as_str().unwrap();
                assert!(msg.contains(&r.problems[0]), "{}: {msg} / {:?}", p.display(), r.problems);
                refused += 1;
            }
            Err(e) if bytes.is_empty() => {
                assert_eq!(status, 422, "{}: {v} ({e})", p.display());
                refused += 1;
            }
            Err(e) => {
                assert_eq!(status, 422, "{}: {v}", p.display());
                assert_eq!(v["error"], e.to_string(), "{}", p.display());
                refused += 1;
            }
        }
    }
    println!("hostile corpus: {} files, {refused} refused, {} accepted (cut recordings)", paths.len(), accepted.len());
    assert!(paths.len() >= 90, "{} files", paths.len());
    assert!(refused >= 60, "{refused} refused");
    let mut ids: Vec<String> = listed(&c, &h.url).await.iter().map(|e| e["id"].as_str().unwrap().to_string()).collect();
    ids.sort();
    accepted.sort();
    accepted.dedup();
    assert_eq!(ids, accepted, "only what validate accepts is listed");
    let files = files_under(&dir.path().join("store"));
    assert_eq!(files.iter().filter(|f| f.starts_with("files/")).count(), accepted.len(), "{files:?}");
    assert!(!files.iter().any(|f| f.starts_with("tmp/")), "{files:?}");
    assert!(files_under(&dir.path().join("spool")).is_empty());
}

/// Sends a raw request and reads the answer's status line (the connection is ours: a body can be
/// cut, dripped or made longer than its Content-Length says).
fn raw(addr: &str, head: &str, body: &[u8], then: impl FnOnce(&mut std::net::TcpStream)) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    then(&mut s);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Sends `head` and `body` from a thread of their own, ignoring write errors (a server that
/// refuses early may close the connection while the client still sends), and returns what the
/// server answered: the answer is read even when the connection was reset after it.
fn raw_sent_whole(addr: &str, head: Vec<u8>, body: Vec<u8>) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut w = s.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(&head).and_then(|()| w.write_all(&body));
        let _ = w.shutdown(std::net::Shutdown::Write);
    });
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let _ = writer.join();
    String::from_utf8_lossy(&out).into_owned()
}

fn addr(url: &str) -> String {
    url.trim_start_matches("http://").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cut_and_lying_bodies_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |_| {}).await;
    let bytes = dogfight(11, 6, 4.0);
    let a = addr(&h.url);
    let half = bytes.len() / 2;
    // A Content-Length the body does not reach, then the client stops sending (a lie, or a cut).
    let head = format!(
        "POST /api/replays HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        bytes.len()
    );
    let b = bytes[..half].to_vec();
    let out =
        tokio::task::spawn_blocking(move || raw(&a, &head, &b, |s| s.shutdown(std::net::Shutdown::Write).unwrap()))
            .await
            .unwrap();
    assert!(out.starts_with("HTTP/1.1 400"), "{out}");
    assert!(out.contains(&format!("the body was cut after {half} bytes")), "{out}");
    // The client goes away mid-body.
    let a = addr(&h.url);
    let head = format!("POST /api/replays HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n", bytes.len());
    let b = bytes[..half].to_vec();
    tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(&a).unwrap();
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(&b).unwrap();
        drop(s);
    })
    .await
    .unwrap();
    // A chunked body cut before its last chunk.
    let a = addr(&h.url);
    let b = bytes[..half].to_vec();
    let out = tokio::task::spawn_blocking(move || {
        let head = format!(
            "POST /api/replays HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n",
            b.len()
        );
        raw(&a, &head, &b, |s| s.shutdown(std::net::Shutdown::Write).unwrap())
    })
    .await
    .unwrap();
    assert!(out.starts_with("HTTP/1.1 400"), "{out}");
    // The three uploads answered and cleaned up (the one whose client went away too).
    h.settled(3).await;
    assert!(listed(&client(), &h.url).await.is_empty());
    assert_nothing_stored(dir.path());
    // The whole file afterwards is taken.
    assert_eq!(upload(&client(), &h.url, bytes).await.0, 201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_drip_body_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |c| c.body_read_timeout = Duration::from_millis(600)).await;
    let bytes = dogfight(12, 6, 4.0);
    let a = addr(&h.url);
    let out = tokio::task::spawn_blocking(move || {
        let head = format!("POST /api/replays HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n", bytes.len());
        raw(&a, &head, &bytes[..100], |s| {
            // A byte now and then, each gap past the timeout.
            for b in &bytes[100..103] {
                std::thread::sleep(Duration::from_millis(900));
                if s.write_all(std::slice::from_ref(b)).is_err() {
                    break;
                }
            }
        })
    })
    .await
    .unwrap();
    assert!(out.starts_with("HTTP/1.1 408"), "{out}");
    assert!(out.contains("the body stalled"), "{out}");
    assert_nothing_stored(dir.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_over_the_limit_are_413() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |c| c.max_upload_bytes = 10_000).await;
    let c = client();
    let bytes = dogfight(13, 8, 10.0);
    assert!(bytes.len() > 10_000);
    // Told up front (Content-Length).
    let (s, v) = upload(&c, &h.url, bytes.clone()).await;
    assert_eq!(s, 413, "{v}");
    assert!(v["error"].as_str().unwrap().contains(&format!("{} bytes", bytes.len())), "{v}");
    // Found while streaming (chunked, no Content-Length): answered 413 before the body's end.
    let mut chunked = Vec::new();
    for c in bytes.chunks(1000) {
        chunked.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
        chunked.extend_from_slice(c);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let head = b"POST /api/replays HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let a = addr(&h.url);
    let out = tokio::task::spawn_blocking(move || raw_sent_whole(&a, head, chunked)).await.unwrap();
    assert!(out.starts_with("HTTP/1.1 413"), "{out}");
    assert!(out.contains("the file is over 10000 bytes"), "{out}");
    h.settled(2).await;
    assert_nothing_stored(dir.path());
    // /api/config says the limit.
    let cfg: serde_json::Value = c.get(format!("{}/api/config", h.url)).send().await.unwrap().json_value().await;
    assert_eq!(cfg["maxUploadBytes"], 10_000);
    assert_eq!(cfg["uploads"], true);
    assert_eq!(cfg["tokenRequired"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_and_paths_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |_| {}).await;
    let c = client();
    let (s, v) = upload(&c, &h.url, dogfight(14, 4, 3.0)).await;
    assert_eq!(s, 201);
    let id = v["id"].as_str().unwrap().to_string();
    let upper = id.to_uppercase();
    let bad = [
        "..".to_string(),
        "%2e%2e".to_string(),
        "..%2f..%2fstore%2freplays".to_string(),
        format!("..%2f{id}"),
        format!("{id}%2f.."),
        format!("{id}%00"),
        format!("{id}%0a"),
        upper,
        id[..31].to_string(),
        format!("{id}0"),
        "%2fetc%2fpasswd".to_string(),
    ];
    for b in &bad {
        let a = addr(&h.url);
        let req = format!("GET /files/{b} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let out = tokio::task::spawn_blocking(move || raw(&a, &req, &[], |_| {})).await.unwrap();
        assert!(out.starts_with("HTTP/1.1 404") || out.starts_with("HTTP/1.1 400"), "{b}: {out}");
        let a = addr(&h.url);
        let req = format!(
            "DELETE /api/replays/{b} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer x\r\nConnection: close\r\n\r\n"
        );
        let out = tokio::task::spawn_blocking(move || raw(&a, &req, &[], |_| {})).await.unwrap();
        assert!(out.starts_with("HTTP/1.1 404") || out.starts_with("HTTP/1.1 400"), "{b}: {out}");
    }
    // Plain `..` segments are normalised away by nobody: still 404, never the store's files.
    let a = addr(&h.url);
    let out = tokio::task::spawn_blocking(move || {
        raw(&a, "GET /files/../store/replays HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &[], |_| {})
    })
    .await
    .unwrap();
    assert!(!out.contains(&id), "{out}");
    assert_eq!(listed(&c, &h.url).await.len(), 1);
    assert_eq!(c.get(format!("{}/files/{id}", h.url)).send().await.unwrap().status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filenames_and_names_with_markup_stay_data() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |_| {}).await;
    let c = client();
    // A long X-Filename is cut to 200 characters; one past the server's header limit is refused.
    let name = format!("{}.flrep", "<b>x</b>".repeat(1250));
    let bytes = dogfight(15, 4, 3.0);
    let r =
        c.post(format!("{}/api/replays", h.url)).header("x-filename", &name).body(bytes.clone()).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let id = content_id(&bytes);
    let rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(format!("store/replays/{id}.json"))).unwrap()).unwrap();
    assert_eq!(rec["filename"].as_str().unwrap().chars().count(), 200);
    // The page sends the name percent-encoded (a header is Latin-1): it is stored decoded.
    let bytes2 = dogfight(17, 4, 3.0);
    let r = c
        .post(format!("{}/api/replays", h.url))
        .header("x-filename", "m%C3%BCller%E2%80%99s%20%3Cmatch%3E.flrep")
        .body(bytes2.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let rec2 = dir.path().join(format!("store/replays/{}.json", content_id(&bytes2)));
    let rec2: serde_json::Value = serde_json::from_slice(&std::fs::read(rec2).unwrap()).unwrap();
    assert_eq!(rec2["filename"], "müller’s <match>.flrep");
    // A 2 MiB X-Filename: refused by the HTTP layer (431) before any handler sees it.
    let huge = "x".repeat(2 << 20);
    let head = format!("POST /api/replays HTTP/1.1\r\nHost: x\r\nX-Filename: {huge}\r\nContent-Length: 10\r\n\r\n");
    let a = addr(&h.url);
    let out = tokio::task::spawn_blocking(move || raw_sent_whole(&a, head.into_bytes(), vec![0; 10])).await.unwrap();
    let status: u16 = out.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    assert!((400..500).contains(&status), "{out}");
    assert_eq!(listed(&c, &h.url).await.len(), 2);

    // Markup in the mission and callsigns: kept as the file says, as JSON strings.
    let mission = r#"<script>alert(1)</script>"#;
    let calls = [r#""><img src=x onerror=alert(2)>"#, "<b>Iceman</b>", "Goose & Co"];
    let (s, v) = upload(&c, &h.url, dogfight_with_names(mission, &calls)).await;
    assert_eq!(s, 201, "{v}");
    let r = c.get(format!("{}/api/replays", h.url)).send().await.unwrap();
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("application/json"));
    let list: serde_json::Value = r.json_value().await;
    let e = list["replays"].as_array().unwrap().iter().find(|e| e["id"] == v["id"]).unwrap().clone();
    let title = e["title"].as_str().unwrap();
    assert!(title.starts_with(mission), "{title}");
    let rid = v["id"].as_str().unwrap();
    let rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(format!("store/replays/{rid}.json"))).unwrap()).unwrap();
    assert_eq!(rec["mission"], mission);
    let callsigns: Vec<&str> = rec["callsigns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(&callsigns[..3], &calls);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_and_rates() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |c| {
        c.upload_token = Some("s3cret-token".into());
        c.upload_burst = 2;
        c.uploads_per_minute = 1;
    })
    .await;
    let c = client();
    let cfg: serde_json::Value = c.get(format!("{}/api/config", h.url)).send().await.unwrap().json_value().await;
    assert_eq!(cfg["tokenRequired"], true);
    let post = |b: Vec<u8>| c.post(format!("{}/api/replays", h.url)).body(b);
    assert_eq!(post(dogfight(20, 4, 3.0)).send().await.unwrap().status(), 401);
    assert_eq!(post(dogfight(20, 4, 3.0)).bearer_auth("s3cret-tokem").send().await.unwrap().status(), 401);
    let r = post(dogfight(20, 4, 3.0)).bearer_auth("s3cret-token").send().await.unwrap();
    assert_eq!(r.status(), 429, "the burst of 2 was spent by the two refused tries");
    assert!(r.headers().contains_key("retry-after"));
    assert!(listed(&c, &h.url).await.is_empty());

    let dir2 = tempfile::tempdir().unwrap();
    let h2 = start(dir2.path(), |c| {
        c.upload_token = Some("s3cret-token".into());
        c.upload_burst = 2;
        c.uploads_per_minute = 1;
    })
    .await;
    let post = |b: Vec<u8>| c.post(format!("{}/api/replays", h2.url)).bearer_auth("s3cret-token").body(b);
    assert_eq!(post(dogfight(21, 4, 3.0)).send().await.unwrap().status(), 201);
    assert_eq!(post(dogfight(22, 4, 3.0)).send().await.unwrap().status(), 201);
    assert_eq!(post(dogfight(23, 4, 3.0)).send().await.unwrap().status(), 429);
    assert_eq!(listed(&c, &h2.url).await.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_loses_nothing_answered_201() {
    let dir = tempfile::tempdir().unwrap();
    let c = client();
    let mut sent = Vec::new();
    {
        let h = start(dir.path(), |_| {}).await;
        for seed in 30..33 {
            let b = dogfight(seed, 4, 3.0);
            let (s, v) = upload(&c, &h.url, b.clone()).await;
            assert_eq!(s, 201);
            sent.push((v["id"].as_str().unwrap().to_string(), b));
        }
    }
    let h = start(dir.path(), |_| {}).await;
    let list = listed(&c, &h.url).await;
    assert_eq!(list.len(), 3);
    // Newest first.
    let ids: Vec<&str> = list.iter().map(|e| e["id"].as_str().unwrap()).collect();
    let mut want: Vec<&str> = sent.iter().map(|(i, _)| i.as_str()).collect();
    want.reverse();
    assert_eq!(ids, want);
    for (id, b) in &sent {
        let got = c.get(format!("{}/files/{id}", h.url)).send().await.unwrap().bytes().await.unwrap();
        assert_eq!(got.as_ref(), &b[..]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_is_paged() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(dir.path(), |c| c.page_size = 2).await;
    let c = client();
    for seed in 40..45 {
        assert_eq!(upload(&c, &h.url, dogfight(seed, 4, 2.0)).await.0, 201);
    }
    let p0: serde_json::Value = c.get(format!("{}/api/replays", h.url)).send().await.unwrap().json_value().await;
    assert_eq!(p0["replays"].as_array().unwrap().len(), 2);
    assert_eq!(p0["next"], 1);
    let p2: serde_json::Value = c.get(format!("{}/api/replays?page=2", h.url)).send().await.unwrap().json_value().await;
    assert_eq!(p2["replays"].as_array().unwrap().len(), 1);
    assert!(p2["next"].is_null());
    assert_eq!(listed(&c, &h.url).await.len(), 5);
}

trait JsonValue {
    async fn json_value(self) -> serde_json::Value;
}

impl JsonValue for reqwest::Response {
    async fn json_value(self) -> serde_json::Value {
        serde_json::from_slice(&self.bytes().await.unwrap()).unwrap()
    }
}
