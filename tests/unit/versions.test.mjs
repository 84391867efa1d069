// What the player says it reads (www/api/constants.ts READS, docs/versions.md) is what the Rust
// readers read: each number is compared with the reader's constant, so a format version changed in
// one place and not the other fails here. And the version a site sees is package.json's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { READS, readsLine } from '../../www/api/constants.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const constant = (file, name) => {
  const src = fs.readFileSync(path.join(ROOT, 'crate', 'src', 'format', file), 'utf8');
  const m = new RegExp(`pub const ${name}: u\\d+ = (\\d+);`).exec(src);
  assert.ok(m, `${file} declares ${name}`);
  return Number(m[1]);
};

test("READS is the Rust readers' versions", () => {
  assert.equal(READS.flrep.major, constant('flrep/mod.rs', 'FORMAT_MAJOR'));
  assert.equal(READS.foldback.version, constant('foldback/mod.rs', 'FORMAT_VERSION'));
  assert.equal(READS.foldback.liveProtocol, constant('foldback/live.rs', 'PROTOCOL_VERSION'));
  assert.equal(READS.spark.version, constant('spark/mod.rs', 'VERSION'));
  assert.equal(
    readsLine(),
    `reads .flrep ${READS.flrep.major}.x, .foldback ${READS.foldback.version} (live protocol ${READS.foldback.liveProtocol}), SparkEngine .replay ${READS.spark.version}`,
  );
});

test('docs/versions.md states the same numbers and the CHANGELOG names the version', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'versions.md'), 'utf8');
  assert.match(doc, new RegExp(`\\| \`\\.flrep\` \\| ${READS.flrep.major}\\.x `));
  assert.match(doc, new RegExp(`\\| \`\\.foldback\` \\| ${READS.foldback.version} `));
  assert.match(doc, new RegExp(`\\| SparkEngine \`\\.replay\` \\| ${READS.spark.version} `));
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.match(version, /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'a semantic version');
  const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  assert.match(
    changelog,
    new RegExp(`^## ${version.replace(/\./g, '\\.')} `, 'm'),
    'CHANGELOG.md has a section for it',
  );
});
