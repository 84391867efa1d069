// npm run release: what an operator and a site download, built from this tree.
//   node scripts/release.mjs
// 1. the player (scripts/build.mjs: the wasm builds, the demo, dist/);
// 2. target/release/replay with the player inside it (feature embed-player, host/embedded.rs):
//    `replay host --data DIR` then serves the player, the pages and the API with nothing beside it;
// 3. the self-host archive, target/replay-player-VERSION.zip (scripts/archive.mjs);
// then prints each one's size and the binary's shared libraries (ldd).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, isMain, log, run, probe } from './lib.mjs';
import { build } from './build.mjs';
import { writeArchive } from './archive.mjs';

export const RELEASE_BIN = path.join(ROOT, 'target', 'release', 'replay');

export async function release({ skipBuild = false } = {}) {
  if (!skipBuild) await build();
  await run('cargo', ['build', '--release', '-p', 'replay-player', '--bin', 'replay', '--features', 'embed-player']);
  const archive = await writeArchive();
  const mib = (n) => `${(n / 2 ** 20).toFixed(1)} MiB`;
  log(`${path.relative(ROOT, RELEASE_BIN)}: ${mib(fs.statSync(RELEASE_BIN).size)} (the player inside)`);
  log(`${path.relative(ROOT, archive.file)}: ${mib(archive.bytes)}, ${archive.files.length} files`);
  const ldd = probe('ldd', [RELEASE_BIN]);
  if (ldd.ok) log(`shared libraries (the system's only):\n${ldd.stdout}`);
}

if (isMain(import.meta.url)) {
  release({ skipBuild: process.argv.includes('--no-build') }).catch((e) => {
    console.error(`[replay-player] release failed: ${e.message}`);
    process.exit(1);
  });
}
