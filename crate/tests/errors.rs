//! A caller's misuse and a failed read are different errors: misuse (bytes other than those asked
//! for, a call out of order, a chunk that does not exist) is a usage error; a native driver's failed
//! read is an I/O error that keeps its `std::io::ErrorKind`. The messages keep their words.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::{flrep, foldback, spark, OpenStep, Session, SessionError};
use replay_player::io::{open_flrep, open_session, read_chunk, FlrepFile, ReadAt};
use std::io::ErrorKind;
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A source whose reads fail with `kind` from the `fail_from`-th read on (0: every read).
struct Failing {
    bytes: Vec<u8>,
    kind: ErrorKind,
    fail_from: usize,
    reads: usize,
}

impl ReadAt for Failing {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read_at(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        self.reads += 1;
        if self.reads > self.fail_from {
            return Err(std::io::Error::new(self.kind, "the disk said no"));
        }
        self.bytes.read_at(offset, len)
    }
}

fn failing(name: &str, kind: ErrorKind, fail_from: usize) -> Failing {
    Failing { bytes: fixture(name), kind, fail_from, reads: 0 }
}

#[test]
fn a_failed_read_is_an_io_error_with_its_kind() {
    for name in ["golden/dogfight-flat.flrep", "spark/handmade.replay", "foldback/agree.foldback"] {
        let Err(e) = open_session(&mut failing(name, ErrorKind::PermissionDenied, 0)) else { panic!("{name} opened") };
        match &e {
            SessionError::Io(io) => assert_eq!(io.kind, ErrorKind::PermissionDenied, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(e.to_string(), "read error at offset 0: the disk said no", "{name}");
    }

    // A chunk read that fails after the open succeeded.
    let mut src = failing("golden/dogfight-flat.flrep", ErrorKind::UnexpectedEof, usize::MAX);
    let mut s = open_session(&mut src).unwrap();
    src.fail_from = 0;
    let (offset, _) = s.chunk_range(1).unwrap();
    let e = read_chunk(&mut s, &mut src, 1).unwrap_err();
    assert!(matches!(&e, SessionError::Io(io) if io.kind == ErrorKind::UnexpectedEof), "{e:?}");
    assert_eq!(e.to_string(), format!("read error at offset {offset}: the disk said no"));

    // The per-format native drivers keep the kind too.
    let e = open_flrep(&mut failing("golden/dogfight-flat.flrep", ErrorKind::Interrupted, 1), &Default::default())
        .unwrap_err();
    assert!(matches!(&e, flrep::Error::Io(io) if io.kind == ErrorKind::Interrupted), "{e:?}");
    assert_eq!(e.to_string(), "read error: the disk said no");
    let e = replay_player::io::foldback::open_foldback(
        &mut failing("foldback/agree.foldback", ErrorKind::TimedOut, 0),
        &Default::default(),
    )
    .unwrap_err();
    assert!(matches!(&e, foldback::Error::Io(io) if io.kind == ErrorKind::TimedOut), "{e:?}");
    assert_eq!(e.to_string(), "read error: at offset 0: the disk said no");
}

#[test]
fn misuse_is_a_usage_error() {
    // Fewer bytes than the opener asked for (the first read: the whole of these small files).
    for name in ["golden/dogfight-flat.flrep", "spark/deathmatch-3p.replay"] {
        let b = fixture(name);
        let len = b.len() as u64;
        let mut s = Session::new(len);
        assert_eq!(s.next(None).unwrap(), OpenStep::Need { offset: 0, len: len.min(64 * 1024) });
        let e = s.next(Some(&b[..12])).unwrap_err();
        let is_usage = matches!(&e, SessionError::Flrep(flrep::Error::Usage(_)))
            || matches!(&e, SessionError::Spark(spark::Error::Usage(_)));
        assert!(is_usage, "{name}: {e:?}");
        assert_eq!(e.to_string(), format!("read error: asked for {} bytes at offset 0, got 12", len.min(64 * 1024)));
    }

    // A chunk the file does not have.
    let mut f = FlrepFile::open(fixture("golden/dogfight-flat.flrep"), Default::default()).unwrap();
    let n = f.opened.chunks.len();
    let e = f.chunk(n).unwrap_err();
    assert!(matches!(e, flrep::Error::Usage(_)), "{e:?}");
    assert_eq!(e.to_string(), format!("read error: no chunk {n} (the file has {n})"));
    let mut src = fixture("golden/dogfight-flat.flrep");
    let mut s = open_session(&mut src).unwrap();
    assert!(matches!(read_chunk(&mut s, &mut src, n), Err(SessionError::Usage(m)) if m == format!("no chunk {n}")));

    // A snapshot read from a range that is not a snapshot frame.
    let b = fixture("foldback/agree.foldback");
    let mut dec = replay_player::format::zstd::Decompressor::new();
    let h = foldback::HEADER_LEN;
    // The first frame (type u8, payload length u32, payload): a TickHash, not a Snapshot.
    let plen = u32::from_le_bytes(b[h + 1..h + 5].try_into().unwrap()) as usize;
    let frame = &b[h..h + 5 + plen];
    let e = foldback::index::read_snapshot(&mut dec, frame, h as u64, &Default::default()).unwrap_err();
    assert!(matches!(e, foldback::Error::Usage(_)), "{e:?}");
    assert!(e.to_string().starts_with(&format!("read error: no Snapshot frame at offset {h} (found a ")), "{e}");
}
