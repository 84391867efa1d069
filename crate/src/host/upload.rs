//! `POST /api/replays`: an upload. The body streams at once to a temporary object in the store
//! (`tmp/{nonce}`) and to a spool file on local disk (the reader needs random access), while its
//! SHA-256 is computed and its size counted. Then the native reader checks the spool with the rules
//! of `replay validate` ([`crate::io::validate`]); only when it passes is the temporary object
//! renamed to `files/{id}` and the record and list entry written. A refused, cut or failed upload
//! removes its temporary object and spool: nothing is listed or kept.
//!
//! Answers: `201 {id, page, file, embed, poster, oembed, deleteToken}`; `200` with the same body
//! without `deleteToken` and with `"existing": true` when these bytes are already stored (the id is
//! the content's hash: no second copy, and the first uploader's token stays the only one);
//! `400` a body cut short or a `Content-Length` the body does not match; `401` without the upload
//! token when one is set; `408` a body that stalls; `413` over the size limit; `422 {error}` with
//! the reader's message; `429` past the client's rate; `503` when the store fails.

use super::server::AppState;
use super::store::Store;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::StreamExt;
use object_store::{ObjectStore, WriteMultipart};
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::io::AsyncWriteExt;

/// Parts of this size go to the store (the object stores' multipart minimum is 5 MiB).
const PART_BYTES: usize = 8 << 20;
/// The longest `X-Filename` kept, in characters.
const MAX_FILENAME_CHARS: usize = 200;

/// A refusal: the status and the sentence for `{error}`.
pub struct Refusal(pub StatusCode, pub String);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut r = (self.0, Json(serde_json::json!({ "error": self.1 }))).into_response();
        if self.0 == StatusCode::TOO_MANY_REQUESTS {
            r.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("60"));
        }
        r
    }
}

pub(super) fn store_failed(e: impl std::fmt::Display) -> Refusal {
    Refusal(StatusCode::SERVICE_UNAVAILABLE, format!("the store failed: {e}"))
}

/// The spool file, removed when dropped (also when the client goes away mid-body and the handler is
/// dropped with it).
struct Spool(PathBuf);

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A fresh random token, as lowercase hex (`bytes` random bytes).
fn random_hex(bytes: usize) -> Result<String, Refusal> {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b)
        .map_err(|e| Refusal(StatusCode::INTERNAL_SERVER_ERROR, format!("no random numbers: {e}")))?;
    Ok(hex(&b))
}

pub fn hex(b: &[u8]) -> String {
    use std::fmt::Write as _;
    b.iter().fold(String::with_capacity(b.len() * 2), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// Lowercase hex SHA-256 of `s` (how delete tokens are kept).
pub fn sha256_hex(s: &str) -> String {
    hex(&Sha256::digest(s.as_bytes()))
}

/// `Authorization: Bearer <token>`'s token.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION)?.to_str().ok()?.strip_prefix("Bearer ").map(str::trim)
}

/// Compares two strings in time that depends only on their lengths.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub async fn upload(State(st): State<AppState>, req: Request) -> Response {
    // Held to the end of the answer and its cleanup, or until the handler is dropped.
    let _in_flight = st.uploads.begin();
    match handle(st, req).await {
        Ok(r) => r,
        Err(r) => r.into_response(),
    }
}

async fn handle(st: AppState, req: Request) -> Result<Response, Refusal> {
    let cfg = st.config.clone();
    if let Some(ConnectInfo(addr)) = req.extensions().get::<ConnectInfo<SocketAddr>>() {
        st.limiter.take(addr.ip()).map_err(|wait| {
            Refusal(StatusCode::TOO_MANY_REQUESTS, format!("too many uploads from this address: try again in {wait} s"))
        })?;
    }
    if let Some(want) = &cfg.upload_token {
        if !bearer(req.headers()).is_some_and(|got| same_secret(got, want)) {
            return Err(Refusal(StatusCode::UNAUTHORIZED, "this host takes uploads with its upload token only".into()));
        }
    }
    let declared = match req.headers().get(header::CONTENT_LENGTH) {
        Some(v) => Some(
            v.to_str()
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .ok_or_else(|| Refusal(StatusCode::BAD_REQUEST, "Content-Length is not a number".into()))?,
        ),
        None => None,
    };
    let max = cfg.max_upload_bytes;
    if let Some(n) = declared.filter(|n| *n > max) {
        return Err(Refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the file is {n} bytes; this host takes at most {max}"),
        ));
    }
    // Percent-encoded UTF-8 (the page sends encodeURIComponent(name)); plain ASCII reads as itself.
    let filename = req.headers().get("x-filename").map(|v| {
        percent_encoding::percent_decode(v.as_bytes())
            .decode_utf8_lossy()
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_FILENAME_CHARS)
            .collect()
    });

    let nonce = random_hex(16)?;
    let spool_dir = cfg.data_dir.join("spool");
    tokio::fs::create_dir_all(&spool_dir).await.map_err(store_failed)?;
    let spool = Spool(spool_dir.join(&nonce));
    let tmp = Store::tmp_path(&nonce);
    let os = st.store.object_store().clone();

    // The body: to the spool and the temporary object, hashed and counted.
    let received = receive(&st, req.into_body(), &spool, &tmp, declared).await;
    let (digest, size) = match received {
        Ok(v) => v,
        Err(r) => {
            let _ = os.delete(&tmp).await;
            return Err(r);
        }
    };
    let id = hex(digest.get(..16).unwrap_or(&digest));
    // The rest runs to its end (or its cleanup) even if the client goes away now.
    // (Counted in flight until it ends: the handler may be dropped before.)
    let held = st.uploads.enter();
    let task = tokio::spawn({
        let st = st.clone();
        let tmp = tmp.clone();
        async move {
            let _held = held;
            finish(st, id, size, filename, spool, tmp).await
        }
    });
    match task.await {
        Ok(r) => r,
        Err(e) => {
            let _ = os.delete(&tmp).await;
            Err(Refusal(StatusCode::INTERNAL_SERVER_ERROR, format!("the upload stopped: {e}")))
        }
    }
}

/// Streams the body to the spool and, unless the store is a local directory (where the spool is
/// moved in once checked), to `tmp` in the store; returns its SHA-256 and size.
async fn receive(
    st: &AppState,
    body: Body,
    spool: &Spool,
    tmp: &object_store::path::Path,
    declared: Option<u64>,
) -> Result<(Vec<u8>, u64), Refusal> {
    let cfg = &st.config;
    let max = cfg.max_upload_bytes;
    let mut file = tokio::fs::File::create(&spool.0).await.map_err(store_failed)?;
    let mut w = match st.store.local_file(tmp) {
        Some(_) => None,
        None => {
            let upload = st.store.object_store().put_multipart(tmp).await.map_err(store_failed)?;
            Some(WriteMultipart::new_with_chunk_size(upload, PART_BYTES))
        }
    };
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    let mut stream = body.into_data_stream();
    let outcome: Result<(), Refusal> = async {
        loop {
            let next = tokio::time::timeout(cfg.body_read_timeout, stream.next()).await.map_err(|_| {
                Refusal(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the body stalled: nothing for {} s after {size} bytes",
                        cfg.body_read_timeout.as_secs_f64()
                    ),
                )
            })?;
            let Some(chunk) = next else { break };
            let chunk = chunk
                .map_err(|e| Refusal(StatusCode::BAD_REQUEST, format!("the body was cut after {size} bytes: {e}")))?;
            size = size.saturating_add(chunk.len() as u64);
            if size > max {
                return Err(Refusal(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the file is over {max} bytes, the most this host takes"),
                ));
            }
            if declared.is_some_and(|d| size > d) {
                return Err(Refusal(StatusCode::BAD_REQUEST, "the body is longer than its Content-Length".into()));
            }
            hasher.update(&chunk);
            file.write_all(&chunk).await.map_err(store_failed)?;
            if let Some(w) = w.as_mut() {
                w.wait_for_capacity(2).await.map_err(store_failed)?;
                w.write(&chunk);
            }
        }
        if let Some(d) = declared.filter(|d| *d != size) {
            return Err(Refusal(
                StatusCode::BAD_REQUEST,
                format!("the body has {size} bytes, its Content-Length says {d}"),
            ));
        }
        if size == 0 {
            return Err(Refusal(StatusCode::UNPROCESSABLE_ENTITY, "the file is empty".into()));
        }
        file.flush().await.map_err(store_failed)?;
        Ok(())
    }
    .await;
    match outcome {
        Ok(()) => {
            if let Some(w) = w {
                w.finish().await.map_err(store_failed)?;
            }
            Ok((hasher.finalize().to_vec(), size))
        }
        Err(r) => {
            if let Some(w) = w {
                let _ = w.abort().await;
            }
            Err(r)
        }
    }
}

/// After the body: the check, then publishing (or removing the temporary object).
async fn finish(
    st: AppState,
    id: String,
    size: u64,
    filename: Option<String>,
    spool: Spool,
    tmp: object_store::path::Path,
) -> Result<Response, Refusal> {
    let os: Arc<dyn ObjectStore> = st.store.object_store().clone();
    let result = publish(&st, &id, size, filename, &spool).await;
    drop(spool);
    match &result {
        Ok((_, true)) => {}
        _ => {
            let _ = os.delete(&tmp).await;
        }
    }
    result.map(|(r, _)| r)
}

/// Returns the answer, and whether the temporary object became `files/{id}`.
async fn publish(
    st: &AppState,
    id: &str,
    size: u64,
    filename: Option<String>,
    spool: &Spool,
) -> Result<(Response, bool), Refusal> {
    if st.store.record(id).await.map_err(store_failed)?.is_some() {
        return Ok((existing(st, id), false));
    }
    // A replay taken down (host/moderation.rs) does not come back by being uploaded again.
    if st.store.hidden_record(id).await.map_err(store_failed)?.is_some() {
        return Err(Refusal(StatusCode::GONE, "this replay was taken down by the host's moderators".into()));
    }
    let path = spool.0.clone();
    let checked = tokio::task::spawn_blocking(move || {
        let mut src = crate::io::FileSource::open(&path).map_err(|e| e.to_string())?;
        crate::io::validate::validate(&mut src).map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| Refusal(StatusCode::INTERNAL_SERVER_ERROR, format!("the check stopped: {e}")))?;
    let report = checked.map_err(|e| Refusal(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    if !report.passed() {
        return Err(Refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{} problem(s) found while opening: {}", report.problems.len(), report.problems.join("; ")),
        ));
    }
    let os = st.store.object_store();
    let file = Store::file_path(id);
    match st.store.local_file(&file) {
        // A local store: the checked spool becomes the file (one rename on one disk; a copy across
        // disks, written beside the file and renamed onto it so it is never seen half written).
        Some(dst) => {
            if let Some(dir) = dst.parent() {
                tokio::fs::create_dir_all(dir).await.map_err(store_failed)?;
            }
            if tokio::fs::rename(&spool.0, &dst).await.is_err() {
                let part = dst.with_extension("part");
                tokio::fs::copy(&spool.0, &part).await.map_err(store_failed)?;
                tokio::fs::rename(&part, &dst).await.map_err(store_failed)?;
            }
        }
        None => {
            let tmp = Store::tmp_path(spool.0.file_name().and_then(|n| n.to_str()).unwrap_or_default());
            os.rename(&tmp, &file).await.map_err(store_failed)?;
        }
    }
    let token = random_hex(32)?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let rec = super::summary::record(id, size, now.as_secs(), filename, &report, sha256_hex(&token));
    let fresh = match st.store.publish(&rec, u64::try_from(now.as_millis()).unwrap_or(u64::MAX)).await {
        Ok(f) => f,
        Err(e) => {
            // No record: the file must not stay behind (unless another upload of it published).
            if matches!(st.store.record(id).await, Ok(None)) {
                let _ = os.delete(&Store::file_path(id)).await;
            }
            return Err(store_failed(e));
        }
    };
    if !fresh {
        return Ok((existing(st, id), true));
    }
    st.metrics.upload_bytes.inc_by(size);
    let mut body = serde_json::to_value(st.urls(id)).unwrap_or_default();
    if let Some(o) = body.as_object_mut() {
        o.insert("id".into(), id.into());
        o.insert("deleteToken".into(), token.into());
    }
    Ok(((StatusCode::CREATED, Json(body)).into_response(), true))
}

/// The answer for bytes already stored: their links, no token.
fn existing(st: &AppState, id: &str) -> Response {
    let mut body = serde_json::to_value(st.urls(id)).unwrap_or_default();
    if let Some(o) = body.as_object_mut() {
        o.insert("id".into(), id.into());
        o.insert("existing".into(), true.into());
    }
    (StatusCode::OK, Json(body)).into_response()
}
