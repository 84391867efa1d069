//! `replay diff A B`: the outcome of `model::compare` in words (docs/playback.md "Comparing two
//! recordings"). Exit 0 when identical, 1 otherwise (`replay.rs`).

use replay_player::model::compare::{Divergence, Outcome, Presence};
use std::fmt::Write as _;

/// What `replay diff` prints for `o`.
pub fn text(o: &Outcome) -> String {
    let mut out = String::new();
    match o {
        Outcome::Identical { ticks, .. } => {
            let _ = writeln!(out, "identical: {ticks} ticks");
        }
        Outcome::Diverged(d) => divergence(&mut out, d),
        Outcome::Shorter { ticks, last_tick, ended, next_tick } => {
            let other = ended.other().name();
            let _ = match last_tick {
                Some(t) => writeln!(
                    out,
                    "identical for {ticks} ticks (through tick {t}); {} ends there, {other} goes on with tick {next_tick}",
                    ended.name()
                ),
                None => writeln!(out, "{} has no ticks; {other} starts with tick {next_tick}", ended.name()),
            };
        }
        Outcome::Mismatched { reasons } => {
            let _ = writeln!(out, "cannot compare: not recordings of one session: {}", reasons.join("; "));
        }
    }
    out
}

fn divergence(out: &mut String, d: &Divergence) {
    let _ = writeln!(
        out,
        "first difference at tick {} (A) / {} (B): hash {:016x} vs {:016x}",
        d.tick_a, d.tick_b, d.hash_a, d.hash_b
    );
    let _ = writeln!(
        out,
        "identical for {} ticks before it; {} {}{}",
        d.identical_ticks,
        d.entities_differing,
        if d.entities_differing == 1 { "entity differs" } else { "entities differ" },
        if d.entities.len() < d.entities_differing {
            format!(" (the first {} listed)", d.entities.len())
        } else {
            String::new()
        }
    );
    for e in &d.entities {
        let head = format!("  entity {}: ", e.id);
        match e.presence {
            Presence::OnlyA => {
                let _ = writeln!(out, "{head}only in A");
            }
            Presence::OnlyB => {
                let _ = writeln!(out, "{head}only in B");
            }
            Presence::Both => {
                let side = |pick: fn(&replay_player::model::compare::FieldDiff) -> i64| {
                    e.fields.iter().map(|f| format!("{}={}", f.field, pick(f))).collect::<Vec<_>>().join(" ")
                };
                let _ = writeln!(out, "{head}A {}", side(|f| f.a));
                let _ = writeln!(out, "{:w$}B {}", "", side(|f| f.b), w = head.chars().count());
            }
        }
    }
}
