//! `replay host`: the replay host (feature `host`, native only). A person runs it on their machine,
//! a community site runs it for its members: upload a replay, get a link that unfurls (Open Graph,
//! Twitter cards, oEmbed), a poster of the moment, a gallery. docs/hosting.md.
//!
//! The host keeps no state of its own but what is in its store (`object_store`: a local directory,
//! S3, GCS, Azure), so several instances serve one store behind a load balancer.
//!
//! Parts:
//! - [`record`]: what the host knows of one stored replay (a small JSON object beside the file).
//! - [`pages`]: pure builders of the HTML and JSON the host answers (`/r/{id}`, the gallery,
//!   oEmbed); every string from a file escaped.
//! - [`poster`]: the 1200×630 PNG still of a moment, drawn without a GPU (tiny-skia).
//! - [`server`]: the configuration, [`server::AppState`] and the router (every part's routes are
//!   added in [`server::router`]); [`store`]: the object store and its layout; [`upload`]: `POST
//!   /api/replays` (streamed to the store, checked by the native reader); [`files`]: Range reads,
//!   the list, deletes; [`summary`]: the record of an upload; [`limit`]: the upload rate per client;
//!   [`inflight`]: the uploads being handled (waited on before a stop, and by tests).
//! - [`ops`]: `/healthz`, `/readyz`, `/metrics` and the request log; [`moderation`]: the admin
//!   token's hide, show and delete; [`retention`]: `--keep-days`; `embedded`: the player inside
//!   the binary (feature `embed-player`).

#[cfg(feature = "embed-player")]
pub mod embedded;
pub mod files;
pub mod inflight;
pub mod limit;
pub mod moderation;
pub mod ops;
pub mod pages;
pub mod poster;
pub mod record;
pub mod retention;
pub mod server;
pub mod store;
pub mod summary;
pub mod upload;
