//! The fuzz harnesses of the live `.flrep` parsers (`format::live`): shared by the libFuzzer
//! targets (crate/fuzz/src/lib.rs includes this file), crate/tests/live_flrep.rs and
//! crate/tests/fuzz_regressions.rs.
//!
//! `live_messages`: the input is a connection's messages, each `u16` length + bytes (length
//! 0xFFFF: the viewer reconnects). Every message goes through `Message::parse` and a `LiveStream`;
//! what they accept must keep the stream's promises. `live_manifest`: the input is a manifest.
use replay_player::format::flrep::Limits;
use replay_player::format::live::manifest::{Manifest, ManifestLimits};
use replay_player::format::live::message::{encode_goodbye, encode_hello};
use replay_player::format::live::{LiveStream, Message, StreamEvent};

/// Splits `data` into length-prefixed messages (see the module comment).
pub fn split(data: &[u8]) -> Vec<Option<&[u8]>> {
    let mut out = Vec::new();
    let mut rest = data;
    while rest.len() >= 2 {
        let n = usize::from(u16::from_le_bytes([rest[0], rest[1]]));
        rest = &rest[2..];
        if n == 0xFFFF {
            out.push(None);
            continue;
        }
        let take = n.min(rest.len());
        out.push(Some(&rest[..take]));
        rest = &rest[take..];
    }
    out
}

/// Joins messages into the harness's input (the inverse of [`split`]).
pub fn join(msgs: &[Option<&[u8]>]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in msgs {
        match m {
            Some(m) => {
                out.extend_from_slice(&(m.len() as u16).to_le_bytes());
                out.extend_from_slice(m);
            }
            None => out.extend_from_slice(&0xFFFFu16.to_le_bytes()),
        }
    }
    out
}

pub fn live_messages(data: &[u8]) {
    let limits = Limits::default();
    let mut stream = LiveStream::new(limits.clone());
    let mut last_seq: Option<u64> = None;
    for m in split(data) {
        let Some(m) = m else {
            stream.reconnect();
            continue;
        };
        match Message::parse(m, &limits) {
            Ok(Message::Hello(h)) => {
                assert_eq!(Message::parse(&encode_hello(&h), &limits), Ok(Message::Hello(h.clone())));
            }
            Ok(Message::Goodbye(g)) => {
                assert!(g.reason.len() <= 256 * 3, "reason of {} bytes", g.reason.len());
                let bytes = encode_goodbye(&g);
                let again = Message::parse(&bytes, &limits);
                assert!(matches!(again, Ok(Message::Goodbye(_))), "{again:?}");
            }
            Ok(Message::Chunk { offset, header, bytes, .. }) => {
                assert_eq!(header.end() - offset, bytes.len() as u64);
            }
            Ok(Message::Prefix { .. }) | Err(_) => {}
        }
        let before = stream.next_seq();
        match stream.push(m) {
            Ok(StreamEvent::Chunk { seq, skipped, .. }) => {
                assert!(last_seq.is_none_or(|l| seq > l), "chunk {seq} after {last_seq:?}");
                assert_eq!(seq, before + skipped);
                assert_eq!(stream.next_seq(), seq + 1);
                last_seq = Some(seq);
            }
            Ok(StreamEvent::Goodbye { goodbye, missing }) => {
                assert_eq!(goodbye.end_seq, before + missing);
                assert!(stream.ended());
            }
            Ok(_) => assert_eq!(stream.next_seq(), before),
            Err(e) => {
                assert!(!e.to_string().is_empty());
                assert_eq!(stream.next_seq(), before, "a refused message moved the stream");
            }
        }
    }
}

pub fn live_manifest(data: &[u8]) {
    let limits = ManifestLimits::default();
    match Manifest::parse(data, &limits) {
        Ok(m) => {
            // What was accepted is written back to JSON that reads the same.
            let again = Manifest::parse(m.to_json().as_bytes(), &limits);
            assert_eq!(again.as_ref(), Ok(&m));
            for s in &m.segments {
                assert!(!s.uri.contains('/') && !s.uri.starts_with('.'));
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}
