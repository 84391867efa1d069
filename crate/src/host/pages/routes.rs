//! The pages' routes: `GET /r/{id}` (the player on that replay, with its card), `GET /oembed`,
//! `GET /` (the gallery) and its stylesheet. The builders are the pure functions beside this file;
//! here only the store's reads and the HTTP answers (status, type, CSP, caching).

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use futures_util::{StreamExt, TryStreamExt};

use super::gallery::{self, GalleryQuery, PER_PAGE, STYLESHEET, STYLESHEET_PATH};
use super::moment::Moment;
use super::oembed::{self, is_id, OembedError};
use super::replay::{player_page, replay_page};
use super::{Site, PAGE_CSP};
use crate::host::server::{AppState, Config};

/// The most records a search reads (newest first): a search looks no further back.
pub const MAX_SEARCH_SCAN: usize = 5000;
/// Records read at once while searching.
const SEARCH_READS: usize = 16;

/// What the pages' handlers share beside the [`AppState`]: the site and the player's `index.html`.
#[derive(Clone)]
struct Pages {
    site: Arc<Site>,
    template: Arc<str>,
}

/// The routes, for `server::router`. The player's `index.html` is read once, here (a missing one
/// leaves `/r/{id}` a page of its card alone: the unfurl still works, the player does not).
pub fn routes(config: &Config) -> Router<AppState> {
    let template = config
        .player_dir
        .as_ref()
        .and_then(|dir| std::fs::read_to_string(dir.join("index.html")).ok())
        .unwrap_or_default();
    let pages = Pages { site: Arc::new(Site::new(&config.public_url, "/", "Replay host")), template: template.into() };
    let (p1, p2, p3) = (pages.clone(), pages.clone(), pages.clone());
    let player = (!pages.template.is_empty()).then(|| player_page(&pages.template, &pages.site));
    let router = Router::new()
        .route("/r/{id}", get(move |st, id, q| replay(st, id, q, p1)))
        .route("/oembed", get(move |st, q| oembed_answer(st, q, p2)))
        .route("/", get(move |st, q| gallery_answer(st, q, p3)))
        .route(STYLESHEET_PATH, get(stylesheet));
    // The player's page with the host's tag (its Share dialog uploads); the rest of the player's
    // files are the server's fallback. Without a player, `/index.html` is the fallback's 404.
    match player {
        Some(body) => {
            let body: Arc<str> = body.into();
            router.route("/index.html", get(move || async move { html(StatusCode::OK, body.to_string(), "no-cache") }))
        }
        None => router,
    }
}

fn html(status: StatusCode, body: String, cache: &'static str) -> Response {
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    r
}

fn not_found_page() -> Response {
    html(
        StatusCode::NOT_FOUND,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>No such replay</title>\
<link rel=\"stylesheet\" href=\"/gallery.css\"></head><body><main><h1>No such replay</h1>\
<p><a href=\"/\">The replays on this host</a></p></main></body></html>\n"
            .to_string(),
        "no-cache",
    )
}

fn store_failed(e: impl std::fmt::Display) -> Response {
    let mut r = (StatusCode::SERVICE_UNAVAILABLE, format!("the store failed: {e}\n")).into_response();
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    r
}

/// `GET /r/{id}?t=…`: the player's page on that replay at that moment, with its card.
async fn replay(State(st): State<AppState>, Path(id): Path<String>, RawQuery(q): RawQuery, pages: Pages) -> Response {
    if !is_id(&id) {
        return not_found_page();
    }
    match st.store.record(&id).await {
        Ok(Some(rec)) => {
            let moment = Moment::from_query(q.as_deref().unwrap_or_default());
            // A short time: the record never changes, the player's build (the template) may.
            html(StatusCode::OK, replay_page(&pages.template, &pages.site, &rec, &moment), "public, max-age=300")
        }
        Ok(None) => not_found_page(),
        Err(e) => store_failed(e),
    }
}

fn json_error(status: StatusCode, message: String) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

/// `GET /oembed?url=…&maxwidth=&maxheight=&format=json`.
async fn oembed_answer(State(st): State<AppState>, RawQuery(q): RawQuery, pages: Pages) -> Response {
    let req = match oembed::parse_request(&pages.site, q.as_deref().unwrap_or_default()) {
        Ok(req) => req,
        Err(OembedError::BadRequest(m)) => return json_error(StatusCode::BAD_REQUEST, m),
        Err(OembedError::NotFound(m)) => return json_error(StatusCode::NOT_FOUND, m),
        Err(OembedError::NotImplemented(m)) => return json_error(StatusCode::NOT_IMPLEMENTED, m),
    };
    match st.store.record(&req.id).await {
        Ok(Some(rec)) => {
            let mut r = Json(oembed::oembed(&pages.site, &rec, &req)).into_response();
            let h = r.headers_mut();
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400"));
            // Consumers may ask from a page's script.
            h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
            r
        }
        Ok(None) => json_error(StatusCode::NOT_FOUND, "no such replay on this host".to_string()),
        Err(e) => store_failed(e),
    }
}

/// `GET /?q=…&page=N`: the gallery.
async fn gallery_answer(State(st): State<AppState>, RawQuery(q): RawQuery, pages: Pages) -> Response {
    let query = GalleryQuery::from_query(q.as_deref().unwrap_or_default());
    let found = if query.q.is_empty() {
        // The store lists newest first, a page at a time: only that page's records are read.
        st.store.list(query.page.saturating_sub(1), PER_PAGE).await.map(|(records, next)| (records, next.is_some()))
    } else {
        search(&st, &query).await
    };
    match found {
        Ok((records, next)) => {
            let shown: Vec<_> = records.iter().collect();
            html(StatusCode::OK, gallery::gallery_page(&pages.site, &query, &shown, next), "no-cache")
        }
        Err(e) => store_failed(e),
    }
}

/// The page of a search: the newest [`MAX_SEARCH_SCAN`] records read, [`SEARCH_READS`] at a time,
/// those matching kept until the page and one more are found.
async fn search(
    st: &AppState,
    query: &GalleryQuery,
) -> Result<(Vec<crate::host::record::ReplayRecord>, bool), crate::host::store::StoreError> {
    let ids = st.store.listed_ids().await?;
    let wanted = query.page.saturating_mul(PER_PAGE).saturating_add(1);
    let store = st.store.clone();
    let mut reads = futures_util::stream::iter(ids.into_iter().take(MAX_SEARCH_SCAN))
        .map(move |id| {
            let store = store.clone();
            async move { store.record(&id).await }
        })
        .buffered(SEARCH_READS);
    let mut hits = Vec::new();
    while let Some(rec) = reads.try_next().await? {
        if let Some(rec) = rec.filter(|r| gallery::matches(r, &query.q)) {
            hits.push(rec);
            if hits.len() >= wanted {
                break;
            }
        }
    }
    let (shown, next) = gallery::select(&hits, query);
    Ok((shown.into_iter().cloned().collect(), next))
}

/// `GET /gallery.css`.
async fn stylesheet() -> Response {
    let mut r = STYLESHEET.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/css; charset=utf-8"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
    r
}
