// The tree check of `npm test` (scripts/test.mjs): tests write only ignored paths. The state of the
// working tree is taken before the run and after it — every path git does not ignore that differs
// from HEAD: modified, staged, deleted, or untracked — with a hash of each one's bytes; the run
// fails when the two differ. A tree that was dirty before the run (a developer's own edits) is
// checked all the same: an edit the run did not make is in both states, one it made is not.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

/** Path → sha256 of its bytes ('' for a deleted file), over the paths `git status` lists in `root`;
 *  null when git or the repository is missing. */
export function treeState(root) {
  const r = spawnSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored=no'], {
    cwd: root,
    encoding: 'buffer',
    maxBuffer: 64 << 20,
  });
  if (r.error || r.status !== 0) return null;
  const state = new Map();
  const parts = r.stdout.toString('utf8').split('\0');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i];
    if (entry.length < 4) continue;
    const xy = entry.slice(0, 2);
    const file = entry.slice(3);
    // A rename or copy names its source next: both paths count.
    if (xy[0] === 'R' || xy[0] === 'C') state.set(parts[++i], '');
    state.set(file, hashOf(path.join(root, file)));
  }
  return state;
}

function hashOf(file) {
  try {
    const st = fs.lstatSync(file);
    if (st.isDirectory()) return 'dir';
    if (st.isSymbolicLink()) return `link:${fs.readlinkSync(file)}`;
    return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return '';
  }
}

/** The paths whose state differs between `before` and `after` (treeState's maps), sorted. */
export function treeChanges(before, after) {
  const out = [];
  for (const [file, h] of after)
    if (before.get(file) !== h) out.push(before.has(file) ? `changed: ${file}` : `new: ${file}`);
  for (const file of before.keys()) if (!after.has(file)) out.push(`restored: ${file}`);
  return out.sort((a, b) => a.slice(a.indexOf(' ')).localeCompare(b.slice(b.indexOf(' '))));
}

/** Throws when the run changed the tree (see the top); returns a one-line summary otherwise. */
export function assertTreeUnchanged(root, before) {
  if (before === null) return 'tree check: no git repository, skipped';
  const after = treeState(root) ?? new Map();
  const changes = treeChanges(before, after);
  if (changes.length)
    throw new Error(
      `the run changed the working tree outside ignored paths (tests must write only ignored paths, .gitignore):\n${changes
        .map((l) => `  ${l}`)
        .join('\n')}`,
    );
  return `tree check: the run changed nothing outside ignored paths (${before.size} path(s) already differed from HEAD)`;
}
