//! [`ReplayRecord`]: what the host knows of one stored replay, written once at upload as
//! `replays/{id}.json` beside the file (`files/{id}`) and never changed after. Everything the
//! gallery, the pages, the cards and the list show is read from it: no file is decoded to list it.

use serde::{Deserialize, Serialize};

/// One stored replay. Strings come from the uploaded file: escape them wherever they are shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayRecord {
    /// The content id: lowercase hex of the first 16 bytes of the file's SHA-256 (32 characters).
    pub id: String,
    /// `"flrep"`, `"spark"` or `"foldback"`.
    pub format: String,
    /// The uploader's `X-Filename`, cut to 200 characters; `None` when absent.
    pub filename: Option<String>,
    /// The file's size in bytes.
    pub size: u64,
    /// Upload time, Unix seconds.
    pub uploaded: u64,
    /// A title for people: the mission and the sides or callsigns (see [`ReplayRecord::title`] rules
    /// in the server's summary), never empty.
    pub title: String,
    /// The mission id / map name from the file, if any.
    pub mission: String,
    /// The participants' callsigns (at most 64, each cut to 64 characters).
    pub callsigns: Vec<String>,
    /// The factions' names (at most 16).
    pub sides: Vec<String>,
    /// Seconds from the first to the last tick.
    pub duration: f64,
    /// Ticks from the first to the last, inclusive.
    pub ticks: u64,
    /// Ticks per second.
    pub tick_rate: u32,
    /// Kill times in seconds from the start, ascending (a card with `spoilers=0` counts only those
    /// before its `t`).
    pub kills: Vec<f64>,
    /// Participants (people or bots with a callsign).
    pub players: u32,
    /// The reader's warnings (a cut recording is accepted with its warning).
    pub warnings: Vec<String>,
    /// Lowercase hex SHA-256 of the delete token (the token itself is shown once, never stored).
    pub delete_token_sha256: String,
}
