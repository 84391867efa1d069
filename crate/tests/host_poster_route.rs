//! `GET /r/{id}/poster.png?t=` on a host served in-process on 127.0.0.1:0: a PNG of 1200×630 with
//! a year's immutable caching, kept in the store as `posters/{id}/{t}.png` and served from there
//! afterwards, `t` clamped to the recording, unknown ids 404.
#![cfg(feature = "host")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::host::poster::route::poster_path;
use replay_player::host::record::ReplayRecord;
use replay_player::host::server::{serve, AppState, Config};
use replay_player::host::store::Store;
use replay_player::sim::{dogfight_bytes, DogfightConfig};
use std::io::{Read, Write};

/// A plain HTTP/1.1 GET over loopback: status, headers (lowercase names), body.
fn get(url: &str, path: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let addr = url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, raw[split + 4..].to_vec())
}

fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn png_size(b: &[u8]) -> (u32, u32) {
    let r = png::Decoder::new(b).read_info().unwrap();
    (r.info().width, r.info().height)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posters_are_drawn_once_kept_and_served_immutable() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(None, dir.path()).unwrap();
    let file = dogfight_bytes(&DogfightConfig { entities: 20, seconds: 12.0, seed: 5, ..Default::default() }).unwrap();
    let id = "0123456789abcdef0123456789abcdef".to_string();
    let os = store.object_store().clone();
    os.put(&Store::file_path(&id), file.clone().into()).await.unwrap();
    let rec = ReplayRecord {
        id: id.clone(),
        format: "flrep".into(),
        filename: None,
        size: file.len() as u64,
        uploaded: 1,
        title: "A <b>dogfight</b>".into(),
        mission: "op".into(),
        callsigns: vec![],
        sides: vec![],
        duration: 12.0 - 1.0 / 60.0,
        ticks: 720,
        tick_rate: 60,
        kills: vec![],
        players: 20,
        warnings: vec![],
        delete_token_sha256: String::new(),
    };
    assert!(store.publish(&rec, 1).await.unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let state = AppState::new(store, Config::new(dir.path().to_path_buf(), url.clone()));
    let server = tokio::spawn(async move {
        let _ = serve(listener, state).await;
    });

    let u = url.clone();
    let i = id.clone();
    let (first, second, late, odd, unknown, bad, safe) = tokio::task::spawn_blocking(move || {
        let first = get(&u, &format!("/r/{i}/poster.png?t=4.04"));
        let second = get(&u, &format!("/r/{i}/poster.png?t=4.0"));
        let late = get(&u, &format!("/r/{i}/poster.png?t=99999"));
        let odd = get(&u, &format!("/r/{i}/poster.png?t=abc"));
        let unknown = get(&u, &format!("/r/{}/poster.png?t=1", "f".repeat(32)));
        let bad = get(&u, "/r/..%2f..%2fetc/poster.png");
        let safe = get(&u, &format!("/r/{i}/poster.png?t=4.0&spoilers=0"));
        (first, second, late, odd, unknown, bad, safe)
    })
    .await
    .unwrap();

    let (status, h, body) = first;
    assert_eq!(status, 200);
    assert_eq!(header(&h, "content-type"), Some("image/png"));
    assert!(header(&h, "cache-control").unwrap().contains("immutable"), "{h:?}");
    assert_eq!(png_size(&body), (1200, 630));
    // Kept in the store under t rounded to a tenth, and the same bytes served again.
    let kept = os.get(&poster_path(&id, 40, false)).await.unwrap().bytes().await.unwrap();
    assert_eq!(kept.as_ref(), body.as_slice());
    assert_eq!(second.0, 200);
    assert_eq!(second.2, body);
    // Past the end: clamped to the last tenth of the recording.
    assert_eq!(late.0, 200);
    assert_eq!(png_size(&late.2), (1200, 630));
    assert!(os.head(&poster_path(&id, 119, false)).await.is_ok());
    assert_ne!(late.2, body);
    // A t that is not a number reads as 0.
    assert_eq!(odd.0, 200);
    assert!(os.head(&poster_path(&id, 0, false)).await.is_ok());
    assert_eq!(unknown.0, 404);
    assert_eq!(bad.0, 404);
    // A spoiler-safe poster is another object, another picture (no length in its header).
    assert_eq!(safe.0, 200);
    assert_eq!(png_size(&safe.2), (1200, 630));
    assert_ne!(safe.2, body);
    let kept_safe = os.get(&poster_path(&id, 40, true)).await.unwrap().bytes().await.unwrap();
    assert_eq!(kept_safe.as_ref(), safe.2.as_slice());

    // What the store keeps is what is served: a poster replaced there is answered as it is now.
    os.put(&poster_path(&id, 40, false), bytes::Bytes::from(late.2.clone()).into()).await.unwrap();
    let (u, i) = (url.clone(), id.clone());
    let again = tokio::task::spawn_blocking(move || get(&u, &format!("/r/{i}/poster.png?t=4"))).await.unwrap();
    assert_eq!(again.2, late.2);
    server.abort();
}
