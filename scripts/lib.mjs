// Small helpers shared by the scripts (no dependencies).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function log(msg) {
  process.stdout.write(`[replay-player] ${msg}\n`);
}

/** Runs a command (inheriting stdio) and rejects on non-zero exit. */
export function run(cmd, args, opts = {}) {
  const shown = [cmd, ...args].join(' ');
  log(`$ ${shown}`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: 'inherit', ...opts });
    child.on('error', (e) => reject(new Error(`${shown}: ${e.message}`)));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${shown}: exited with ${signal ?? code}`));
    });
  });
}

/** Runs a command synchronously and returns {ok, stdout} (never throws). */
export function probe(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8' });
  return { ok: !r.error && r.status === 0, stdout: (r.stdout ?? '').trim(), stderr: (r.stderr ?? '').trim() };
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
