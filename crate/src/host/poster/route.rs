//! `GET /r/{id}/poster.png?t=SECONDS[&spoilers=0]`: the poster of that moment (1200×630 PNG). `t` is
//! clamped to the recording and rounded to a tenth of a second; each poster is drawn once and kept
//! in the store as an immutable object, `posters/{id}/{t}.png` (`{t}-safe.png` with `spoilers=0`,
//! which leaves the recording's length out of the header), removed with the replay, so later
//! requests, other instances and a CDN in front serve the same bytes. An unknown id is 404.
//!
//! A poster not yet in the store is read from the stored file through the sans-IO session: the
//! open's ranges and the chunks around `t` ([`super::chunks_for`]) as range reads of the object,
//! never the whole file; the decoding and drawing run on the blocking pool, at most
//! [`MAX_DRAWING`] at once per instance (more are answered 503 with `Retry-After`).

use super::{chunks_for, moment_from_chunks, moment_tick, render_png_with};
use crate::format::{OpenStep, Session};
use crate::host::server::AppState;
use crate::host::store::{valid_id, Store};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use object_store::path::Path as ObjectPath;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Posters drawn at once by one instance (each holds a few chunks decoded).
pub const MAX_DRAWING: usize = 4;
static DRAWING: AtomicUsize = AtomicUsize::new(0);

/// The poster's route, merged into the host's router.
pub fn routes() -> Router<AppState> {
    Router::new().route("/r/{id}/poster.png", get(poster))
}

fn text(status: StatusCode, msg: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], msg).into_response()
}

/// `t` of the query in tenths of a second (0 when absent or not a number), before clamping.
fn tenths(query: Option<&str>) -> u64 {
    let t = query
        .unwrap_or("")
        .split('&')
        .find_map(|kv| kv.strip_prefix("t="))
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|t| t.is_finite())
        .unwrap_or(0.0);
    (t.max(0.0) * 10.0).round().min(1e15) as u64
}

/// Whether the query asks for a poster that tells nothing past its moment (`spoilers=0`, `off`,
/// `false` or `no`, as the player's options read it).
fn spoiler_safe(query: Option<&str>) -> bool {
    query
        .unwrap_or("")
        .split('&')
        .filter_map(|kv| kv.strip_prefix("spoilers="))
        .any(|v| matches!(v.to_ascii_lowercase().as_str(), "0" | "off" | "false" | "no"))
}

/// The object a poster of replay `id` at `tenths` is kept as: `posters/{id}/{s}.{d}.png`, or
/// `…-safe.png` for a spoiler-safe one.
pub fn poster_path(id: &str, tenths: u64, safe: bool) -> ObjectPath {
    let safe = if safe { "-safe" } else { "" };
    ObjectPath::from(format!("{}/{}.{}{safe}.png", Store::poster_prefix(id), tenths / 10, tenths % 10))
}

fn png_response(png: Bytes) -> Response {
    let mut h = HeaderMap::new();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert(header::HeaderName::from_static("x-content-type-options"), HeaderValue::from_static("nosniff"));
    (StatusCode::OK, h, png).into_response()
}

/// Releases a drawing slot when dropped.
struct Slot;
impl Drop for Slot {
    fn drop(&mut self) {
        DRAWING.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn poster(State(st): State<AppState>, Path(id): Path<String>, RawQuery(query): RawQuery) -> Response {
    if !valid_id(&id) {
        return text(StatusCode::NOT_FOUND, "no such replay".into());
    }
    let record = match st.store.record(&id).await {
        Ok(Some(r)) => r,
        Ok(None) => return text(StatusCode::NOT_FOUND, "no such replay".into()),
        Err(e) => return text(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    };
    let duration = if record.duration.is_finite() { record.duration.max(0.0) } else { 0.0 };
    let tenths = tenths(query.as_deref()).min((duration * 10.0).floor() as u64);
    let os = st.store.object_store().clone();
    let safe = spoiler_safe(query.as_deref());
    let key = poster_path(&id, tenths, safe);
    match os.get(&key).await {
        Ok(got) => match got.bytes().await {
            Ok(b) => return png_response(b),
            Err(e) => return text(StatusCode::SERVICE_UNAVAILABLE, format!("the store failed: {e}")),
        },
        Err(object_store::Error::NotFound { .. }) => {}
        Err(e) => return text(StatusCode::SERVICE_UNAVAILABLE, format!("the store failed: {e}")),
    }
    if DRAWING.fetch_add(1, Ordering::SeqCst) >= MAX_DRAWING {
        DRAWING.fetch_sub(1, Ordering::SeqCst);
        let mut r = text(StatusCode::SERVICE_UNAVAILABLE, "busy drawing other posters: try again".into());
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return r;
    }
    let _slot = Slot;
    let t0 = std::time::Instant::now();
    let png = match draw(&os, &id, tenths as f64 / 10.0, &record.title, !safe).await {
        Ok(png) => Bytes::from(png),
        Err((status, msg)) => return text(status, msg),
    };
    st.metrics.posters.observe(t0.elapsed().as_secs_f64());
    // Kept for the next request; a store that fails to keep it still gets this answer.
    let _ = os.put(&key, png.clone().into()).await;
    png_response(png)
}

/// Reads the moment `t` of replay `id` through range reads of its object and draws its poster.
async fn draw(
    os: &std::sync::Arc<dyn object_store::ObjectStore>,
    id: &str,
    t: f64,
    title: &str,
    spoilers: bool,
) -> Result<Vec<u8>, (StatusCode, String)> {
    let store_failed = |e: object_store::Error| match e {
        object_store::Error::NotFound { .. } => (StatusCode::NOT_FOUND, "no such replay".to_string()),
        e => (StatusCode::SERVICE_UNAVAILABLE, format!("the store failed: {e}")),
    };
    let unreadable = |e: crate::format::SessionError| {
        (StatusCode::INTERNAL_SERVER_ERROR, format!("the replay could not be read for its poster: {e}"))
    };
    let path = Store::file_path(id);
    let size = os.head(&path).await.map_err(store_failed)?.size;
    let mut s = Session::new(size);
    let mut data: Option<Bytes> = None;
    while let OpenStep::Need { offset, len } = s.next(data.as_deref()).map_err(unreadable)? {
        let end = offset.saturating_add(len).min(size);
        data = Some(os.get_range(&path, offset..end).await.map_err(store_failed)?);
    }
    let info = s.info().ok_or_else(|| unreadable(crate::format::SessionError::Usage("not open".into())))?;
    let tick = moment_tick(&info, t);
    let wanted = chunks_for(&s, &info, tick);
    let ranges: Vec<std::ops::Range<u64>> = wanted.iter().map(|&(_, o, l)| o..o.saturating_add(l).min(size)).collect();
    let bytes =
        if ranges.is_empty() { Vec::new() } else { os.get_ranges(&path, &ranges).await.map_err(store_failed)? };
    let title = title.to_string();
    let job = tokio::task::spawn_blocking(move || {
        let chunks: Vec<(usize, &[u8])> = wanted.iter().zip(&bytes).map(|(&(i, _, _), b)| (i, b.as_ref())).collect();
        let m = moment_from_chunks(&mut s, &info, tick, &chunks).map_err(unreadable)?;
        render_png_with(&info, &m, &title, spoilers).map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
    });
    job.await.map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, format!("the poster's drawing stopped: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_is_read_in_tenths_and_odd_values_read_as_zero() {
        assert_eq!(tenths(Some("t=12.34")), 123);
        assert_eq!(tenths(Some("x=1&t=0.05")), 1);
        assert_eq!(tenths(Some("t=-4")), 0);
        assert_eq!(tenths(Some("t=NaN")), 0);
        assert_eq!(tenths(Some("t=inf")), 0);
        assert_eq!(tenths(Some("t=1e400")), 0);
        assert_eq!(tenths(Some("t=abc")), 0);
        assert_eq!(tenths(None), 0);
        assert_eq!(tenths(Some("t=1e300")), 1_000_000_000_000_000);
        assert_eq!(
            poster_path(&"a".repeat(32), 123, false).to_string(),
            format!("posters/{}/12.3.png", "a".repeat(32))
        );
        assert_eq!(
            poster_path(&"a".repeat(32), 5, true).to_string(),
            format!("posters/{}/0.5-safe.png", "a".repeat(32))
        );
        assert!(spoiler_safe(Some("t=1&spoilers=0")));
        assert!(spoiler_safe(Some("spoilers=OFF&t=1")));
        assert!(!spoiler_safe(Some("t=1&spoilers=1")));
        assert!(!spoiler_safe(Some("t=1")));
        assert!(!spoiler_safe(None));
    }
}
