//! The [`ReplayRecord`] of an upload, from what the check ([`crate::io::validate`]) found: a title
//! for people, the duration, the kills' times, the players. Strings come from the file: they are
//! cut to size here and escaped wherever they are shown.

use super::record::ReplayRecord;
use crate::io::validate::Report;
use crate::model::FormatKind;

const MAX_CALLSIGNS: usize = 64;
const MAX_SIDES: usize = 16;
const MAX_NAME_CHARS: usize = 64;
const MAX_MISSION_CHARS: usize = 120;

fn cut(s: &str, n: usize) -> String {
    s.chars().filter(|c| !c.is_control()).take(n).collect::<String>().trim().to_string()
}

/// The record of a checked upload.
pub fn record(
    id: &str,
    size: u64,
    uploaded: u64,
    filename: Option<String>,
    r: &Report,
    delete_token_sha256: String,
) -> ReplayRecord {
    let i = &r.info;
    let format = match r.format {
        FormatKind::Flrep => "flrep",
        FormatKind::SparkReplay => "spark",
        FormatKind::Foldback => "foldback",
    };
    let callsigns: Vec<String> = i
        .participants
        .iter()
        .map(|p| cut(&p.callsign, MAX_NAME_CHARS))
        .filter(|c| !c.is_empty())
        .take(MAX_CALLSIGNS)
        .collect();
    let sides: Vec<String> = i
        .factions
        .iter()
        .map(|f| cut(if f.display_name.trim().is_empty() { &f.id } else { &f.display_name }, MAX_NAME_CHARS))
        .filter(|s| !s.is_empty())
        .take(MAX_SIDES)
        .collect();
    let mission = cut(&i.mission_id, MAX_MISSION_CHARS);
    let rate = i.tick_rate_hz;
    let (ticks, duration) = if r.format == FormatKind::Foldback {
        (r.ticks, i.duration_s())
    } else {
        (i.last_tick.saturating_sub(i.first_tick).saturating_add(1), i.duration_s())
    };
    let kills = if rate == 0 {
        Vec::new()
    } else {
        r.kill_ticks.iter().map(|t| t.saturating_sub(i.first_tick) as f64 / f64::from(rate)).collect()
    };
    let title = title(&mission, &sides, &callsigns, filename.as_deref(), id);
    ReplayRecord {
        id: id.to_string(),
        format: format.to_string(),
        filename,
        size,
        uploaded,
        title,
        mission,
        players: u32::try_from(i.participants.len()).unwrap_or(u32::MAX),
        callsigns,
        sides,
        duration: if duration.is_finite() { duration } else { 0.0 },
        ticks,
        tick_rate: rate,
        kills,
        warnings: r.warnings.iter().take(16).map(|w| cut(w, 300)).collect(),
        delete_token_sha256,
    }
}

/// "Mission — Blue vs Red", "Mission — Maverick, Iceman, Goose +3", "Mission", the file's name, or
/// "Replay 0123abcd": never empty.
pub fn title(mission: &str, sides: &[String], callsigns: &[String], filename: Option<&str>, id: &str) -> String {
    let who = if sides.len() >= 2 {
        sides.join(" vs ")
    } else if !callsigns.is_empty() {
        let shown: Vec<&str> = callsigns.iter().take(3).map(String::as_str).collect();
        let more = callsigns.len().saturating_sub(3);
        if more > 0 {
            format!("{} +{more}", shown.join(", "))
        } else {
            shown.join(", ")
        }
    } else {
        String::new()
    };
    match (mission.is_empty(), who.is_empty()) {
        (false, false) => format!("{mission} — {who}"),
        (false, true) => mission.to_string(),
        (true, false) => who,
        (true, true) => match filename.map(str::trim).filter(|f| !f.is_empty()) {
            Some(f) => f.to_string(),
            None => format!("Replay {}", id.get(..8).unwrap_or(id)),
        },
    }
}
