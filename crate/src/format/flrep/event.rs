//! Match-event records: `[kind u8][length u16][payload]`, payload starting with the event's own tick.
//! Unknown kinds are skipped by their length; known kinds may carry extra trailing bytes (fields a
//! newer minor version appended), which are ignored.

use crate::bytes::{sanitize_text, Cursor, PutLe, StrError};
use crate::model::{Event, EventBody};

pub const KILL: u8 = 1;
pub const SPAWN: u8 = 2;
pub const DESPAWN: u8 = 3;
pub const CHAT: u8 = 4;
pub const ADMIN: u8 = 5;
pub const ALERT: u8 = 6;
pub const CUSTOM: u8 = 7;

/// Reads one event record; `Ok(None)` for an unknown kind (skipped).
pub fn read(c: &mut Cursor, max_string: usize) -> Result<Option<Event>, String> {
    let kind = c.u8().map_err(|_| "file ends inside an event header".to_string())?;
    let len = c.u16().map_err(|_| "file ends inside an event header".to_string())?;
    let at = c.offset();
    let payload = c
        .take(usize::from(len))
        .map_err(|s| format!("event at offset {at} declares {len} bytes but {} remain", s.have))?;
    let mut p = Cursor::at(payload, at);
    let short = |what: &str| format!("event kind {kind} at offset {at}: payload too short for {what}");
    let text = |p: &mut Cursor, what: &str| -> Result<String, String> {
        p.str16(max_string).map(sanitize_text).map_err(|e| match e {
            StrError::Short(_) => short(what),
            StrError::TooLong { len, max, .. } => format!("event {what} is {len} bytes, over the {max}-byte limit"),
            StrError::NotUtf8 { .. } => format!("event {what} is not valid UTF-8"),
        })
    };
    if !(KILL..=CUSTOM).contains(&kind) {
        return Ok(None);
    }
    let tick = p.u64().map_err(|_| short("its tick"))?;
    let body = match kind {
        KILL => EventBody::Kill {
            killer: p.u32().map_err(|_| short("killer"))?,
            victim: p.u32().map_err(|_| short("victim"))?,
            weapon_type: p.u16().map_err(|_| short("weapon type"))?,
        },
        SPAWN => EventBody::Spawn {
            entity: p.u32().map_err(|_| short("entity"))?,
            participant: p.u32().map_err(|_| short("participant"))?,
        },
        DESPAWN => EventBody::Despawn {
            entity: p.u32().map_err(|_| short("entity"))?,
            reason: p.u8().map_err(|_| short("reason"))?,
        },
        CHAT => EventBody::Chat {
            participant: p.u32().map_err(|_| short("participant"))?,
            channel: p.u8().map_err(|_| short("channel"))?,
            text: text(&mut p, "chat text")?,
        },
        ADMIN => EventBody::Admin {
            participant: p.u32().map_err(|_| short("participant"))?,
            action: text(&mut p, "admin action")?,
            detail: text(&mut p, "admin detail")?,
        },
        ALERT => EventBody::AlertLevel { level: p.u8().map_err(|_| short("level"))? },
        _ => EventBody::Custom {
            source: p.u32().map_err(|_| short("source"))?,
            target: p.u32().map_err(|_| short("target"))?,
            pos: [
                p.i32().map_err(|_| short("position"))?,
                p.i32().map_err(|_| short("position"))?,
                p.i32().map_err(|_| short("position"))?,
            ],
            kind: text(&mut p, "event type")?,
            data: text(&mut p, "event data")?,
        },
    };
    Ok(Some(Event { tick, body }))
}

/// Writes one event record. Strings longer than 4,096 bytes are truncated at a char boundary.
pub fn write(out: &mut Vec<u8>, e: &Event) {
    let mut p = Vec::with_capacity(32);
    p.put_u64(e.tick);
    let t = |s: &str| crate::bytes::truncate_utf8(s, 4096).to_owned();
    let kind = match &e.body {
        EventBody::Kill { killer, victim, weapon_type } => {
            p.put_u32(*killer);
            p.put_u32(*victim);
            p.put_u16(*weapon_type);
            KILL
        }
        EventBody::Spawn { entity, participant } => {
            p.put_u32(*entity);
            p.put_u32(*participant);
            SPAWN
        }
        EventBody::Despawn { entity, reason } => {
            p.put_u32(*entity);
            p.put_u8(*reason);
            DESPAWN
        }
        EventBody::Chat { participant, channel, text } => {
            p.put_u32(*participant);
            p.put_u8(*channel);
            p.put_str16(&t(text));
            CHAT
        }
        EventBody::Admin { participant, action, detail } => {
            p.put_u32(*participant);
            p.put_str16(&t(action));
            p.put_str16(&t(detail));
            ADMIN
        }
        EventBody::AlertLevel { level } => {
            p.put_u8(*level);
            ALERT
        }
        EventBody::Custom { kind, source, target, pos, data } => {
            p.put_u32(*source);
            p.put_u32(*target);
            pos.iter().for_each(|v| p.put_i32(*v));
            p.put_str16(&t(kind));
            p.put_str16(&t(data));
            CUSTOM
        }
    };
    out.put_u8(kind);
    out.put_u16(p.len() as u16);
    out.extend_from_slice(&p);
}
