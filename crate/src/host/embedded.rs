//! The player's files inside the `replay` binary (feature `embed-player`): the repository's
//! `dist/`, as `npm run release` built it just before, included at compile time, so
//! `replay host --data DIR` serves the player, its pages and the API with nothing beside it.
//! Answered as a static host answers them: a content type by extension, `index.html` for a
//! folder, one Range (the full page reads its demo replay by Range), CORS `*`, revalidated.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use include_dir::{include_dir, Dir};

static PLAYER: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../dist");

/// Whether the binary holds a built player (its `index.html`).
pub fn has_player() -> bool {
    PLAYER.get_file("index.html").is_some()
}

/// A file's content type, by its extension.
fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, e)| e) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("webmanifest") => "application/manifest+json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        _ => "application/octet-stream",
    }
}

/// The fallback: the player's file at `uri`'s path, 404 when there is none.
pub async fn player_file(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let rel = uri.path().trim_start_matches('/');
    if rel.split('/').any(|s| s == "..") {
        return StatusCode::NOT_FOUND.into_response();
    }
    let rel = if rel.is_empty() || rel.ends_with('/') { format!("{rel}index.html") } else { rel.to_string() };
    let Some(file) = PLAYER.get_file(&rel) else { return StatusCode::NOT_FOUND.into_response() };
    let bytes: &'static [u8] = file.contents();
    let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let mut h = HeaderMap::new();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(&rel)));
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| http_range_header::parse_range_header(v).ok())
        .map(|r| r.validate(size));
    let (status, body) = match range {
        Some(Ok(ranges)) if ranges.len() == 1 => {
            let r = ranges.into_iter().next().unwrap_or(0..=0);
            let (a, b) = (*r.start(), *r.end());
            let part = usize::try_from(a)
                .ok()
                .zip(usize::try_from(b).ok())
                .and_then(|(a, b)| bytes.get(a..=b))
                .unwrap_or_default();
            if let Ok(v) = HeaderValue::from_str(&format!("bytes {a}-{b}/{size}")) {
                h.insert(header::CONTENT_RANGE, v);
            }
            (StatusCode::PARTIAL_CONTENT, part)
        }
        Some(Err(_)) => {
            if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
                h.insert(header::CONTENT_RANGE, v);
            }
            return (StatusCode::RANGE_NOT_SATISFIABLE, h).into_response();
        }
        // No Range, or several: the whole file (as HTTP allows).
        _ => (StatusCode::OK, bytes),
    };
    let body = if method == Method::HEAD { Body::empty() } else { Body::from(body) };
    (status, h, body).into_response()
}
