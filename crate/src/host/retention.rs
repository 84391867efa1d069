//! `--keep-days N`: replays uploaded more than N days ago are removed, oldest first, at the host's
//! start and every hour after ([`run`]); several instances on one store may sweep at once (a
//! removal is idempotent). The rule is the list's names alone (their upload time): no record is
//! read to decide.

use super::store::{Store, StoreError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often a running host sweeps.
pub const EVERY: Duration = Duration::from_secs(3600);

/// Removes every listed replay uploaded before `now - keep` (Unix seconds), oldest first; returns
/// the ids removed.
pub async fn sweep(store: &Store, keep: Duration, now: u64) -> Result<Vec<String>, StoreError> {
    let cutoff = now.saturating_sub(keep.as_secs());
    let mut removed = Vec::new();
    for (id, uploaded) in store.listed_by_age().await? {
        if uploaded >= cutoff {
            break;
        }
        store.remove(&id).await?;
        removed.push(id);
    }
    Ok(removed)
}

/// Sweeps now and every [`EVERY`] (logging what it removed and what failed), forever.
pub async fn run(store: Store, keep: Duration) {
    let mut tick = tokio::time::interval(EVERY);
    loop {
        tick.tick().await;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        match sweep(&store, keep, now).await {
            Ok(ids) if !ids.is_empty() => {
                tracing::info!(target: "replay_host", removed = ids.len(), "retention: removed replays older than --keep-days")
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(target: "replay_host", error = %e, "retention: the sweep failed"),
        }
    }
}
