//! Live `.flrep` spectating, the viewer's side, sans-IO (docs/live.md): the WebSocket messages
//! ([`message`]: hello, prefix, chunk, goodbye, each with its sequence numbers, and the order a
//! connection must keep) and, with the `json` feature, the HTTP segments' manifest ([`manifest`]).
//! No I/O here: a driver (the native server's tests, later the page's worker) hands in each
//! message's bytes. Every length is bounded before use; a hostile message is an error naming what
//! is wrong, never a panic.

#[cfg(feature = "json")]
pub mod manifest;
pub mod message;

pub use message::{Goodbye, Hello, LiveError, LiveStream, Message, StreamEvent, PROTOCOL_VERSION};

/// A recording's stream id: the CRC-32 of its prefix (header + sections). The hello, the prefix
/// message and the manifest carry it, so that a viewer resuming after a reconnect knows it is
/// the same recording.
pub fn stream_id(prefix: &[u8]) -> u32 {
    crc32fast::hash(prefix)
}
