//! `replay`'s command line (clap): help per command, and usage errors that name the option and
//! exit 2. What each command does is tested beside its format (flrep.rs, spark.rs, foldback.rs,
//! foldback_live.rs).
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::process::Command;

/// (exit code, stdout, stderr) of `replay ARGS`.
fn replay(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_replay")).args(args).output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

const COMMANDS: [&str; 11] =
    ["info", "validate", "dump", "hash", "diff", "generate", "convert", "diverge", "live-demo", "export", "clip"];

#[test]
fn help_lists_every_command() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let (code, out, err) = replay(args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        for c in COMMANDS {
            assert!(out.lines().any(|l| l.trim_start().starts_with(&format!("{c} "))), "{args:?} lacks {c}:\n{out}");
        }
    }
    // No command at all: the help, on stderr, as a usage error.
    let (code, out, err) = replay(&[]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty() && err.contains("live-demo"), "{err}");
}

#[test]
fn each_command_help_lists_its_options() {
    let cases: [(&[&str], &[&str], &[&str]); 14] = [
        (&["info"], &["<FILE>"], &["--out"]),
        (&["validate"], &["<FILE>"], &[]),
        (&["dump"], &["<FILE>", "--geodetic"], &[]),
        (&["hash"], &["<FILE>"], &[]),
        (&["diff"], &["<A>", "<B>"], &[]),
        (
            &["generate"],
            &[
                "--format <FORMAT>",
                "--out <FILE>",
                "--seed <N>",
                "--entities <N>",
                "--seconds <S>",
                "--planet-radius <M>",
                "--keyframe-interval <T>",
                "--tick-rate <HZ>",
                "--max-file-mb <MB>",
                "--max-files <N>",
            ],
            &["--players", "--peers"],
        ),
        (
            &["generate", "--format", "spark"],
            &["--out <FILE>", "--seed <N>", "--players <N>", "--seconds <S>", "--fps <N>"],
            &["--entities", "--peers"],
        ),
        (
            &["generate", "--format=foldback"],
            &[
                "--out <FILE>",
                "--peers <N>",
                "--ticks <N>",
                "--first-tick <T>",
                "--entities <N>",
                "--tick-rate <HZ>",
                "--snapshot-every <T>",
                "--no-detail",
                "--desync-tick <T>",
                "--desync-entity <E>",
                "--desync-field <NAME>",
                "--desync-peer <P>",
            ],
            &["--players", "--port"],
        ),
        (&["convert"], &["<IN>", "<OUT>", "--to <FORMAT>"], &[]),
        (&["diverge"], &["<FILE>..."], &[]),
        (
            &["live-demo"],
            &["--port <N>", "--queue <FRAMES>", "--record <FILE>", "--ticks <N>", "--desync-tick <T>"],
            &["--out"],
        ),
        (&["help", "generate"], &["--out <FILE>", "--entities <N>"], &[]),
        (&["export"], &["<FILE>", "--acmi <OUT>", "--from <T>", "--to <T>", "tick:N"], &["--out"]),
        (&["clip"], &["<FILE>", "--from <T>", "--to <T>", "--out <OUT>"], &["--acmi"]),
    ];
    for (cmd, has, lacks) in cases {
        let args: Vec<&str> = cmd.iter().copied().chain(if cmd[0] == "help" { None } else { Some("--help") }).collect();
        let (code, out, err) = replay(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(out.contains("Usage: replay "), "{args:?}:\n{out}");
        for h in has {
            assert!(out.contains(h), "{args:?} lacks {h}:\n{out}");
        }
        for l in lacks {
            assert!(!out.contains(l), "{args:?} lists {l}:\n{out}");
        }
    }
}

/// A usage error: exit 2, nothing on stdout, stderr naming `name`.
fn usage_error(args: &[&str], name: &str) {
    let (code, out, err) = replay(args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert!(out.is_empty(), "{args:?}: {out}");
    assert!(err.lines().next().is_some_and(|l| l.contains(name)), "{args:?} does not name {name}:\n{err}");
}

#[test]
fn an_unknown_option_or_command_is_named_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.flrep");
    let out = out.to_str().unwrap();
    usage_error(&["generate", "--out", out, "--bogus", "1"], "--bogus");
    usage_error(&["info", "--bogus", "x.flrep"], "--bogus");
    // Another generator's option is unknown to this one, and nothing is written.
    usage_error(&["generate", "--out", out, "--players", "4"], "--players");
    usage_error(&["generate", "--format", "spark", "--out", out, "--entities", "4"], "--entities");
    usage_error(&["live-demo", "--port", "0", "--out", out], "--out");
    assert!(!dir.path().join("x.flrep").exists());
    usage_error(&["bogus"], "bogus");
    usage_error(&["diff", "a", "b", "c"], "'c'");
}

#[test]
fn a_missing_argument_is_named_with_exit_2() {
    for (args, name) in [
        (&["info"][..], "<FILE>"),
        (&["diff", "a"], "<B>"),
        (&["convert", "a"], "<OUT>"),
        (&["diverge"], "<FILE>"),
        (&["generate"], "--out"),
        (&["generate", "--format", "foldback"], "--out"),
        (&["live-demo"], "--port"),
        (&["live-demo", "--port", "0", "--desync-peer", "1"], "--desync-tick"),
        (&["export", "x.flrep"], "--acmi"),
        (&["clip", "x.flrep", "--from", "1", "--to", "2"], "--out"),
    ] {
        let (code, _, err) = replay(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("required") && err.contains(name), "{args:?} does not name {name}:\n{err}");
    }
    usage_error(&["generate", "--out"], "--out");
}

#[test]
fn a_bad_value_is_named_with_exit_2() {
    usage_error(&["generate", "--out", "x.flrep", "--seed", "z"], "--seed");
    usage_error(&["generate", "--format", "zip", "--out", "x.flrep"], "--format");
    usage_error(&["convert", "a", "b", "--to", "zip"], "--to");
    usage_error(&["live-demo", "--port", "70000"], "--port");
    usage_error(&["generate", "--format", "foldback", "--out", "x", "--entities", "2.5"], "--entities");
    usage_error(&["export", "x.flrep", "--acmi", "o.txt.acmi", "--from", "1:75"], "--from");
    usage_error(&["clip", "x.flrep", "--from", "tick:x", "--to", "2", "--out", "o.flrep"], "--from");
}

/// A recording written by `replay generate` into `dir`.
fn generated(dir: &std::path::Path) -> String {
    let f = dir.join("src.flrep");
    let f = f.to_str().unwrap().to_string();
    let (code, _, err) = replay(&[
        "generate",
        "--out",
        &f,
        "--seed",
        "4",
        "--entities",
        "6",
        "--seconds",
        "30",
        "--planet-radius",
        "600000",
    ]);
    assert_eq!(code, Some(0), "{err}");
    f
}

#[test]
fn export_writes_text_or_a_zip_of_one_text_entry() {
    let dir = tempfile::tempdir().unwrap();
    let src = generated(dir.path());
    let txt = dir.path().join("a.txt.acmi");
    let (code, _, err) = replay(&["export", &src, "--acmi", txt.to_str().unwrap(), "--from", "0:05", "--to", "12.5"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("ticks 300..=750"), "{err}");
    let text = std::fs::read_to_string(&txt).unwrap();
    assert!(text.starts_with("FileType=text/acmi/tacview\nFileVersion=2.2\n0,ReferenceTime="), "{}", &text[..80]);
    assert!(text.contains("\n#5\n") && text.contains("\n#12.5\n") && !text.contains("\n#12.51"));
    let zipped = dir.path().join("b.ZIP.acmi");
    let (code, _, err) =
        replay(&["export", &src, "--acmi", zipped.to_str().unwrap(), "--from", "tick:300", "--to", "tick:750"]);
    assert_eq!(code, Some(0), "{err}");
    let mut z = zip::ZipArchive::new(std::fs::File::open(&zipped).unwrap()).unwrap();
    assert_eq!(z.len(), 1);
    let mut entry = z.by_index(0).unwrap();
    assert_eq!(entry.name(), "b.txt.acmi");
    let mut inner = String::new();
    std::io::Read::read_to_string(&mut entry, &mut inner).unwrap();
    assert_eq!(inner, text, "the zip holds the same text");
    // A name that is neither, a range past the end, a .foldback: errors naming the cause.
    let (code, _, err) = replay(&["export", &src, "--acmi", dir.path().join("c.acmi").to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains(".txt.acmi or .zip.acmi"), "{err}");
    let (code, _, err) = replay(&["export", &src, "--acmi", txt.to_str().unwrap(), "--from", "40"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("holds no tick") && err.contains("2400"), "{err}");
}

#[test]
fn a_clip_validates_and_hashes_as_its_source_over_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let src = generated(dir.path());
    let out = dir.path().join("clip.flrep");
    let out = out.to_str().unwrap();
    let (code, _, err) = replay(&["clip", &src, "--from", "7.25", "--to", "tick:1000", "--out", out]);
    assert_eq!(code, Some(0), "{err}");
    let (code, ok, err) = replay(&["validate", out]);
    assert_eq!(code, Some(0), "{err}");
    assert!(ok.starts_with("ok: "), "{ok}");
    let (_, whole, _) = replay(&["hash", &src]);
    let (_, clip, _) = replay(&["hash", out]);
    let want: Vec<&str> = whole
        .lines()
        .filter(|l| l.split(' ').next().and_then(|t| t.parse::<u64>().ok()).is_some_and(|t| (435..=1000).contains(&t)))
        .collect();
    assert_eq!(want.len(), 566);
    assert_eq!(clip.lines().collect::<Vec<_>>(), want);
}

#[test]
fn dump_geodetic_gives_each_entity_its_latitude_longitude_and_altitude_on_a_planet() {
    let dir = std::env::temp_dir().join(format!("replay-cli-geodetic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let planet = dir.join("moon.flrep");
    let flat = dir.join("flat.flrep");
    for (file, radius) in [(&planet, "600000"), (&flat, "0")] {
        let f = file.to_str().unwrap();
        let (code, _, err) =
            replay(&["generate", "--out", f, "--seconds", "2", "--entities", "4", "--planet-radius", radius]);
        assert_eq!(code, Some(0), "{err}");
    }
    let (code, out, err) = replay(&["dump", "--geodetic", planet.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let mut lines = out.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    let info = lines.next().unwrap();
    let q = info["info"]["position_quantum_m"].as_f64().unwrap();
    assert_eq!(info["info"]["world"]["radius_m"].as_f64(), Some(600_000.0));
    let mut checked = 0;
    for l in lines.filter(|l| l["type"] == "tick") {
        let (ents, geo) = (l["entities"].as_array().unwrap(), l["geodetic"].as_array().unwrap());
        assert_eq!(ents.len(), geo.len());
        for (e, g) in ents.iter().zip(geo) {
            let p: Vec<f64> = e["pos"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() * q).collect();
            let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            assert!((g[2].as_f64().unwrap() - (r - 600_000.0)).abs() < 1e-6, "{g} at {p:?}");
            assert!((g[0].as_f64().unwrap() - (p[2] / r).asin().to_degrees()).abs() < 1e-9);
            checked += 1;
        }
    }
    assert!(checked > 0);
    // A flat world has no latitude: nothing is added.
    let (code, out, _) = replay(&["dump", "--geodetic", flat.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert!(out.lines().filter(|l| l.contains(r#""type":"tick""#)).all(|l| !l.contains("geodetic")));
    std::fs::remove_dir_all(&dir).unwrap();
}
