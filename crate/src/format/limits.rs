//! The read limits of every format in one value: the caller passes it in (through
//! [`super::Session::with_limits`], `io::open_session_with_limits`, …) and each format's opening and
//! decoder take their part. The defaults are the player's; docs/security.md "The limits" gives every
//! value and why it has it.

use super::flrep;
#[cfg(feature = "foldback")]
use super::foldback;
#[cfg(feature = "spark")]
use super::spark;

/// Every format's read limits (the formats of this build).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// `.flrep`: strings, header and sections, chunks, live entities, trailer, decoded states.
    pub flrep: flrep::Limits,
    /// SparkEngine `.replay`: SparkEngine's own `kMax*` plus the participant list.
    #[cfg(feature = "spark")]
    pub spark: spark::Limits,
    /// `.foldback`: frame payloads, names and values, peers, snapshots, the scan window, metadata
    /// kept (also for live frames and the divergence model's reads).
    #[cfg(feature = "foldback")]
    pub foldback: foldback::Limits,
}
