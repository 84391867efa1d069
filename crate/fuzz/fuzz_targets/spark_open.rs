#![no_main]
// SparkEngine `.replay`: the sans-IO opener over the input (header, frame-header scan, events), then
// every chunk decoded (what playback does). Errors are fine; a panic, an out-of-file or oversized
// read, a loop, or a decoded chunk that breaks the model's invariants is a bug.
// Self-contained so it needs no change to the shared harness in src/lib.rs; moving it there (a line in
// TARGETS) lets crate/fuzz/seeds/spark_open/ exist: seed it with tests/fixtures/spark/*.replay and
// tests/fixtures/hostile/spark/*.replay. Until then run:
//   cargo +nightly fuzz run spark_open corpus/spark_open ../../tests/fixtures/spark ../../tests/fixtures/hostile/spark
use replay_player::format::spark::{open, Limits, Opener, Step};

fn spark_open(data: &[u8]) {
    let file_len = data.len() as u64;
    let mut op = Opener::new(file_len, Limits::default());
    let mut input: Option<&[u8]> = None;
    let max_steps = file_len / 12 + 16;
    let mut steps = 0u64;
    let opened = loop {
        steps += 1;
        assert!(steps <= max_steps, "opener took more than {max_steps} steps on a {file_len}-byte file");
        match op.next(input) {
            Err(e) => {
                let _ = e.to_string();
                return;
            }
            Ok(Step::Need { offset, len }) => {
                let end = offset.checked_add(len).expect("read range overflows");
                assert!(end <= file_len, "opener asked for {offset}+{len}, past the end ({file_len})");
                assert!(len <= open::SCAN_WINDOW, "opener asked for {len} bytes at once");
                input = Some(&data[offset as usize..end as usize]);
            }
            Ok(Step::Ready(o)) => break o,
        }
    };
    assert!(!opened.chunks.is_empty());
    let info = opened.info();
    assert!(info.first_tick <= info.last_tick);
    assert!(opened.events.windows(2).all(|w| w[0].tick <= w[1].tick), "events not sorted");
    let mut prev_tick: Option<u64> = None;
    let mut prev_end = 0u64;
    for (i, c) in opened.chunks.iter().enumerate() {
        assert!(c.offset >= prev_end && c.offset + c.len <= file_len, "chunk {i} {c:?} overlaps or passes the end");
        prev_end = c.offset + c.len;
        let bytes = &data[c.offset as usize..(c.offset + c.len) as usize];
        let Ok(d) = opened.decode_chunk(i, bytes) else { continue };
        assert_eq!(d.offsets.len(), d.ticks.len() + 1);
        assert_eq!(*d.offsets.last().unwrap() as usize, d.entities.len());
        for (k, t) in d.ticks.iter().enumerate() {
            assert!(prev_tick.is_none_or(|p| *t > p), "ticks not increasing");
            prev_tick = Some(*t);
            let e = d.tick_entities(k);
            assert!(e.windows(2).all(|w| w[0].id < w[1].id), "entities not sorted by unique id");
        }
        // The wrong bytes for a chunk are refused, not misread.
        if bytes.len() > 1 {
            assert!(opened.decode_chunk(i, &bytes[1..]).is_err());
        }
    }
    for t in [0, info.first_tick, info.last_tick, u64::MAX] {
        assert!(opened.chunk_for_tick(t) < opened.chunks.len());
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| spark_open(data));
