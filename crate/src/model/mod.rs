//! The one in-memory model every replay format maps into.
//!
//! Invariant: nothing here knows about files, zstd, wasm or the GPU. Entity state is kept in the
//! quantized integer domain the file holds (positions in `position_quantum_m` steps, orientation as
//! i16 quaternion components scaled by 32767, velocity in `velocity_quantum_mps` steps), so hashes and
//! comparisons are exact and the renderer converts to floats only at the last moment, camera-relative.

mod chunk;
pub mod compare;
mod frame;
mod hash;
mod world;

pub use chunk::{retain_states, DecodedChunk, Piece, TickRange};
pub use frame::{
    pack_entities, unpack_entity, ENTITY_STRIDE, F_ANIM, F_FACTION, F_FLAGS, F_HEALTH, F_ID, F_ORIENT, F_POS, F_TYPE,
    F_VEL,
};
pub use hash::state_hash;
pub use world::{geodetic_to_world, world_to_geodetic, Geodetic, WorldKind};

/// Which reader produced a recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize), serde(rename_all = "snake_case"))]
pub enum FormatKind {
    Flrep,
    SparkReplay,
    Foldback,
}

impl FormatKind {
    pub fn name(self) -> &'static str {
        match self {
            FormatKind::Flrep => "flrep",
            FormatKind::SparkReplay => "SparkEngine replay",
            FormatKind::Foldback => "foldback",
        }
    }
}

/// What an entity type is, for the choice of mesh and for ACMI `Type=` tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "json", derive(serde::Serialize), serde(rename_all = "snake_case"))]
#[repr(u8)]
pub enum Category {
    #[default]
    Other = 0,
    Aircraft = 1,
    Projectile = 2,
    Ground = 3,
    Character = 4,
}

impl Category {
    pub fn from_u8(v: u8) -> Category {
        match v {
            1 => Category::Aircraft,
            2 => Category::Projectile,
            3 => Category::Ground,
            4 => Category::Character,
            _ => Category::Other,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Category::Other => "other",
            Category::Aircraft => "aircraft",
            Category::Projectile => "projectile",
            Category::Ground => "ground",
            Category::Character => "character",
        }
    }
}

/// Projectile kind of an entity type (`0` for things that are not projectiles).
pub mod projectile_kind {
    pub const NONE: u8 = 0;
    pub const MISSILE: u8 = 1;
    pub const BULLET: u8 = 2;
    pub const BOMB: u8 = 3;
    pub const ROCKET: u8 = 4;
    pub const GRENADE: u8 = 5;
}

/// Bits of [`EntityState::flags`]. Shared by every format (they are SparkEngine's bits; `.flrep` adopts them).
pub mod flags {
    pub const ALIVE: u32 = 0x01;
    pub const VISIBLE: u32 = 0x02;
    pub const FIRING: u32 = 0x04;
    pub const CROUCHING: u32 = 0x08;
    pub const SPRINTING: u32 = 0x10;
    pub const RELOADING: u32 = 0x20;
    pub const IN_VEHICLE: u32 = 0x40;
    pub const SCOPED: u32 = 0x80;
    pub const NAMES: [(u32, &str); 8] = [
        (ALIVE, "alive"),
        (VISIBLE, "visible"),
        (FIRING, "firing"),
        (CROUCHING, "crouching"),
        (SPRINTING, "sprinting"),
        (RELOADING, "reloading"),
        (IN_VEHICLE, "in vehicle"),
        (SCOPED, "scoped"),
    ];
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct EntityType {
    pub index: u16,
    pub id: String,
    pub display_name: String,
    pub category: Category,
    pub projectile_kind: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Faction {
    pub index: u8,
    pub id: String,
    pub display_name: String,
}

/// Entity id meaning "no entity".
pub const NO_ENTITY: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Participant {
    pub id: u32,
    pub callsign: String,
    /// The entity this participant controls at the start of the recording, or [`NO_ENTITY`].
    pub entity: u32,
    pub faction: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct MissionObject {
    pub object_id: u32,
    pub entity: u32,
}

/// One entity at one tick, in the quantized integer domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct EntityState {
    pub id: u32,
    pub type_index: u16,
    pub faction: u8,
    /// Position in `position_quantum_m` steps (world frame: see [`WorldKind`]).
    pub pos: [i32; 3],
    /// Orientation quaternion (x, y, z, w), each component × 32767.
    pub orient: [i16; 4],
    /// Velocity in `velocity_quantum_mps` steps.
    pub vel: [i32; 3],
    /// Health in hundredths of a point (100.0 health = 10000).
    pub health: u16,
    /// [`flags`] bits.
    pub flags: u32,
    /// Animation state index (SparkEngine); 0 when the format has none.
    pub anim: i32,
}

/// A discrete match event. Every event carries its own tick.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Event {
    pub tick: u64,
    #[cfg_attr(feature = "json", serde(flatten))]
    pub body: EventBody,
}

/// Weapon type index meaning "unknown weapon".
pub const NO_WEAPON: u16 = u16::MAX;

#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "json", derive(serde::Serialize), serde(tag = "kind", rename_all = "snake_case"))]
pub enum EventBody {
    Kill {
        killer: u32,
        victim: u32,
        weapon_type: u16,
    },
    Spawn {
        entity: u32,
        participant: u32,
    },
    Despawn {
        entity: u32,
        reason: u8,
    },
    Chat {
        participant: u32,
        channel: u8,
        text: String,
    },
    Admin {
        participant: u32,
        action: String,
        detail: String,
    },
    AlertLevel {
        level: u8,
    },
    /// A named event with a location (SparkEngine's "explosion", "pickup", "flag_capture", ...).
    Custom {
        #[cfg_attr(feature = "json", serde(rename = "type"))]
        kind: String,
        source: u32,
        target: u32,
        pos: [i32; 3],
        data: String,
    },
}

impl EventBody {
    pub fn kind_name(&self) -> &str {
        match self {
            EventBody::Kill { .. } => "kill",
            EventBody::Spawn { .. } => "spawn",
            EventBody::Despawn { .. } => "despawn",
            EventBody::Chat { .. } => "chat",
            EventBody::Admin { .. } => "admin",
            EventBody::AlertLevel { .. } => "alert_level",
            EventBody::Custom { kind, .. } => kind,
        }
    }
}

/// Everything known about a recording before any tick is decoded.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct RecordingInfo {
    pub format: FormatKind,
    pub format_major: u16,
    pub format_minor: u16,
    pub engine_version: String,
    pub tick_rate_hz: u32,
    pub world: WorldKind,
    pub position_quantum_m: f64,
    pub velocity_quantum_mps: f64,
    pub start_unix_seconds: u64,
    pub mission_id: String,
    pub session_flags: u32,
    pub keyframe_interval_ticks: u32,
    pub first_tick: u64,
    pub last_tick: u64,
    pub entity_types: Vec<EntityType>,
    pub factions: Vec<Faction>,
    pub participants: Vec<Participant>,
    pub mission_objects: Vec<MissionObject>,
    /// Free-form key/value metadata (SparkEngine map/mode, foldback metadata, ...).
    pub metadata: Vec<(String, String)>,
    /// Things a reader recovered from ("no index trailer: rebuilt by scanning").
    pub warnings: Vec<String>,
    /// Corruption a reader stepped over while opening (a scan stopped at a chunk header over a limit,
    /// a refused or over-limit frame): the recording opens and plays what precedes it, but this is
    /// not truncation, and `replay validate` fails on it. Each is also among the warnings where the
    /// format reports it there. Empty for a sound (or merely cut) file, and then left out of JSON.
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "Vec::is_empty"))]
    pub problems: Vec<String>,
}

impl RecordingInfo {
    /// Seconds covered by the recording (first to last tick).
    pub fn duration_s(&self) -> f64 {
        if self.tick_rate_hz == 0 {
            return 0.0;
        }
        self.last_tick.saturating_sub(self.first_tick) as f64 / f64::from(self.tick_rate_hz)
    }
    pub fn entity_type(&self, index: u16) -> Option<&EntityType> {
        self.entity_types.iter().find(|t| t.index == index)
    }
    pub fn faction(&self, index: u8) -> Option<&Faction> {
        self.factions.iter().find(|f| f.index == index)
    }
}
