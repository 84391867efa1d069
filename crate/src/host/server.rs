//! The host's HTTP side (axum): its configuration, the state every handler shares and the router.
//!
//! Every part's routes are assembled in [`router`], ONE function: a part adds its routes there
//! (`.merge(part::routes())`, each a `Router<AppState>`). The player's files are the fallback.

use super::inflight::InFlight;
use super::limit::RateLimiter;
use super::ops::Metrics;
use super::store::Store;
use axum::extract::DefaultBodyLimit;
use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::routing::{delete, get, post, put};
use axum::{Json, Router};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What `replay host` was told (its command line), with the defaults for the rest.
#[derive(Clone, Debug)]
pub struct Config {
    /// The local directory: the default store (`DIR/store`) and the upload spool (`DIR/spool`).
    pub data_dir: PathBuf,
    /// The built player (`dist/`); `None` serves no player files.
    pub player_dir: Option<PathBuf>,
    /// The absolute URL the host is reached at, without a trailing slash (`http://127.0.0.1:8080`).
    pub public_url: String,
    /// When set, uploads need `Authorization: Bearer <token>`.
    pub upload_token: Option<String>,
    /// The largest upload taken, in bytes (`--max-upload-mb`, 512 MiB by default).
    pub max_upload_bytes: u64,
    /// An upload whose body sends nothing for this long is dropped (408).
    pub body_read_timeout: Duration,
    /// Uploads a client (by IP address) may start at once…
    pub upload_burst: u32,
    /// …and then per minute.
    pub uploads_per_minute: u32,
    /// Replays per page of `GET /api/replays`.
    pub page_size: usize,
    /// When set, `Authorization: Bearer <token>` may hide, show and delete any replay
    /// (`--admin-token`; the uploader's delete token keeps working).
    pub admin_token: Option<String>,
    /// Replays older than this are removed, oldest first (`--keep-days`; host/retention.rs).
    pub keep_for: Option<Duration>,
}

impl Config {
    /// The defaults of `replay host --data DIR`, answering at `public_url`.
    pub fn new(data_dir: PathBuf, public_url: String) -> Self {
        Config {
            data_dir,
            player_dir: None,
            public_url: public_url.trim_end_matches('/').to_string(),
            upload_token: None,
            max_upload_bytes: 512 * 1024 * 1024,
            body_read_timeout: Duration::from_secs(30),
            upload_burst: 10,
            uploads_per_minute: 30,
            page_size: 24,
            admin_token: None,
            keep_for: None,
        }
    }
}

/// What every handler shares; cheap to clone. The host's state is in the store: the rest (the
/// configuration, the rate limiter's buckets) is per instance and may be lost at any time.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    pub limiter: Arc<RateLimiter>,
    /// The uploads being handled now (host/inflight.rs).
    pub uploads: Arc<InFlight>,
    /// This instance's counters (`/metrics`, host/ops.rs).
    pub metrics: Arc<Metrics>,
}

impl AppState {
    pub fn new(store: Store, config: Config) -> Self {
        let limiter = Arc::new(RateLimiter::new(config.upload_burst, config.uploads_per_minute));
        AppState { store, config: Arc::new(config), limiter, uploads: Arc::default(), metrics: Arc::default() }
    }

    /// The absolute URLs of replay `id`.
    pub fn urls(&self, id: &str) -> Urls {
        let base = &self.config.public_url;
        Urls {
            page: format!("{base}/r/{id}"),
            file: format!("{base}/files/{id}"),
            embed: format!("{base}/embed.html?url={}", percent_encode_query(&format!("{base}/files/{id}"))),
            poster: format!("{base}/r/{id}/poster.png"),
            oembed: format!("{base}/oembed?url={}&format=json", percent_encode_query(&format!("{base}/r/{id}"))),
        }
    }
}

/// The links of one replay (absolute, from `--public-url`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Urls {
    pub page: String,
    pub file: String,
    pub embed: String,
    pub poster: String,
    pub oembed: String,
}

/// Escapes a URL for use as a query value (everything but unreserved characters).
pub fn percent_encode_query(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The whole host: every part's routes, then the player's files.
///
/// To add a part: write `pub fn routes() -> Router<AppState>` in its file and `.merge()` it below.
pub fn router(state: AppState) -> Router {
    let player = state.config.player_dir.clone();
    let app = Router::new()
        .route("/api/config", get(api_config))
        .route(
            "/api/replays",
            post(super::upload::upload).get(super::files::list_replays).layer(DefaultBodyLimit::disable()),
        )
        .route("/api/replays/{id}", delete(super::files::delete_replay))
        .route("/api/replays/{id}/hidden", put(super::moderation::hide).delete(super::moderation::show))
        .route("/files/{id}", get(super::files::get_file));
    // The pages: `/r/{id}`, `/oembed`, `/` (the gallery), `/gallery.css` (host/pages/routes.rs).
    let app = app.merge(super::pages::routes::routes(&state.config));
    // The poster: `/r/{id}/poster.png?t=` (host/poster/route.rs).
    let app = app.merge(super::poster::route::routes());
    // `/healthz`, `/readyz`, `/metrics` (host/ops.rs).
    let app = app.merge(super::ops::routes());
    let app = match player {
        Some(dir) => app.fallback_service(player_files(dir)),
        None => embedded_player(app),
    };
    // Every request counted and logged (its route: inside the router, so each route's pattern).
    app.layer(axum::middleware::from_fn_with_state(state.clone(), super::ops::observe)).with_state(state)
}

/// Without `--player`: the player built into the binary (feature `embed-player`), else none.
#[cfg(feature = "embed-player")]
fn embedded_player(app: Router<AppState>) -> Router<AppState> {
    app.fallback(super::embedded::player_file)
}
#[cfg(not(feature = "embed-player"))]
fn embedded_player(app: Router<AppState>) -> Router<AppState> {
    app
}

/// The built player's files, readable from any origin (the embed and the worker fetch them).
fn player_files(
    dir: PathBuf,
) -> tower_http::set_header::SetResponseHeader<tower_http::services::ServeDir, HeaderValue> {
    tower_http::set_header::SetResponseHeader::overriding(
        tower_http::services::ServeDir::new(dir),
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    )
}

/// `GET /api/config`: what the page needs to offer "Upload and get link".
async fn api_config(State(st): State<AppState>) -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "uploads": true,
        "maxUploadBytes": st.config.max_upload_bytes,
        "tokenRequired": st.config.upload_token.is_some(),
    }))
}

/// Serves the host on `listener` until the future is dropped (or the process ends). The peer's
/// address reaches the handlers (the upload rate is per client).
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    serve_until(listener, state, std::future::pending()).await
}

/// As [`serve`], until `stop` completes: then no connection is taken, the requests under way
/// (an upload's body too, within `--body-timeout`) are answered, and the uploads being stored are
/// finished before it returns. An upload cut short is never listed: its record is written last.
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    state: AppState,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let uploads = state.uploads.clone();
    let sweeper = state.config.keep_for.map(|keep| tokio::spawn(super::retention::run(state.store.clone(), keep)));
    let served = axum::serve(listener, router(state).into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(stop)
        .await;
    if let Some(s) = sweeper {
        s.abort();
    }
    served?;
    uploads.settled().await;
    Ok(())
}
