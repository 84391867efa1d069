//! What an operator's tools ask of the host: `GET /healthz` (the process answers), `GET /readyz`
//! (the store answers a write, a read and a delete), `GET /metrics` (the Prometheus text format)
//! and the request log (one line per request through `tracing`). docs/hosting.md "Operating".
//!
//! [`Metrics`] is one registry per instance (several hosts in one process, as in the tests, count
//! apart); the handlers count what only they know (upload bytes, posters, store errors), the
//! [`observe`] middleware what every request shows (its route and status, refusals, Range bytes).

use super::server::AppState;
use super::store::Store;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use object_store::path::Path;
use object_store::PutPayload;
use prometheus::{Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, Opts, Registry, TextEncoder};
use std::time::Instant;

/// The host's counters, registered in its own registry.
pub struct Metrics {
    registry: Registry,
    /// Requests answered, by route (the router's pattern, `/files/{id}`; `other` for the player's
    /// files and unknown paths) and status code.
    pub requests: IntCounterVec,
    /// Bytes of the uploads taken (stored).
    pub upload_bytes: IntCounter,
    /// Uploads refused, by reason (the status code: 401, 413, 415, 422, 429, …).
    pub uploads_refused: IntCounterVec,
    /// Posters drawn, and the seconds each took.
    pub posters: Histogram,
    /// Bytes sent in answers to Range requests (206) of `/files/{id}`.
    pub range_bytes: IntCounter,
    /// Store operations that failed.
    pub store_errors: IntCounter,
}

impl Metrics {
    pub fn new() -> Self {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new("replay_host_requests_total", "Requests answered, by route and status"),
            &["route", "status"],
        )
        .unwrap_or_else(|e| unreachable!("fixed metric options: {e}"));
        let upload_bytes = IntCounter::new("replay_host_upload_bytes_total", "Bytes of the uploads stored")
            .unwrap_or_else(|e| unreachable!("fixed metric options: {e}"));
        let uploads_refused = IntCounterVec::new(
            Opts::new("replay_host_uploads_refused_total", "Uploads refused, by reason (the status code)"),
            &["reason"],
        )
        .unwrap_or_else(|e| unreachable!("fixed metric options: {e}"));
        let posters = Histogram::with_opts(
            HistogramOpts::new("replay_host_poster_seconds", "Posters drawn and the seconds each took")
                .buckets(vec![0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5]),
        )
        .unwrap_or_else(|e| unreachable!("fixed metric options: {e}"));
        let range_bytes = IntCounter::new("replay_host_range_bytes_total", "Bytes sent in 206 answers of /files/{id}")
            .unwrap_or_else(|e| unreachable!("fixed metric options: {e}"));
        let store_errors = IntCounter::new("replay_host_store_errors_total", "Store operations that failed")
            .unwrap_or_else(|e| unreachable!("fixed metric options: {e}"));
        let m = Metrics { registry, requests, upload_bytes, uploads_refused, posters, range_bytes, store_errors };
        let all: [Box<dyn prometheus::core::Collector>; 6] = [
            Box::new(m.requests.clone()),
            Box::new(m.upload_bytes.clone()),
            Box::new(m.uploads_refused.clone()),
            Box::new(m.posters.clone()),
            Box::new(m.range_bytes.clone()),
            Box::new(m.store_errors.clone()),
        ];
        for c in all {
            // Distinct names in a fresh registry: registering cannot collide.
            let _ = m.registry.register(c);
        }
        m
    }

    /// The registry in the Prometheus text format (version 0.0.4).
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        // Writing to a Vec fails only for a metric the encoder cannot name: none here.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// `/healthz`, `/readyz`, `/metrics`.
pub fn routes() -> Router<AppState> {
    Router::new().route("/healthz", get(healthz)).route("/readyz", get(readyz)).route("/metrics", get(metrics))
}

/// The process answers.
async fn healthz() -> &'static str {
    "ok\n"
}

/// The store answers: a small object written, read back and deleted. 503 with the store's error
/// otherwise (a load balancer stops sending traffic; the host itself keeps running).
async fn readyz(State(st): State<AppState>) -> Response {
    match probe(&st.store).await {
        Ok(()) => (StatusCode::OK, "ready\n").into_response(),
        Err(e) => {
            st.metrics.store_errors.inc();
            (StatusCode::SERVICE_UNAVAILABLE, format!("the store does not answer: {e}\n")).into_response()
        }
    }
}

/// One write, read and delete of `ready/{nonce}` in `store`.
pub async fn probe(store: &Store) -> Result<(), String> {
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce).map_err(|e| format!("no random numbers: {e}"))?;
    let path = Path::from(format!("ready/{}", super::upload::hex(&nonce)));
    let inner = store.object_store();
    inner.put(&path, PutPayload::from_static(b"ready")).await.map_err(|e| format!("write: {e}"))?;
    let read = inner.get(&path).await.map_err(|e| format!("read: {e}"))?;
    let bytes = read.bytes().await.map_err(|e| format!("read: {e}"))?;
    let deleted = inner.delete(&path).await.map_err(|e| format!("delete: {e}"));
    if bytes.as_ref() != b"ready" {
        return Err(format!("read back {} bytes that are not what was written", bytes.len()));
    }
    deleted
}

/// `GET /metrics`.
async fn metrics(State(st): State<AppState>) -> Response {
    let mut r = st.metrics.render().into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    r
}

/// Counts and logs every request: its route and status; an upload refused, by its status; the
/// bytes of a 206 of `/files/{id}`. One log line per request (`tracing`, target `replay_host`).
pub async fn observe(State(st): State<AppState>, req: Request, next: Next) -> Response {
    let route = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_string());
    let method = req.method().clone();
    let uri = req.uri().path().to_string();
    let t0 = Instant::now();
    let resp = next.run(req).await;
    let status = resp.status();
    let route = route.unwrap_or_else(|| "other".to_string());
    st.metrics.requests.with_label_values(&[route.as_str(), status.as_str()]).inc();
    if route == "/api/replays" && method == Method::POST && (status.is_client_error() || status.is_server_error()) {
        st.metrics.uploads_refused.with_label_values(&[status.as_str()]).inc();
    }
    if route == "/files/{id}" && status == StatusCode::PARTIAL_CONTENT {
        let len = resp
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        st.metrics.range_bytes.inc_by(len);
    }
    tracing::info!(
        target: "replay_host",
        method = %method,
        path = %uri,
        route = %route,
        status = status.as_u16(),
        ms = t0.elapsed().as_secs_f64() * 1000.0,
        "request"
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_names_every_metric() {
        let m = Metrics::new();
        m.requests.with_label_values(&["/healthz", "200"]).inc();
        m.upload_bytes.inc_by(7);
        m.uploads_refused.with_label_values(&["413"]).inc();
        m.posters.observe(0.02);
        m.range_bytes.inc_by(65536);
        let text = m.render();
        assert!(text.contains("replay_host_requests_total{route=\"/healthz\",status=\"200\"} 1"), "{text}");
        assert!(text.contains("replay_host_upload_bytes_total 7"), "{text}");
        assert!(text.contains("replay_host_uploads_refused_total{reason=\"413\"} 1"), "{text}");
        assert!(text.contains("replay_host_poster_seconds_count 1"), "{text}");
        assert!(text.contains("replay_host_range_bytes_total 65536"), "{text}");
        assert!(text.contains("replay_host_store_errors_total 0"), "{text}");
        // Two instances count apart.
        assert!(Metrics::new().render().contains("replay_host_upload_bytes_total 0"));
    }
}
