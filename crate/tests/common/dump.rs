//! The JSON-lines dump of a whole recording held in memory, as `replay dump` prints it.
#![allow(clippy::unwrap_used)]

use replay_player::io::{dump::write_dump, open_session};

pub fn dump(bytes: &[u8]) -> String {
    let mut src = bytes.to_vec();
    let mut s = open_session(&mut src).unwrap();
    let mut out = Vec::new();
    write_dump(&mut s, &mut src, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}
