//! Reading and removing stored replays: `GET /files/{id}` (Range, ETag, immutable, CORS),
//! `GET /api/replays?page=N` (the list, newest first, from the records) and
//! `DELETE /api/replays/{id}` (with the delete token shown once at upload).
//!
//! Ids taken from paths must be 32 lowercase hex digits ([`valid_id`]): anything else is 404
//! before any store is asked.

use super::server::AppState;
use super::store::{valid_id, LocalRead, Store};
use super::upload::{bearer, same_secret, sha256_hex, Refusal};
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::StreamExt;
use object_store::{GetOptions, GetRange};

/// Reads up to this size are answered from one buffer; larger ones stream.
const BUFFERED_READ: u64 = 4 << 20;

fn not_found() -> Response {
    Refusal(StatusCode::NOT_FOUND, "no such replay".into()).into_response()
}

fn store_failed(e: impl std::fmt::Display) -> Response {
    Refusal(StatusCode::SERVICE_UNAVAILABLE, format!("the store failed: {e}")).into_response()
}

/// The headers every answer about a file carries.
fn file_headers(h: &mut HeaderMap, id: &str) {
    let set = |h: &mut HeaderMap, k, v: &str| {
        if let Ok(v) = HeaderValue::from_str(v) {
            h.insert(k, v);
        }
    };
    set(h, header::ETAG, &format!("\"{id}\""));
    set(h, header::CACHE_CONTROL, "public, max-age=31536000, immutable");
    set(h, header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    set(h, header::ACCESS_CONTROL_EXPOSE_HEADERS, "Content-Range, Content-Length, Accept-Ranges, ETag");
    set(h, header::ACCEPT_RANGES, "bytes");
    set(h, header::CONTENT_TYPE, "application/octet-stream");
    set(h, header::HeaderName::from_static("x-content-type-options"), "nosniff");
}

/// One range a request asks for, as the store takes it; `None` for no Range (or several ranges,
/// answered whole as HTTP allows); `Err` for a Range header that does not parse.
fn wanted_range(headers: &HeaderMap) -> Result<Option<GetRange>, ()> {
    use http_range_header::{EndPosition, StartPosition};
    let Some(v) = headers.get(header::RANGE) else { return Ok(None) };
    let v = v.to_str().map_err(|_| ())?;
    let parsed = http_range_header::parse_range_header(v).map_err(|_| ())?;
    let [r] = parsed.ranges.as_slice() else { return Ok(None) };
    Ok(Some(match (r.start, r.end) {
        (StartPosition::Index(a), EndPosition::Index(b)) => GetRange::Bounded(a..b.saturating_add(1)),
        (StartPosition::Index(a), EndPosition::LastByte) => GetRange::Offset(a),
        (StartPosition::FromLast(n), _) => GetRange::Suffix(n),
    }))
}

/// `GET`/`HEAD /files/{id}`.
pub async fn get_file(
    State(st): State<AppState>,
    method: Method,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if !valid_id(&id) {
        return not_found();
    }
    let mut h = HeaderMap::new();
    file_headers(&mut h, &id);
    let etag = format!("\"{id}\"");
    if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.split(',').any(|t| {
            let t = t.trim();
            t == "*" || t == etag || t.strip_prefix("W/") == Some(etag.as_str())
        })
    }) {
        return (StatusCode::NOT_MODIFIED, h).into_response();
    }
    // A Range that does not parse is ignored (RFC 9110 §14.2): the whole file.
    let range = wanted_range(&headers).unwrap_or_default();
    // A local store: one read from the disk (the object store's path takes two blocking steps).
    if let Some(read) = st.store.read_local(&id, range.clone(), BUFFERED_READ).await {
        match read {
            LocalRead::NotFound => return not_found(),
            LocalRead::Unsatisfiable { size } => return unsatisfiable(h, size),
            LocalRead::Failed(e) => return store_failed(e),
            LocalRead::Found { size, start, end, bytes: Some(b) } => {
                let status = ranged(&mut h, range.is_some(), start..end, size);
                let body = if method == Method::HEAD { Body::empty() } else { Body::from(b) };
                return (status, h, body).into_response();
            }
            LocalRead::Found { bytes: None, .. } => {} // large: streamed below
        }
    }
    let os = st.store.object_store();
    let path = Store::file_path(&id);
    // A zero-length or empty suffix range: unsatisfiable whatever the size.
    let empty =
        matches!(&range, Some(GetRange::Suffix(0))) || matches!(&range, Some(GetRange::Bounded(r)) if r.start >= r.end);
    let opts =
        GetOptions { range: range.clone().filter(|_| !empty), head: method == Method::HEAD, ..Default::default() };
    let got = match os.get_opts(&path, opts).await {
        Ok(g) => g,
        Err(object_store::Error::NotFound { .. }) => return not_found(),
        Err(e) => {
            if range.is_none() {
                return store_failed(e);
            }
            // A range the store refused: past the end (416), or the store failing.
            return match os.head(&path).await {
                Ok(meta) => unsatisfiable(h, meta.size),
                Err(object_store::Error::NotFound { .. }) => not_found(),
                Err(e) => store_failed(e),
            };
        }
    };
    let size = got.meta.size;
    if empty || got.range.start >= size.max(1) && range.is_some() {
        return unsatisfiable(h, size);
    }
    let r = got.range.clone();
    let len = r.end.saturating_sub(r.start);
    let status = ranged(&mut h, range.is_some(), r, size);
    if method == Method::HEAD {
        return (status, h).into_response();
    }
    let body = if len <= BUFFERED_READ {
        match got.bytes().await {
            Ok(b) => Body::from(b),
            Err(e) => return store_failed(e),
        }
    } else {
        Body::from_stream(got.into_stream().map(|r| r.map_err(std::io::Error::other)))
    };
    (status, h, body).into_response()
}

/// Content-Length (and Content-Range for a range) of an answer with bytes `r` of `size`; its status.
fn ranged(h: &mut HeaderMap, is_range: bool, r: std::ops::Range<u64>, size: u64) -> StatusCode {
    if let Ok(v) = HeaderValue::from_str(&r.end.saturating_sub(r.start).to_string()) {
        h.insert(header::CONTENT_LENGTH, v);
    }
    if !is_range {
        return StatusCode::OK;
    }
    if let Ok(v) = HeaderValue::from_str(&format!("bytes {}-{}/{size}", r.start, r.end.saturating_sub(1))) {
        h.insert(header::CONTENT_RANGE, v);
    }
    StatusCode::PARTIAL_CONTENT
}

fn unsatisfiable(mut h: HeaderMap, size: u64) -> Response {
    if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
        h.insert(header::CONTENT_RANGE, v);
    }
    h.remove(header::CONTENT_TYPE);
    (StatusCode::RANGE_NOT_SATISFIABLE, h).into_response()
}

/// `DELETE /api/replays/{id}` with `Authorization: Bearer <deleteToken>` (or the host's admin
/// token, host/moderation.rs): 204, 401 without a token, 403 with a wrong one, 404 for no such
/// replay. A hidden replay is deleted too.
pub async fn delete_replay(State(st): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    if !valid_id(&id) {
        return not_found();
    }
    if super::moderation::is_admin(&st, &headers) {
        let known = match (st.store.record(&id).await, st.store.hidden_record(&id).await) {
            (Ok(a), Ok(b)) => a.is_some() || b.is_some(),
            (Err(e), _) | (_, Err(e)) => return store_failed(e),
        };
        if !known {
            return not_found();
        }
        return match st.store.remove(&id).await {
            Ok(()) => StatusCode::NO_CONTENT.into_response(),
            Err(e) => store_failed(e),
        };
    }
    let Some(token) = bearer(&headers) else {
        let mut r = Refusal(StatusCode::UNAUTHORIZED, "send the delete token as Authorization: Bearer <token>".into())
            .into_response();
        r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return r;
    };
    let rec = match st.store.record(&id).await {
        Ok(Some(r)) => r,
        Ok(None) => match st.store.hidden_record(&id).await {
            Ok(Some(r)) => r,
            Ok(None) => return not_found(),
            Err(e) => return store_failed(e),
        },
        Err(e) => return store_failed(e),
    };
    if !same_secret(&sha256_hex(token), &rec.delete_token_sha256) {
        return Refusal(StatusCode::FORBIDDEN, "this is not the replay's delete token".into()).into_response();
    }
    match st.store.remove(&id).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => store_failed(e),
    }
}

#[derive(serde::Deserialize)]
pub struct ListQuery {
    page: Option<usize>,
}

/// `GET /api/replays?page=N`: `{replays: [{id, title, duration, ticks, kills, players, format,
/// uploaded, page, poster}], next}`, newest first; `next` is the next page's number or null.
pub async fn list_replays(State(st): State<AppState>, Query(q): Query<ListQuery>) -> Response {
    let page = q.page.unwrap_or(0);
    match st.store.list(page, st.config.page_size.max(1)).await {
        Ok((records, next)) => {
            let replays: Vec<serde_json::Value> = records
                .iter()
                .map(|r| {
                    let urls = st.urls(&r.id);
                    serde_json::json!({
                        "id": r.id,
                        "title": r.title,
                        "duration": r.duration,
                        "ticks": r.ticks,
                        "kills": r.kills.len(),
                        "players": r.players,
                        "format": r.format,
                        "uploaded": r.uploaded,
                        "page": urls.page,
                        "poster": urls.poster,
                    })
                })
                .collect();
            let mut r = Json(serde_json::json!({ "replays": replays, "next": next })).into_response();
            r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            r
        }
        Err(e) => store_failed(e),
    }
}
