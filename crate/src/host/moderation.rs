//! What a community host needs when a stranger uploads something that must go: with the admin
//! token (`--admin-token`, `Authorization: Bearer <token>`) any replay can be hidden
//! (`PUT /api/replays/{id}/hidden`), shown again (`DELETE /api/replays/{id}/hidden`) and deleted
//! (`DELETE /api/replays/{id}`, as with the uploader's delete token, which keeps working). A hidden
//! replay is gone from the gallery, `/r/`, `/files/`, its card, poster and oEmbed, and an upload of
//! the same bytes is refused (410). The rule for age: host/retention.rs.

use super::server::AppState;
use super::store::valid_id;
use super::upload::{bearer, same_secret, store_failed, Refusal};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// Whether `headers` carry this host's admin token (never, without `--admin-token`).
pub fn is_admin(st: &AppState, headers: &HeaderMap) -> bool {
    match (&st.config.admin_token, bearer(headers)) {
        (Some(admin), Some(given)) => same_secret(given, admin),
        _ => false,
    }
}

/// 401 (no token) or 403 (another token) for an admin route.
fn refuse(headers: &HeaderMap) -> Response {
    if bearer(headers).is_none() {
        let mut r = Refusal(StatusCode::UNAUTHORIZED, "send the admin token as Authorization: Bearer <token>".into())
            .into_response();
        r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return r;
    }
    Refusal(StatusCode::FORBIDDEN, "this is not the host's admin token".into()).into_response()
}

fn not_found() -> Response {
    Refusal(StatusCode::NOT_FOUND, "no such replay".into()).into_response()
}

/// `PUT /api/replays/{id}/hidden`: 204, or 404 for no such shown replay.
pub async fn hide(State(st): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    if !is_admin(&st, &headers) {
        return refuse(&headers);
    }
    let done = if valid_id(&id) { st.store.hide(&id).await } else { Ok(false) };
    answer(&st, done)
}

/// `DELETE /api/replays/{id}/hidden`: 204, or 404 for no such hidden replay.
pub async fn show(State(st): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    if !is_admin(&st, &headers) {
        return refuse(&headers);
    }
    let done = if valid_id(&id) { st.store.show(&id).await } else { Ok(false) };
    answer(&st, done)
}

/// 204 when it was done, 404 when there was nothing to do it to, 503 when the store failed.
fn answer(st: &AppState, done: Result<bool, super::store::StoreError>) -> Response {
    match done {
        Ok(true) => StatusCode::NO_CONTENT.into_response(),
        Ok(false) => not_found(),
        Err(e) => {
            st.metrics.store_errors.inc();
            store_failed(e).into_response()
        }
    }
}
