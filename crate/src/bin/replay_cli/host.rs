//! `replay host`: starts the tokio runtime and serves the replay host (the library's
//! `host::server`) until the process is stopped: Ctrl-C or SIGTERM stop it cleanly (no new
//! connection; the requests and uploads under way are finished first).

use super::args::HostArgs;
use super::Fail;
use replay_player::host::server::{serve_until, AppState, Config};
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

/// The player to serve from disk: `--player`, else none when the binary holds one, else dist/.
fn player_dir(a: &HostArgs) -> Option<PathBuf> {
    if let Some(p) = &a.player {
        return Some(p.clone());
    }
    #[cfg(feature = "embed-player")]
    if replay_player::host::embedded::has_player() {
        return None;
    }
    Some(default_player())
}

/// Ctrl-C or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The request log (host/ops.rs's lines, target `replay_host`) on standard error.
fn start_log(format: &str) {
    use tracing_subscriber::fmt;
    let filter = tracing_subscriber::filter::Targets::new().with_target("replay_host", tracing::Level::INFO);
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let _ = match format {
        "json" => tracing_subscriber::registry()
            .with(fmt::layer().json().with_writer(std::io::stderr).with_filter(filter))
            .try_init(),
        "text" => tracing_subscriber::registry()
            .with(fmt::layer().with_ansi(false).with_writer(std::io::stderr).with_filter(filter))
            .try_init(),
        _ => Ok(()),
    };
}

pub fn host(a: &HostArgs) -> Result<u8, Fail> {
    std::fs::create_dir_all(&a.data).map_err(|e| Fail(format!("{}: {e}", a.data.display()), 2))?;
    let store = Store::open(a.store.as_deref(), &a.data).map_err(|e| Fail(e, 2))?;
    let player = player_dir(a);
    if let Some(p) = &player {
        if !p.join("index.html").is_file() {
            eprintln!("replay: warning: {} has no index.html (build the player: npm run build)", p.display());
        }
    }
    start_log(&a.log_format);
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
        cfg.player_dir = player;
        cfg.upload_token = a.upload_token.clone();
        cfg.admin_token = a.admin_token.clone();
        cfg.keep_for = a.keep_days.map(|d| Duration::from_secs(d.saturating_mul(86_400)));
        cfg.max_upload_bytes = a.max_upload_mb.saturating_mul(1024 * 1024);
        cfg.body_read_timeout = Duration::from_secs(a.body_timeout);
        cfg.uploads_per_minute = a.uploads_per_minute;
        cfg.upload_burst = (a.uploads_per_minute / 3).max(1);
        println!("replay host: listening on http://{addr} (public URL {public})");
        let _ = std::io::stdout().flush();
        let stopping = async {
            stop_signal().await;
            println!("replay host: stopping (finishing the requests and uploads under way)");
            let _ = std::io::stdout().flush();
        };
        serve_until(listener, AppState::new(store, cfg), stopping).await.map_err(|e| Fail(e.to_string(), 2))?;
        println!("replay host: stopped");
        let _ = std::io::stdout().flush();
        Ok::<(), Fail>(())
    })?;
    Ok(0)
}
