// The browser tests' generated fixtures (tests/e2e/player-helpers.mjs generated()): kept in a folder
// named by the `replay` CLI that wrote them, so a rebuilt generator writes them afresh and no test
// reads a file an older generator wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generated, fixturesDir } from '../e2e/player-helpers.mjs';

/** A stand-in for the CLI: `generate --out FILE ARGS…` writes its own name and the args. */
function fakeCli(dir, version) {
  const bin = path.join(dir, 'replay');
  fs.writeFileSync(
    bin,
    `#!/bin/sh\n# ${version}\nshift; out="$2"; shift 2; echo "${version} $*" > "$out"; echo x >> "${dir}/calls"\n`,
  );
  fs.chmodSync(bin, 0o755);
  return bin;
}

test('a fixture is written once per generator build, and again by a rebuilt one', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fixtures-'));
  const saved = process.env.REPLAY_BIN;
  const made = [];
  try {
    process.env.REPLAY_BIN = fakeCli(dir, 'v1');
    const calls = () => fs.readFileSync(path.join(dir, 'calls'), 'utf8').split('\n').filter(Boolean).length;
    const a = generated('unit-fixture.flrep', ['--seed', '3']);
    made.push(path.dirname(a));
    assert.equal(fs.readFileSync(a, 'utf8').trim(), 'v1 --seed 3');
    assert.equal(generated('unit-fixture.flrep', ['--seed', '3']), a, 'the same build: the same file');
    assert.equal(calls(), 1, 'written once');
    assert.equal(path.dirname(a), fixturesDir());
    // The generator rebuilt (another size and time): written afresh, elsewhere.
    fakeCli(dir, 'v2-longer');
    const b = generated('unit-fixture.flrep', ['--seed', '3']);
    made.push(path.dirname(b));
    assert.notEqual(b, a);
    assert.equal(fs.readFileSync(b, 'utf8').trim(), 'v2-longer --seed 3');
    assert.equal(calls(), 2);
    assert.deepEqual(
      fs.readdirSync(path.dirname(b)).filter((f) => f.includes('.part')),
      [],
      'no part file left',
    );
  } finally {
    if (saved === undefined) delete process.env.REPLAY_BIN;
    else process.env.REPLAY_BIN = saved;
    fs.rmSync(dir, { recursive: true, force: true });
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  }
});
