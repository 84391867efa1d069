//! The JSON-lines dump (`replay dump`): an info line, then each tick followed by the events recorded
//! in it. Shared by the CLI and the golden-fixture tests.

use super::{read_chunk, ReadAt};
use crate::format::{Session, SessionError};
use crate::model::{world_to_geodetic, WorldKind};
use std::io::Write;

#[derive(Debug)]
pub enum DumpError {
    Read(SessionError),
    Write(std::io::Error),
}

impl std::fmt::Display for DumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DumpError::Read(e) => write!(f, "{e}"),
            DumpError::Write(e) => write!(f, "{e}"),
        }
    }
}

impl From<std::io::Error> for DumpError {
    fn from(e: std::io::Error) -> Self {
        DumpError::Write(e)
    }
}

pub fn write_dump<R: ReadAt, W: Write>(s: &mut Session, src: &mut R, w: &mut W) -> Result<(), DumpError> {
    write_dump_with(s, src, w, DumpOptions::default())
}

/// What a dump adds to its tick lines.
#[derive(Clone, Copy, Debug, Default)]
pub struct DumpOptions {
    /// On a planet, each tick line also holds `geodetic`: `[lat_deg, lon_deg, alt_m]` per entity, in
    /// the order of `entities`, from [`world_to_geodetic`] with the recording's radius (`replay dump
    /// --geodetic`; the browser tests compare the inspector with it). Nothing is added in a flat world.
    pub geodetic: bool,
}

/// [`write_dump`] with options.
pub fn write_dump_with<R: ReadAt, W: Write>(
    s: &mut Session,
    src: &mut R,
    w: &mut W,
    o: DumpOptions,
) -> Result<(), DumpError> {
    if s.foldback().is_some() {
        // A .foldback dumps its frames (see io::foldback::write_dump).
        return super::foldback::write_dump(src, &s.limits().foldback, w);
    }
    let mut planet = None;
    if let Some(info) = s.info() {
        writeln!(w, "{}", serde_json::json!({"type": "info", "info": info}))?;
        if let (true, WorldKind::Planet { radius_m }) = (o.geodetic, info.world) {
            planet = Some((radius_m, info.position_quantum_m));
        }
    }
    for i in 0..s.chunk_count() {
        let c = read_chunk(s, src, i).map_err(DumpError::Read)?;
        // Events follow the tick line of the tick they were recorded in (their own tick ≤ that
        // tick); any left at a chunk's end follow its last tick.
        let mut next_event = 0usize;
        for (k, tick) in c.ticks.iter().enumerate() {
            let entities = c.tick_entities(k);
            match planet {
                Some((radius_m, q)) => {
                    let geo: Vec<[f64; 3]> = entities
                        .iter()
                        .map(|e| {
                            let g = world_to_geodetic(e.pos.map(|v| f64::from(v) * q), radius_m);
                            [g.lat_deg, g.lon_deg, g.alt_m]
                        })
                        .collect();
                    writeln!(
                        w,
                        "{}",
                        serde_json::json!({"type": "tick", "tick": tick, "entities": entities, "geodetic": geo})
                    )?;
                }
                None => writeln!(w, "{}", serde_json::json!({"type": "tick", "tick": tick, "entities": entities}))?,
            }
            let last = k + 1 == c.ticks.len();
            while let Some(e) = c.events.get(next_event) {
                if e.tick > *tick && !last {
                    break;
                }
                writeln!(w, "{}", serde_json::json!({"type": "event", "event": e}))?;
                next_event += 1;
            }
        }
    }
    Ok(())
}
