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

const COMMANDS: [&str; 9] = ["info", "validate", "dump", "hash", "diff", "generate", "convert", "diverge", "live-demo"];

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
    let cases: [(&[&str], &[&str], &[&str]); 12] = [
        (&["info"], &["<FILE>"], &["--out"]),
        (&["validate"], &["<FILE>"], &[]),
        (&["dump"], &["<FILE>"], &[]),
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
}
