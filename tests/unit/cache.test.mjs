// The compile cache kept between clones (scripts/cache.mjs): a clone without target/ gets a link
// into the cache, one with its own keeps it; the workspace's own units of older clones are removed,
// a dependency's never.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { linkTargetCache, pruneWorkspaceUnits, workspaceUnitNames } from '../../scripts/cache.mjs';

/** A clone-like folder: crate/tests/host.rs, an example, a Cargo.lock naming a dependency. */
function clone() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-clone-'));
  fs.mkdirSync(path.join(root, 'crate', 'tests'), { recursive: true });
  fs.mkdirSync(path.join(root, 'crate', 'examples'), { recursive: true });
  fs.writeFileSync(path.join(root, 'crate', 'tests', 'host.rs'), '');
  fs.writeFileSync(path.join(root, 'crate', 'tests', 'bytes.rs'), '');
  fs.writeFileSync(path.join(root, 'crate', 'examples', 'bench.rs'), '');
  fs.writeFileSync(path.join(root, 'Cargo.lock'), 'name = "bytes"\nname = "tokio"\nname = "replay-player"\n');
  return root;
}

test('a clone without target/ is linked into the cache; its own target/ or CARGO_TARGET_DIR is kept', () => {
  const root = clone();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-dir-'));
  try {
    const linked = linkTargetCache(root, cache, {});
    assert.deepEqual(
      linked.map((l) => path.relative(root, l.at)),
      ['target', path.join('crate', 'fuzz', 'target')],
    );
    assert.equal(fs.readlinkSync(path.join(root, 'target')), path.join(cache, 'target'));
    // Linked again: the same links, nothing new.
    assert.equal(linkTargetCache(root, cache, {}).length, 2);
    const other = clone();
    fs.mkdirSync(path.join(other, 'target'));
    assert.deepEqual(
      linkTargetCache(other, cache, {}).map((l) => path.relative(other, l.at)),
      [path.join('crate', 'fuzz', 'target')],
      "a developer's own target/ stays",
    );
    assert.equal(fs.lstatSync(path.join(other, 'target')).isSymbolicLink(), false);
    const third = clone();
    assert.deepEqual(linkTargetCache(third, cache, { CARGO_TARGET_DIR: '/elsewhere' }), []);
    assert.deepEqual(linkTargetCache(third, cache, { REPLAY_TARGET_CACHE: 'off' }), []);
    assert.equal(fs.existsSync(path.join(third, 'target')), false);
    for (const d of [other, third]) fs.rmSync(d, { recursive: true, force: true });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

test("older clones' units of the workspace's crates are removed; dependencies and recent ones stay", () => {
  const root = clone();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-dir-'));
  try {
    const names = workspaceUnitNames(root);
    assert.ok(names.has('host') && names.has('bench') && names.has('replay_player'));
    assert.ok(!names.has('bytes'), 'a test named like a dependency is never ours');
    const linked = linkTargetCache(root, cache, {});
    const debug = path.join(cache, 'target', 'debug');
    const old = Date.now() - 10 * 24 * 3600 * 1000;
    const make = (rel, when) => {
      const p = path.join(debug, rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, 'x'.repeat(100));
      fs.utimesSync(p, when / 1000, when / 1000);
      return p;
    };
    const gone = [
      make('deps/host-0123456789abcdef', old),
      make('deps/libreplay_player-0123456789abcdef.rlib', old),
      make('incremental/host-2bl8xsb1u1sxi/s-1', old),
      make('.fingerprint/replay-player-0123456789abcdef/lib', old),
    ];
    fs.utimesSync(path.join(debug, 'incremental/host-2bl8xsb1u1sxi'), old / 1000, old / 1000);
    fs.utimesSync(path.join(debug, '.fingerprint/replay-player-0123456789abcdef'), old / 1000, old / 1000);
    const kept = [
      make('deps/libtokio-0123456789abcdef.rlib', old),
      make('deps/bytes-0123456789abcdef', old),
      make('deps/host-fedcba9876543210', Date.now()),
    ];
    const freed = pruneWorkspaceUnits(linked, undefined, root);
    assert.ok(freed >= 400, `freed ${freed} bytes`);
    for (const p of gone) assert.equal(fs.existsSync(p), false, `${path.relative(debug, p)} removed`);
    for (const p of kept) assert.equal(fs.existsSync(p), true, `${path.relative(debug, p)} kept`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  }
});
