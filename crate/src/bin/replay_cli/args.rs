//! `replay`'s command line, parsed by clap (derive): one struct per command, each handed to that
//! command's function. A usage error (unknown option, bad value, missing argument) is clap's
//! message naming the option, exit 2; `--help` on `replay` and on every command lists the options.
//!
//! `generate` writes one of three formats, chosen by `--format`, and each generator has its own
//! options: `parse` looks at `--format` first and gives `generate` that generator's options only,
//! so `replay generate --format spark --help` lists the SparkEngine options and `--players` without
//! `--format spark` is refused like any unknown option.

use clap::error::ErrorKind;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use replay_player::sim::deathmatch::DeathmatchConfig;
use replay_player::sim::foldback::FoldbackConfig;
use replay_player::sim::DogfightConfig;
use std::ffi::OsString;
use std::path::PathBuf;

/// Inspect, validate, dump, generate, hash and diff replay files (.flrep, SparkEngine .replay,
/// .foldback).
#[derive(Parser)]
#[command(name = "replay", arg_required_else_help = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Print a recording's header, ticks, chunks, sections, metadata and warnings.
    Info(FileArgs),
    /// Decode every chunk; print "ok: …" or exit 1 naming what is wrong.
    Validate(FileArgs),
    /// Print the whole recording as JSON lines.
    Dump(DumpArgs),
    /// Print "TICK HASH" for every tick (the determinism hash of its entity states).
    Hash(FileArgs),
    /// Compare two recordings tick by tick: exit 0 identical, 1 they differ.
    Diff(DiffArgs),
    // Its about (in `replay --help` too) is `FlrepGenerate`'s: `command` adds the generator.
    Generate(GenerateArgs),
    /// Convert between .flrep and SparkEngine .replay.
    Convert(ConvertArgs),
    /// Find where the peers of .foldback recordings diverge: exit 0 they agree, 1 they diverge,
    /// 2 on errors.
    Diverge(DivergeArgs),
    /// Run a simulated lockstep game that serves its .foldback frames live over WebSocket.
    LiveDemo(LiveDemoArgs),
    /// Export a recording (or a range of it) as Tacview ACMI 2.2: OUT.txt.acmi (text) or
    /// OUT.zip.acmi (a zip holding one .txt.acmi).
    Export(ExportArgs),
    /// Write a tick range of a recording as a file of its own format (.flrep or SparkEngine
    /// .replay): a keyframe at its first tick, the sections and the range's events kept.
    Clip(ClipArgs),
    /// Publish a .flrep while it is written: over WebSocket and as HTTP segments (docs/live.md).
    LiveServe(LiveServeArgs),
    /// Run a replay host: upload a replay, get a link that unfurls (docs/hosting.md).
    #[cfg(feature = "host")]
    Host(HostArgs),
}

/// `replay host`: the player, the replays and the upload API over HTTP. Every option can also be
/// given by its environment variable (REPLAY_HOST_DATA, REPLAY_HOST_LISTEN, …); the command line
/// wins.
#[cfg(feature = "host")]
#[derive(Args)]
pub struct HostArgs {
    /// The host's local directory: the default store and the upload spool.
    #[arg(long, value_name = "DIR", env = "REPLAY_HOST_DATA")]
    pub data: PathBuf,
    /// Listen on this address (port 0: any free port, printed).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080", env = "REPLAY_HOST_LISTEN")]
    pub listen: String,
    /// The built player to serve [default: the one built into this binary (npm run release), else
    /// the repository's dist/].
    #[arg(long, value_name = "DIR", env = "REPLAY_HOST_PLAYER")]
    pub player: Option<PathBuf>,
    /// Keep replays in this object store instead of DIR/store: file:///dir, s3://bucket/prefix
    /// (AWS_* environment variables, AWS_ENDPOINT_URL for an S3-compatible server), gs://, az://.
    #[arg(long, value_name = "URL", env = "REPLAY_HOST_STORE")]
    pub store: Option<String>,
    /// The absolute URL people reach this host at (links and cards) [default: http://<listen>].
    #[arg(long, value_name = "URL", env = "REPLAY_HOST_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Take uploads only with `Authorization: Bearer <T>`.
    #[arg(long, value_name = "T", env = "REPLAY_HOST_UPLOAD_TOKEN", hide_env_values = true)]
    pub upload_token: Option<String>,
    /// With `Authorization: Bearer <T>`: hide, show and delete any replay (docs/hosting.md
    /// "Moderation").
    #[arg(long, value_name = "T", env = "REPLAY_HOST_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Remove replays uploaded more than N days ago, oldest first (at the start and hourly).
    #[arg(long, value_name = "N", env = "REPLAY_HOST_KEEP_DAYS", value_parser = clap::value_parser!(u64).range(1..=36_500))]
    pub keep_days: Option<u64>,
    /// The largest upload taken, in MiB.
    #[arg(long, value_name = "N", default_value_t = 512, env = "REPLAY_HOST_MAX_UPLOAD_MB", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub max_upload_mb: u64,
    /// Seconds an upload's body may send nothing before it is dropped.
    #[arg(long, value_name = "S", default_value_t = 30, env = "REPLAY_HOST_BODY_TIMEOUT", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout: u64,
    /// Uploads a client (by IP address) may make per minute (and at once: a third of it, at least 1).
    #[arg(long, value_name = "N", default_value_t = 30, env = "REPLAY_HOST_UPLOADS_PER_MINUTE", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub uploads_per_minute: u32,
    /// The request log on standard error: one line per request, as text or as JSON.
    #[arg(long, value_name = "FORMAT", default_value = "text", env = "REPLAY_HOST_LOG_FORMAT", value_parser = ["text", "json", "off"])]
    pub log_format: String,
}

/// A time of `--from` / `--to`: seconds from the start (95.2), m:ss.s (1:35.2), h:mm:ss or tick:N.
fn time_spec(s: &str) -> Result<replay_player::export::TimeSpec, String> {
    replay_player::export::TimeSpec::parse(s)
}

#[derive(Args)]
pub struct ExportArgs {
    /// The recording.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Where to write the ACMI file (ending in .txt.acmi or .zip.acmi).
    #[arg(long, value_name = "OUT")]
    pub acmi: PathBuf,
    /// The first time exported: seconds from the start (95.2), m:ss.s (1:35.2), h:mm:ss or tick:N.
    #[arg(long, value_name = "T", value_parser = time_spec)]
    pub from: Option<replay_player::export::TimeSpec>,
    /// The last time exported (inclusive), as --from.
    #[arg(long, value_name = "T", value_parser = time_spec)]
    pub to: Option<replay_player::export::TimeSpec>,
}

#[derive(Args)]
pub struct ClipArgs {
    /// The recording (.flrep or SparkEngine .replay).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The clip's first time: seconds from the start (95.2), m:ss.s (1:35.2), h:mm:ss or tick:N.
    #[arg(long, value_name = "T", value_parser = time_spec)]
    pub from: replay_player::export::TimeSpec,
    /// The clip's last time (inclusive), as --from.
    #[arg(long, value_name = "T", value_parser = time_spec)]
    pub to: replay_player::export::TimeSpec,
    /// Where to write the clip (same format as FILE).
    #[arg(long, value_name = "OUT")]
    pub out: PathBuf,
}

#[derive(Args)]
pub struct FileArgs {
    /// The recording.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

#[derive(Args)]
pub struct DumpArgs {
    /// The recording.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// On a planet, add each entity's latitude, longitude and altitude (`geodetic`) to the tick lines.
    #[arg(long)]
    pub geodetic: bool,
}

#[derive(Args)]
pub struct DiffArgs {
    /// The first recording.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The second recording.
    #[arg(value_name = "B")]
    pub b: PathBuf,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// The recording to convert.
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Where to write the converted recording.
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// The output format (default: a .flrep becomes a SparkEngine .replay, anything else a .flrep).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub to: Option<ConvertTo>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConvertTo {
    Flrep,
    Spark,
}

#[derive(Args)]
pub struct DivergeArgs {
    /// One or more .foldback recordings (one per peer, or one holding every peer).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
}

/// The generator `generate --format` picks.
#[derive(Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum GenFormat {
    #[default]
    Flrep,
    Spark,
    Foldback,
}

/// `generate`'s arguments: one generator's options (see the module comment for how `--format`
/// chooses them).
pub enum GenerateArgs {
    Flrep(FlrepGenerate),
    Spark(SparkGenerate),
    Foldback(FoldbackGenerate),
}

const FORMAT: &str = "format";

impl Args for GenerateArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(
            clap::Arg::new(FORMAT)
                .long(FORMAT)
                .value_name("FORMAT")
                .value_parser(clap::value_parser!(GenFormat))
                .default_value("flrep")
                .help(
                    "flrep: a .flrep dogfight, spark: a SparkEngine .replay deathmatch, foldback: a .foldback \
                     lockstep session; each has its own options (replay generate --format F --help)",
                ),
        )
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for GenerateArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(match m.get_one::<GenFormat>(FORMAT).copied().unwrap_or_default() {
            GenFormat::Flrep => GenerateArgs::Flrep(FlrepGenerate::from_arg_matches(m)?),
            GenFormat::Spark => GenerateArgs::Spark(SparkGenerate::from_arg_matches(m)?),
            GenFormat::Foldback => GenerateArgs::Foldback(FoldbackGenerate::from_arg_matches(m)?),
        })
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

/// Write a generated recording: a .flrep dogfight (the default), a SparkEngine .replay deathmatch
/// or a .foldback lockstep session.
//
// (This doc is `generate`'s about in `replay --help` too.) The numbers are read as decimals and
// truncated where the simulation counts, as the hand-written parser did.
#[derive(Args)]
pub struct FlrepGenerate {
    /// Where to write the recording (rotated files go next to it).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub sim: DogfightArgs,
    /// Start a new file when one reaches this many MiB.
    #[arg(long, value_name = "MB", default_value_t = replay_player::io::RotationOptions::default().max_file_mb as f64)]
    pub max_file_mb: f64,
    /// Keep at most this many files (the oldest are deleted).
    #[arg(long, value_name = "N", default_value_t = f64::from(replay_player::io::RotationOptions::default().max_files))]
    pub max_files: f64,
    /// Nudge one entity's position from this tick on, all else identical (for `replay diff`): the
    /// lowest id in the first tick at or after it, its position x + 1 m.
    #[arg(long, value_name = "TICK")]
    pub perturb_at: Option<u64>,
}

/// The dogfight simulation's options (`generate` and `live-serve --generate`).
#[derive(Args)]
pub struct DogfightArgs {
    /// The simulation's random seed.
    #[arg(long, value_name = "N", default_value_t = DogfightConfig::default().seed)]
    pub seed: u64,
    /// Aircraft in the air.
    #[arg(long, value_name = "N", default_value_t = f64::from(DogfightConfig::default().entities))]
    pub entities: f64,
    /// Length of the recording in seconds.
    #[arg(long, value_name = "S", default_value_t = DogfightConfig::default().seconds)]
    pub seconds: f64,
    /// Planet radius in metres; 0 is a flat world.
    #[arg(long, value_name = "M", default_value_t = DogfightConfig::default().planet_radius_m)]
    pub planet_radius: f64,
    /// Ticks between keyframes (a chunk each).
    #[arg(long, value_name = "T", default_value_t = f64::from(DogfightConfig::default().keyframe_interval_ticks))]
    pub keyframe_interval: f64,
    /// Simulation ticks per second.
    #[arg(long, value_name = "HZ", default_value_t = f64::from(DogfightConfig::default().tick_rate_hz))]
    pub tick_rate: f64,
}

/// `live-serve`: a .flrep published while it is written (docs/live.md).
#[derive(Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["follow", "generate"])))]
#[command(group(clap::ArgGroup::new("sink").required(true).multiple(true).args(["ws", "segments"])))]
pub struct LiveServeArgs {
    /// Publish this .flrep as the recorder writes it (until its index trailer appears).
    #[arg(long, value_name = "FILE")]
    pub follow: Option<PathBuf>,
    /// Publish a generated dogfight, played in real time (or at --rate).
    #[arg(long)]
    pub generate: bool,
    #[command(flatten)]
    pub sim: DogfightArgs,
    /// Ticks per chunk of the generated recording (the latency floor; 15..=3600) [default: --keyframe-interval].
    #[arg(long, value_name = "T", conflicts_with = "follow")]
    pub live_chunk_ticks: Option<u32>,
    /// Play the generated match this many times faster than real time.
    #[arg(long, value_name = "X", default_value_t = 1.0, conflicts_with = "follow")]
    pub rate: f64,
    /// Also write the finished recording here (--generate).
    #[arg(long, value_name = "FILE", conflicts_with = "follow")]
    pub out: Option<PathBuf>,
    /// Serve WebSocket viewers on this address (e.g. 127.0.0.1:8765; port 0: any free port, printed).
    #[arg(long, value_name = "ADDR")]
    pub ws: Option<String>,
    /// Write HTTP segments and manifest.json into this (empty) directory.
    #[arg(long, value_name = "DIR")]
    pub segments: Option<PathBuf>,
    /// Segments listed in the manifest: the latest N (0: all).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub manifest_window: usize,
    /// Browser origins allowed to connect over WebSocket (repeat; default: any).
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Chunks a WebSocket viewer may fall behind before it skips to the newest chunk.
    #[arg(long, value_name = "CHUNKS", default_value_t = 4)]
    pub ws_queue: u64,
    /// --follow: end when the file has not grown for this many seconds.
    #[arg(long, value_name = "S", default_value_t = 30.0)]
    pub idle_timeout: f64,
}

/// Write a generated SparkEngine .replay: the deathmatch simulation.
#[derive(Args)]
pub struct SparkGenerate {
    /// Where to write the recording.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The simulation's random seed.
    #[arg(long, value_name = "N", default_value_t = DeathmatchConfig::default().seed)]
    pub seed: u64,
    /// Players (1..=64).
    #[arg(long, value_name = "N", default_value_t = f64::from(DeathmatchConfig::default().players))]
    pub players: f64,
    /// Length of the match in seconds.
    #[arg(long, value_name = "S", default_value_t = DeathmatchConfig::default().seconds)]
    pub seconds: f64,
    /// Frames per second (1..=1000).
    #[arg(long, value_name = "N", default_value_t = f64::from(DeathmatchConfig::default().fps))]
    pub fps: f64,
    /// Nudge one entity's position from this tick (the model's: milliseconds) on, all else identical (for `replay diff`): the
    /// lowest id in the first tick at or after it, its position x + 1 m.
    #[arg(long, value_name = "TICK")]
    pub perturb_at: Option<u64>,
}

/// Write a generated .foldback recording: the lockstep simulation, its peers' hashes and snapshots.
#[derive(Args)]
pub struct FoldbackGenerate {
    /// Where to write the recording.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub sim: SimArgs,
}

/// `live-demo`: the lockstep simulation served live (docs/format/foldback.md §7).
#[derive(Args)]
pub struct LiveDemoArgs {
    /// The port to listen on, on 127.0.0.1 (0: any free port; the URL is printed).
    #[arg(long, value_name = "N")]
    pub port: u16,
    /// Frames a slow viewer may fall behind before it is disconnected.
    #[arg(long, value_name = "FRAMES")]
    pub queue: Option<usize>,
    /// Also write the frames to this .foldback file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Accepted and ignored (live-demo always serves .foldback).
    #[arg(long, value_name = "FORMAT", hide = true)]
    pub format: Option<String>,
    #[command(flatten)]
    pub sim: SimArgs,
}

/// The lockstep simulation's options (`generate --format foldback` and `live-demo`).
#[derive(Args)]
pub struct SimArgs {
    /// The simulation's random seed.
    #[arg(long, value_name = "N", default_value_t = FoldbackConfig::default().seed)]
    pub seed: u64,
    /// Peers (1..=1024).
    #[arg(long, value_name = "N", default_value_t = FoldbackConfig::default().peers)]
    pub peers: u16,
    /// Ticks to simulate.
    #[arg(long, value_name = "N", default_value_t = FoldbackConfig::default().ticks)]
    pub ticks: u64,
    /// The first tick's number.
    #[arg(long, value_name = "T", default_value_t = FoldbackConfig::default().first_tick)]
    pub first_tick: u64,
    /// Entities per peer.
    #[arg(long, value_name = "N", default_value_t = FoldbackConfig::default().entities)]
    pub entities: u32,
    /// Ticks per second (1..=10000).
    #[arg(long, value_name = "HZ", default_value_t = FoldbackConfig::default().tick_rate_hz)]
    pub tick_rate: u32,
    /// Ticks between snapshots.
    #[arg(long, value_name = "T", default_value_t = FoldbackConfig::default().snapshot_every)]
    pub snapshot_every: u64,
    /// Tick hashes only: no entity or field hashes.
    #[arg(long)]
    pub no_detail: bool,
    /// Make one peer diverge from this tick on.
    #[arg(long, value_name = "T")]
    pub desync_tick: Option<u64>,
    /// The id of the entity that diverges [default: 101].
    #[arg(long, value_name = "E", requires = "desync_tick")]
    pub desync_entity: Option<u64>,
    /// The field that diverges [default: position.x].
    #[arg(long, value_name = "NAME", requires = "desync_tick")]
    pub desync_field: Option<String>,
    /// The peer that diverges [default: the last].
    #[arg(long, value_name = "P", requires = "desync_tick")]
    pub desync_peer: Option<u16>,
}

/// The generator `args` (the whole command line, program name first) asks for: the value of the
/// first `--format` after `generate`, flrep when there is none or it is not a format (clap then
/// refuses it).
fn generate_format(args: &[OsString]) -> GenFormat {
    let mut it = args.iter().skip(1).filter_map(|a| a.to_str());
    if it.next() != Some("generate") {
        return GenFormat::Flrep;
    }
    let mut value = None;
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        if a == "--format" {
            value = it.next();
            break;
        }
        if let Some(v) = a.strip_prefix("--format=") {
            value = Some(v);
            break;
        }
    }
    value.and_then(|v| GenFormat::from_str(v, false).ok()).unwrap_or_default()
}

/// `replay`'s command with `generate` carrying the options of `format`'s generator.
pub fn command(format: GenFormat) -> clap::Command {
    Cli::command().mut_subcommand("generate", |g| match format {
        GenFormat::Flrep => FlrepGenerate::augment_args(g),
        GenFormat::Spark => SparkGenerate::augment_args(g),
        GenFormat::Foldback => FoldbackGenerate::augment_args(g),
    })
}

/// Parses the command line; `Err` is clap's error or help text (`Error::exit_code`: 0 for help).
pub fn parse(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    let format = generate_format(&args);
    let mut cmd = command(format);
    let mut matches = cmd.try_get_matches_from_mut(args)?;
    let parsed = matches.subcommand_matches("generate").and_then(|g| g.get_one::<GenFormat>(FORMAT)).copied();
    if parsed.is_some_and(|p| p != format) {
        return Err(cmd.error(ErrorKind::ArgumentConflict, "--format: cannot tell which generator's options to read"));
    }
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cmd))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn every_generate_format_builds_a_consistent_command() {
        for f in GenFormat::value_variants() {
            command(*f).debug_assert();
        }
    }

    #[test]
    fn generate_format_reads_the_first_format_after_generate() {
        let f = |a: &[&str]| generate_format(&os(a));
        assert!(f(&["replay", "generate", "--out", "x"]) == GenFormat::Flrep);
        assert!(f(&["replay", "generate", "--out", "x", "--format", "spark"]) == GenFormat::Spark);
        assert!(f(&["replay", "generate", "--format=foldback"]) == GenFormat::Foldback);
        assert!(f(&["replay", "generate", "--", "--format", "spark"]) == GenFormat::Flrep);
        assert!(f(&["replay", "live-demo", "--format", "spark"]) == GenFormat::Flrep);
        assert!(f(&["replay", "generate", "--format", "zip"]) == GenFormat::Flrep);
    }

    #[test]
    fn options_of_another_generator_are_refused() {
        let e = parse(os(&["replay", "generate", "--out", "x", "--players", "3"])).err().map(|e| e.kind());
        assert_eq!(e, Some(ErrorKind::UnknownArgument));
        let ok = parse(os(&["replay", "generate", "--format", "spark", "--out", "x", "--players", "3"]));
        assert!(matches!(ok, Ok(Cli { command: Cmd::Generate(GenerateArgs::Spark(s)) }) if s.players == 3.0));
    }

    #[test]
    fn desync_details_need_a_desync_tick() {
        let e = parse(os(&["replay", "live-demo", "--port", "0", "--desync-peer", "1"])).err().map(|e| e.kind());
        assert_eq!(e, Some(ErrorKind::MissingRequiredArgument));
    }
}
