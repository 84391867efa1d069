//! The replay host's test harness: a host served in-process on 127.0.0.1:0 over a temporary
//! directory (or a store the test hands in), and replays made in memory.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::flrep::writer::Writer;
use replay_player::format::flrep::WriterOptions;
use replay_player::host::server::{serve, AppState, Config};
use replay_player::host::store::Store;
use replay_player::sim::{Dogfight, DogfightConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct Host {
    pub url: String,
    pub data: PathBuf,
    pub state: AppState,
    task: tokio::task::JoinHandle<()>,
}

impl Host {
    /// Waits until `n` uploads have reached the host and none is in flight (each answered and
    /// cleaned up): what a test of a refused or cut upload waits on before it looks at the store.
    /// Fails after 60 s.
    pub async fn settled(&self, n: usize) {
        let u = &self.state.uploads;
        let waited = tokio::time::timeout(std::time::Duration::from_secs(60), u.settled_after(n)).await;
        assert!(waited.is_ok(), "after 60 s: {} of {n} uploads begun, {} in flight", u.begun(), u.count());
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts a host over `data` (its default store, DIR/store), with `tweak` applied to the config.
pub async fn start(data: &Path, tweak: impl FnOnce(&mut Config)) -> Host {
    let store = Store::open(None, data).unwrap();
    start_with(data, store, tweak).await
}

/// Starts a host over `store`, spooling under `data`.
pub async fn start_with(data: &Path, store: Store, tweak: impl FnOnce(&mut Config)) -> Host {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let mut cfg = Config::new(data.to_path_buf(), url.clone());
    cfg.upload_burst = 1000;
    cfg.uploads_per_minute = 60_000;
    tweak(&mut cfg);
    let state = AppState::new(store, cfg);
    let served = state.clone();
    let task = tokio::spawn(async move {
        let _ = serve(listener, served).await;
    });
    Host { url, data: data.to_path_buf(), state, task }
}

/// A dogfight `.flrep` in memory (distinct seeds give distinct bytes).
pub fn dogfight(seed: u64, entities: u32, seconds: f64) -> Vec<u8> {
    let cfg = DogfightConfig { seed, entities, seconds, keyframe_interval_ticks: 60, ..DogfightConfig::default() };
    replay_player::sim::dogfight_bytes(&cfg).unwrap()
}

/// A dogfight whose mission and callsigns hold markup.
pub fn dogfight_with_names(mission: &str, callsigns: &[&str]) -> Vec<u8> {
    let cfg = DogfightConfig { seed: 7, entities: 4, seconds: 3.0, keyframe_interval_ticks: 60, ..Default::default() };
    let mut sim = Dogfight::new(cfg.clone());
    let mut header = sim.header();
    header.mission_id = mission.to_string();
    let mut sections = sim.sections();
    for (p, c) in sections.participants.iter_mut().zip(callsigns) {
        p.callsign = (*c).to_string();
    }
    let opts = WriterOptions { keyframe_interval_ticks: cfg.keyframe_interval_ticks, ..Default::default() };
    let mut w = Writer::new(Vec::new(), &header, &sections, opts).unwrap();
    while let Some((tick, states, events)) = sim.step() {
        w.tick(tick, states, &events).unwrap();
    }
    w.finish().unwrap()
}

/// Every regular file under `dir`, as paths relative to it, sorted.
pub fn files_under(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Lowercase hex of the first 16 bytes of the SHA-256 of `b` (the content id).
pub fn content_id(b: &[u8]) -> String {
    use sha2::Digest;
    replay_player::host::upload::hex(&sha2::Sha256::digest(b)[..16])
}

/// The ids the host lists (every page).
pub async fn listed(c: &reqwest::Client, url: &str) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let mut page = Some(0u64);
    while let Some(p) = page {
        let v: serde_json::Value = serde_json::from_slice(
            &c.get(format!("{url}/api/replays?page={p}")).send().await.unwrap().bytes().await.unwrap(),
        )
        .unwrap();
        out.extend(v["replays"].as_array().unwrap().iter().cloned());
        page = v["next"].as_u64();
    }
    out
}

pub async fn upload(c: &reqwest::Client, url: &str, bytes: Vec<u8>) -> (u16, serde_json::Value) {
    let r = c
        .post(format!("{url}/api/replays"))
        .header("content-type", "application/octet-stream")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let body = r.bytes().await.unwrap();
    (status, serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null))
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// The store under a host's data directory has no replay left: no file, record or list entry,
/// nothing temporary, an empty spool.
pub fn assert_nothing_stored(data: &Path) {
    let left: Vec<String> =
        files_under(data).into_iter().filter(|f| !f.starts_with("store/posters")).collect::<Vec<_>>();
    assert!(left.is_empty(), "left behind: {left:?}");
}

pub type Shared<T> = Arc<T>;
