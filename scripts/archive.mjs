// The self-host archive (docs/embedding.md "Self-hosting"): replay-player-VERSION.zip, the player's
// files as dist/ holds them (what the npm package ships under dist/), one folder inside named
// replay-player-VERSION/, to unpack into any static server's folder at any path.
//   node scripts/archive.mjs [OUT_DIR]      (after npm run build; default target/)
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, isMain, log } from './lib.mjs';
import { DIST_DIR } from './dist.mjs';

/** What of dist/ is not the player's (the build's own records). */
const LEFT_OUT = /(^|\/)\.|^pkg\/sizes\.json$|\.map$|\.d\.ts$/;

/** Writes the archive into `outDir`; returns its path, its size and its files. */
export async function writeArchive(outDir = path.join(ROOT, 'target'), { dist = DIST_DIR } = {}) {
  const { zipSync } = await import('fflate');
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  if (!fs.existsSync(path.join(dist, 'player.js'))) throw new Error(`${dist} is not built: run npm run build first`);
  const top = `replay-player-${version}`;
  const files = {};
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(dist, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (LEFT_OUT.test(r)) continue;
      if (e.isDirectory()) walk(r);
      else if (e.isFile())
        files[`${top}/${r}`] = [fs.readFileSync(path.join(dist, r)), { level: r.endsWith('.wasm') ? 9 : 6 }];
    }
  };
  walk('');
  const zip = zipSync(files, { mtime: new Date('2026-01-01T00:00:00Z') });
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${top}.zip`);
  fs.writeFileSync(file, zip);
  return { file, bytes: zip.length, files: Object.keys(files) };
}

if (isMain(import.meta.url)) {
  writeArchive(process.argv[2] ? path.resolve(process.argv[2]) : undefined).then(
    (a) => log(`${path.relative(ROOT, a.file)}: ${a.files.length} files, ${(a.bytes / 1024).toFixed(0)} KiB`),
    (e) => {
      console.error(`[replay-player] archive failed: ${e.message}`);
      process.exit(1);
    },
  );
}
