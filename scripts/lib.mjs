// Small helpers shared by the scripts (no dependencies).
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The lane the running code belongs to (`lane()`), carried along its promises. */
const lanes = new AsyncLocalStorage();

/** Writes `msg`, each line after `[replay-player]`, or after `[LANE]` inside a lane (`lane()`). */
export function log(msg) {
  const tag = lanes.getStore() ?? 'replay-player';
  process.stdout.write(
    `${String(msg)
      .split('\n')
      .map((l) => `[${tag}] ${l}`)
      .join('\n')}\n`,
  );
}

/** Writes `chunk` (a child's output) line by line, each line prefixed with `prefix`. Returns the
 *  partial last line to be written with the next chunk. */
function prefixed(out, prefix, pending, chunk) {
  const text = pending + chunk.toString('utf8');
  const lines = text.split('\n');
  const rest = lines.pop() ?? '';
  if (lines.length) out.write(`${lines.map((l) => `${prefix}${l}`).join('\n')}\n`);
  return rest;
}

/**
 * Runs a command and rejects on a non-zero exit. `opts`: spawn's options, and
 * - `prefix`: each line of its output is written with this in front (two lanes at once stay
 *   readable); without it, the child writes to this process's stdout and stderr itself;
 * - `keep`: resolves with the child's stdout (shown as well); the Error of a failure carries it
 *   (`e.stdout`), and with `keepErr` its stderr too (`e.stderr`, resolved as `{stdout, stderr}`).
 */
export function run(cmd, args, opts = {}) {
  const { prefix = laneOf(), keep = false, keepErr = false, nice = 0, ...spawnOpts } = opts;
  // `nice`: a lower CPU priority (nice(1)) for work that may wait while a lane that is the run's
  // critical path (the browser tests) keeps the cores.
  if (nice) [cmd, args] = ['nice', ['-n', String(nice), cmd, ...args]];
  const shown = [cmd, ...args].join(' ');
  log(`$ ${shown}`);
  const piped = prefix !== null || keep || keepErr;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      stdio: piped ? ['inherit', 'pipe', 'pipe'] : 'inherit',
      ...spawnOpts,
    });
    const out = [];
    const err = [];
    if (piped) {
      let po = '';
      let pe = '';
      const p = prefix ?? '';
      child.stdout.on('data', (b) => {
        if (keep) out.push(b);
        po = prefixed(process.stdout, p, po, b);
      });
      child.stderr.on('data', (b) => {
        if (keepErr) err.push(b);
        pe = prefixed(process.stderr, p, pe, b);
      });
      child.on('close', () => {
        if (po) process.stdout.write(`${p}${po}\n`);
        if (pe) process.stderr.write(`${p}${pe}\n`);
      });
    }
    child.on('error', (e) => reject(new Error(`${shown}: ${e.message}`)));
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0) return resolve(keepErr ? { stdout, stderr } : keep ? stdout : undefined);
      const e = new Error(`${shown}: exited with ${signal ?? code}`);
      e.stdout = stdout;
      e.stderr = stderr;
      reject(e);
    });
  });
}

/** Runs a command synchronously and returns {ok, stdout} (never throws). */
export function probe(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8' });
  return { ok: !r.error && r.status === 0, stdout: (r.stdout ?? '').trim(), stderr: (r.stderr ?? '').trim() };
}

/** What the gates deny: every warning (clippy's and rustc's). */
export const DENY = ['-D', 'warnings'];

/**
 * The environment that makes a cargo build lint what it compiles of the workspace: clippy-driver
 * as the workspace's rustc wrapper (cargo's RUSTC_WORKSPACE_WRAPPER), with `-D warnings`: what
 * `cargo clippy -- -D warnings` sets for its check. Dependencies are compiled by rustc as in any
 * build; a lint fails the build with clippy's message (scripts/lint.mjs).
 */
export function clippyEnv(env = process.env) {
  const driver = probe('rustup', ['which', 'clippy-driver']);
  if (!driver.ok || !driver.stdout) throw new Error('clippy-driver not found: rustup component add clippy');
  return {
    ...env,
    RUSTC_WORKSPACE_WRAPPER: driver.stdout,
    CLIPPY_ARGS: DENY.map((a) => `${a}__CLIPPY_HACKERY__`).join(''),
  };
}

/** Seconds since `t0` (from performance.now()), formatted. */
export function since(t0) {
  return `${((performance.now() - t0) / 1000).toFixed(1)}s`;
}

/** True when the module with this import.meta.url is the script node was started with. */
export function isMain(metaUrl) {
  if (!process.argv[1]) return false;
  try {
    return fs.realpathSync(fileURLToPath(metaUrl)) === fs.realpathSync(process.argv[1]);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- lanes

/** The name of the lane this code runs in, or null outside one. */
export function laneName() {
  return lanes.getStore() ?? null;
}

/** The prefix of the lane this code runs in, or null outside one. */
function laneOf() {
  const name = lanes.getStore();
  return name ? `[${name}] ` : null;
}

/**
 * Runs `fn` as lane `name`: what it logs and what its commands print is prefixed with `[name]`,
 * so that two lanes run side by side (npm test's Rust and web lanes) stay readable.
 */
export function lane(name, fn) {
  return lanes.run(name, fn);
}
