// The compile cache kept between clones (docs/performance.md "The suite"): what CI systems keep
// of a Rust build (rust-cache and the like), on this machine. A clone without a `target/` gets one
// that points into the cache (a symlink: `target/release/replay` is where it always was), so the
// dependencies compiled by one clone — the bulk of every build — are not compiled again by the
// next; cargo's fingerprints decide what is stale, as in any target directory. The workspace's
// own crates are compiled afresh in each clone (their units carry the clone's path); those not
// written for KEEP_DAYS are removed at the end of a run (other clones' copies, never a
// dependency's), and past MAX_BYTES the cache is emptied.
//   REPLAY_TARGET_CACHE=off   no cache: target/ is a plain directory in the clone
//   CARGO_TARGET_DIR          set: that directory is used, as cargo does
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, log } from './lib.mjs';

/** The cache's folder (XDG_CACHE_HOME, else ~/.cache). */
export const CACHE_DIR = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'replay-player');
/** The target directories kept: the workspace's and the fuzz harness's (its own workspace). */
const LINKS = [
  ['target', 'target'],
  [path.join('crate', 'fuzz', 'target'), 'fuzz-target'],
];
/** Past this size the cache is emptied at the start of a run (the next build is a cold one). */
const MAX_BYTES = 40 * 2 ** 30;
/** The workspace's own units not written for this long are removed (ms). */
export const KEEP_MS = 3 * 24 * 3600 * 1000;

/** Whether the cache is used in this environment. */
export function cacheEnabled(env = process.env) {
  return env.REPLAY_TARGET_CACHE !== 'off' && !env.CARGO_TARGET_DIR;
}

/**
 * Points each missing target directory of the clone into the cache (a directory already there is
 * left as it is: a developer's own). Returns the links it made or found.
 */
export function linkTargetCache(root = ROOT, cacheDir = CACHE_DIR, env = process.env) {
  if (!cacheEnabled(env)) return [];
  const linked = [];
  for (const [rel, name] of LINKS) {
    const at = path.join(root, rel);
    const into = path.join(cacheDir, name);
    let st = null;
    try {
      st = fs.lstatSync(at);
    } catch {
      /* missing */
    }
    if (st?.isSymbolicLink()) {
      linked.push({ at, into: fs.readlinkSync(at) });
      continue;
    }
    if (st) continue;
    fs.mkdirSync(into, { recursive: true });
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(into, at, 'dir');
    linked.push({ at, into });
  }
  if (linked.length) {
    const bytes = linked.reduce((n, l) => n + sizeOf(l.into), 0);
    if (bytes > MAX_BYTES) {
      log(`compile cache: ${(bytes / 2 ** 30).toFixed(1)} GiB, over ${MAX_BYTES / 2 ** 30} GiB: emptied`);
      for (const l of linked)
        for (const e of fs.readdirSync(l.into)) fs.rmSync(path.join(l.into, e), { recursive: true, force: true });
    } else
      log(
        `compile cache: ${linked.map((l) => `${path.relative(root, l.at)} → ${l.into}`).join(', ')} (${(bytes / 2 ** 30).toFixed(1)} GiB)`,
      );
  }
  return linked;
}

/** Bytes under `dir` (files only; links not followed). */
export function sizeOf(dir) {
  let n = 0;
  const walk = (d) => {
    let entries;
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) n += fs.statSync(p).size;
    }
  };
  walk(dir);
  return n;
}

/** The workspace's own crate names as cargo names their units: the library, the CLI, each
 *  integration test, example and fuzz target (their files' names). */
export function workspaceUnitNames(root = ROOT) {
  const names = new Set(['replay_player', 'replay', 'replay_player_fuzz']);
  for (const dir of [
    path.join('crate', 'tests'),
    path.join('crate', 'examples'),
    path.join('crate', 'fuzz', 'fuzz_targets'),
  ])
    for (const f of fs.existsSync(path.join(root, dir)) ? fs.readdirSync(path.join(root, dir)) : [])
      if (f.endsWith('.rs')) names.add(f.slice(0, -3).replace(/-/g, '_'));
  // A name a dependency also has (a test called like a crate of crates.io) is never ours to remove.
  for (const lock of ['Cargo.lock', path.join('crate', 'fuzz', 'Cargo.lock')]) {
    const text = fs.existsSync(path.join(root, lock)) ? fs.readFileSync(path.join(root, lock), 'utf8') : '';
    for (const m of text.matchAll(/^name = "([^"]+)"$/gm)) {
      const n = m[1].replace(/-/g, '_');
      if (!n.startsWith('replay_player')) names.delete(n);
    }
  }
  return names;
}

/**
 * Removes, from the cached target directories, the units of the workspace's own crates written
 * before `before` (ms since the epoch; default KEEP_MS ago): other clones' copies, never a
 * dependency's. Returns the bytes freed.
 */
export function pruneWorkspaceUnits(linked, before = Date.now() - KEEP_MS, root = ROOT) {
  const names = workspaceUnitNames(root);
  // `deps/NAME-HASH…`, `.fingerprint/NAME-HASH`, `build/NAME-HASH`, `incremental/NAME-HASH`;
  // the crate's package is `replay-player`, its units `replay_player` (a dash in build/ and
  // .fingerprint/).
  // (`libNAME-HASH.rlib` in deps/; incremental/'s hashes are base 36.)
  const ours = (entry) => {
    const m = /^(.+?)-[0-9a-z]{10,16}(?:\.[^-]*)?$/.exec(entry);
    if (!m) return false;
    const n = m[1].replace(/-/g, '_');
    return names.has(n) || (n.startsWith('lib') && names.has(n.slice(3)));
  };
  let freed = 0;
  const sweep = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (['deps', '.fingerprint', 'build', 'incremental'].includes(e.name) && e.isDirectory()) {
        for (const u of fs.readdirSync(p)) {
          if (!ours(u)) continue;
          const q = path.join(p, u);
          const st = fs.lstatSync(q);
          if (st.mtimeMs >= before) continue;
          freed += st.isDirectory() ? sizeOf(q) : st.size;
          fs.rmSync(q, { recursive: true, force: true });
        }
      } else if (e.isDirectory() && !e.name.startsWith('.')) sweep(p);
    }
  };
  for (const l of linked) sweep(l.into);
  return freed;
}
