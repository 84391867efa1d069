// The tree check of npm test (scripts/tree.mjs): a run that changes any path git does not ignore —
// a tracked file, or a new untracked one — fails, whether or not the tree was clean before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertTreeUnchanged, treeChanges, treeState } from '../../scripts/tree.mjs';

/** A git repository with a tracked file, an ignored folder and a .gitignore, committed. */
function repo() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tree-'));
  const git = (...args) => {
    const r = spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  };
  git('init', '-q');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'one\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), '/out\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  return dir;
}

test('a clean tree: a new untracked file, an edit and a deletion fail; ignored paths do not', () => {
  const dir = repo();
  try {
    const before = treeState(dir);
    assert.equal(before.size, 0);
    fs.mkdirSync(path.join(dir, 'out'));
    fs.writeFileSync(path.join(dir, 'out', 'x.png'), 'ignored');
    assert.match(assertTreeUnchanged(dir, before), /changed nothing/);
    fs.mkdirSync(path.join(dir, 'tests', 'left'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'tests', 'left', 'behind.json'), '{}');
    assert.throws(() => assertTreeUnchanged(dir, before), /new: tests\/left\/behind\.json/);
    fs.rmSync(path.join(dir, 'tests'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'a.txt'), 'two\n');
    assert.throws(() => assertTreeUnchanged(dir, before), /new: a\.txt/);
    fs.rmSync(path.join(dir, 'a.txt'));
    assert.throws(() => assertTreeUnchanged(dir, before), /new: a\.txt/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a tree dirty before the run is still checked: only what the run changed counts', () => {
  const dir = repo();
  try {
    // The developer's own edits, before the run.
    fs.writeFileSync(path.join(dir, 'a.txt'), 'my edit\n');
    fs.writeFileSync(path.join(dir, 'notes.md'), 'mine\n');
    const before = treeState(dir);
    assert.deepEqual([...before.keys()].sort(), ['a.txt', 'notes.md']);
    assert.match(assertTreeUnchanged(dir, before), /2 path\(s\) already differed/);
    // The run rewrites the edited file and adds one of its own.
    fs.writeFileSync(path.join(dir, 'a.txt'), 'the run wrote this\n');
    fs.writeFileSync(path.join(dir, 'run.log.txt'), 'x');
    assert.deepEqual(treeChanges(before, treeState(dir)), ['changed: a.txt', 'new: run.log.txt']);
    // A file the run put back as it is in HEAD.
    fs.writeFileSync(path.join(dir, 'a.txt'), 'one\n');
    fs.rmSync(path.join(dir, 'run.log.txt'));
    assert.deepEqual(treeChanges(before, treeState(dir)), ['restored: a.txt']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('outside a git repository the check says it is skipped', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tree-none-'));
  try {
    assert.equal(treeState(dir), null);
    assert.match(assertTreeUnchanged(dir, null), /no git repository/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
