//! `replay host`: starts the tokio runtime and serves the replay host (the library's
//! `host::server`) until the process is stopped (Ctrl-C).

use super::args::HostArgs;
use super::Fail;
use replay_player::host::server::{serve, AppState, Config};
use replay_player::host::store::Store;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The repository's `dist/` (what `npm start` serves), or `./dist`.
fn default_player() -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("dist");
    if repo.is_dir() {
        repo
    } else {
        PathBuf::from("dist")
    }
}

pub fn host(a: &HostArgs) -> Result<u8, Fail> {
    std::fs::create_dir_all(&a.data).map_err(|e| Fail(format!("{}: {e}", a.data.display()), 2))?;
    let store = Store::open(a.store.as_deref(), &a.data).map_err(|e| Fail(e, 2))?;
    let player = a.player.clone().unwrap_or_else(default_player);
    if !player.join("index.html").is_file() {
        eprintln!("replay: warning: {} has no index.html (build the player: npm run build)", player.display());
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Fail(format!("cannot start the runtime: {e}"), 2))?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(&a.listen)
            .await
            .map_err(|e| Fail(format!("cannot listen on {}: {e}", a.listen), 2))?;
        let addr = listener.local_addr()?;
        let public = a.public_url.clone().unwrap_or_else(|| format!("http://{addr}"));
        let mut cfg = Config::new(a.data.clone(), public.clone());
        cfg.player_dir = Some(player);
        cfg.upload_token = a.upload_token.clone();
        cfg.max_upload_bytes = a.max_upload_mb.saturating_mul(1024 * 1024);
        cfg.body_read_timeout = Duration::from_secs(a.body_timeout);
        cfg.uploads_per_minute = a.uploads_per_minute;
        cfg.upload_burst = (a.uploads_per_minute / 3).max(1);
        println!("replay host: listening on http://{addr} (public URL {public})");
        let _ = std::io::stdout().flush();
        tokio::select! {
            r = serve(listener, AppState::new(store, cfg)) => r.map_err(|e| Fail(e.to_string(), 2)),
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })?;
    Ok(0)
}
