//! The replay host on S3: a real S3-compatible server on loopback (crates.io `s3s-fs`, installed by
//! `node scripts/setup.mjs`; this test installs nothing), and TWO host instances over one bucket,
//! configured as `replay host --store s3://bucket/prefix` is, from the AWS_* environment variables
//! (AWS_ENDPOINT_URL, AWS_ALLOW_HTTP). An upload through one is listed, read and deleted through
//! the other: the hosts keep no state of their own.
//!
//! Without `s3s-fs` on PATH or in ~/.cargo/bin the test fails, and says how to install it, unless
//! the run says that it leaves S3 out: `REPLAY_TEST_NO_S3=1`, a flag a person sets (npm test prints
//! it), never set by the scripts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod host_common;

use host_common::*;
use replay_player::host::store::Store;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The flag a person sets to leave the S3 test out of a run (`REPLAY_TEST_NO_S3=1`).
const NO_S3: &str = "REPLAY_TEST_NO_S3";

fn s3s_fs() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let cands = [Some(PathBuf::from("s3s-fs")), home.map(|h| h.join("bin").join("s3s-fs"))];
    cands
        .into_iter()
        .flatten()
        .find(|c| Command::new(c).arg("--help").stdout(Stdio::null()).status().is_ok_and(|s| s.success()))
}

/// What the test does with the server it found (`found`) and the flag's value (`no_s3`): run with
/// it (`Ok(Some)`), leave S3 out because a person said so (`Ok(None)`), or fail (`Err`).
fn server_or_refusal(found: Option<PathBuf>, no_s3: Option<&str>) -> Result<Option<PathBuf>, String> {
    match (found, no_s3) {
        (Some(bin), _) => Ok(Some(bin)),
        (None, Some("1" | "true")) => Ok(None),
        (None, _) => Err(format!(
            "s3s-fs is not installed: `cargo install s3s-fs --version 0.14.1 --features binary` \
             (node scripts/setup.mjs does it), or set {NO_S3}=1 to leave the S3 test out of this run"
        )),
    }
}

#[test]
fn a_missing_server_fails_unless_the_run_leaves_s3_out() {
    let bin = PathBuf::from("/usr/bin/s3s-fs");
    assert_eq!(server_or_refusal(Some(bin.clone()), None), Ok(Some(bin.clone())));
    assert_eq!(server_or_refusal(Some(bin.clone()), Some("1")), Ok(Some(bin)), "found: it runs");
    assert!(server_or_refusal(None, None).unwrap_err().contains(NO_S3));
    // CI or not: only the flag leaves it out.
    assert!(server_or_refusal(None, Some("0")).is_err());
    assert!(server_or_refusal(None, Some("")).is_err());
    assert_eq!(server_or_refusal(None, Some("1")), Ok(None));
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hosts_over_one_bucket() {
    let no_s3 = std::env::var(NO_S3).ok();
    let Some(bin) = server_or_refusal(s3s_fs(), no_s3.as_deref()).unwrap_or_else(|e| panic!("{e}")) else {
        eprintln!("host_s3 LEFT OUT by {NO_S3}=1: S3 is not tested in this run");
        return;
    };
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("replays-bucket")).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let _server = Server(
        Command::new(&bin)
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--access-key", "AKTEST", "--secret-key"])
            .arg("SKTEST-secret")
            .arg(root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "s3s-fs did not listen on 127.0.0.1:{port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // As an operator configures `replay host --store s3://…` (this test is alone in its process).
    std::env::set_var("AWS_ACCESS_KEY_ID", "AKTEST");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "SKTEST-secret");
    std::env::set_var("AWS_REGION", "us-east-1");
    std::env::set_var("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}"));
    std::env::set_var("AWS_ALLOW_HTTP", "true");
    let url = "s3://replays-bucket/community";
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = start_with(da.path(), Store::open(Some(url), da.path()).unwrap(), |_| {}).await;
    let b = start_with(db.path(), Store::open(Some(url), db.path()).unwrap(), |_| {}).await;
    let c = client();

    // Over one 8 MiB part and under it.
    let big = dogfight(60, 60, 400.0);
    let small = dogfight(61, 4, 3.0);
    println!("s3: files of {} and {} bytes", big.len(), small.len());
    let mut sent = Vec::new();
    for bytes in [small, big] {
        let (s, v) = upload(&c, &a.url, bytes.clone()).await;
        assert_eq!(s, 201, "{v}");
        sent.push((v["id"].as_str().unwrap().to_string(), v["deleteToken"].as_str().unwrap().to_string(), bytes));
    }
    // The objects are in the bucket under the prefix (s3s-fs keeps them as files).
    for (id, _, bytes) in &sent {
        let on_disk = std::fs::read(root.path().join("replays-bucket/community/files").join(id)).unwrap();
        assert_eq!(&on_disk, bytes);
    }
    // Read and listed through the other instance.
    let list = listed(&c, &b.url).await;
    let ids: Vec<&str> = list.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec![sent[1].0.as_str(), sent[0].0.as_str()], "newest first");
    for (id, _, bytes) in &sent {
        let r = c.get(format!("{}/files/{id}", b.url)).header("range", "bytes=100-4195").send().await.unwrap();
        assert_eq!(r.status(), 206);
        assert_eq!(r.bytes().await.unwrap().as_ref(), &bytes[100..4196]);
        let whole = c.get(format!("{}/files/{id}", b.url)).send().await.unwrap().bytes().await.unwrap();
        assert_eq!(whole.as_ref(), &bytes[..]);
    }
    // The same file through the other instance: the same id, no second copy.
    let (s, v) = upload(&c, &b.url, sent[0].2.clone()).await;
    assert_eq!((s, v["id"].as_str()), (200, Some(sent[0].0.as_str())));
    // Refused uploads leave nothing in the bucket.
    let (s, _) = upload(&c, &b.url, b"not a replay at all".to_vec()).await;
    assert_eq!(s, 422);
    // Deleted through B with the token A gave; gone for A.
    let del = format!("{}/api/replays/{}", b.url, sent[0].0);
    assert_eq!(c.delete(&del).bearer_auth(&sent[0].1).send().await.unwrap().status(), 204);
    assert_eq!(listed(&c, &a.url).await.len(), 1);
    assert_eq!(c.get(format!("{}/files/{}", a.url, sent[0].0)).send().await.unwrap().status(), 404);
    let left: Vec<String> = files_under(&root.path().join("replays-bucket/community"))
        .into_iter()
        .filter(|f| !f.starts_with(".") && !f.contains("/.") && !f.starts_with(".s3s"))
        .collect();
    let expect_prefix = [format!("files/{}", sent[1].0), format!("replays/{}.json", sent[1].0)];
    assert!(left.iter().any(|f| *f == expect_prefix[0]) && left.iter().any(|f| *f == expect_prefix[1]), "{left:?}");
    assert!(!left.iter().any(|f| f.starts_with("tmp/") || f.contains(&sent[0].0)), "{left:?}");
}
