// The package's TypeScript declarations (types/*.d.ts), generated from the source so that they
// cannot drift: dts-bundle-generator bundles what each published entry exports (www/player.ts:
// create(), the Player handle, the vocabulary of lib/types.ts; www/element.ts: <replay-player>)
// into one file, with the source's doc comments. `node scripts/types.mjs` writes them;
// `--check` fails when the committed ones differ (tests/unit/types.test.mjs runs it).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each declaration file: its entry and the header it starts with. */
export const ENTRIES = [
  {
    out: 'types/player.d.ts',
    entry: 'www/player.ts',
    header: [
      '// TypeScript declarations of `player.js` (docs/player-api.md, docs/embedding.md): create(), the',
      '// Player handle and the vocabulary they speak. Generated from the source by scripts/types.mjs:',
      '// do not edit (npm test fails when they differ from a fresh generation).',
      '//',
      "//   import { create, type Player, type PlayerOptions } from 'replay-player/player.js';",
    ],
  },
  {
    out: 'types/element.d.ts',
    entry: 'www/element.ts',
    header: [
      '// TypeScript declarations of `element.js`: importing it defines <replay-player> (docs/embedding.md',
      '// "Custom element"). Generated from the source by scripts/types.mjs: do not edit.',
      '//',
      "//   import 'replay-player/element.js';",
      "//   const el = document.querySelector('replay-player');   // ReplayPlayerElement",
    ],
    // dts-bundle-generator drops `declare global` (embed/element.ts has the same block).
    footer: [
      'declare global {',
      '\tinterface HTMLElementTagNameMap {',
      '\t\t"replay-player": ReplayPlayerElement;',
      '\t}',
      '}',
    ],
  },
];

/** The declarations generated now: [{out, text}]. Needs www/pkg (the wasm build's d.ts). */
export async function generate() {
  const { generateDtsBundle } = await import('dts-bundle-generator');
  const texts = generateDtsBundle(
    ENTRIES.map((e) => ({
      filePath: path.join(ROOT, e.entry),
      output: { noBanner: true, exportReferencedTypes: false, sortNodes: false },
    })),
    { preferredConfigPath: path.join(ROOT, 'www/tsconfig.json') },
  );
  return ENTRIES.map((e, i) => {
    let body = texts[i].trim();
    if (e.footer) body = body.replace(/\nexport \{\};$/, `\n${e.footer.join('\n')}\n\nexport {};`);
    return { out: e.out, text: `${e.header.join('\n')}\n\n${body}\n` };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const { out, text } of await generate()) {
    const file = path.join(ROOT, out);
    const now = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (now === text) continue;
    stale++;
    if (check)
      console.error(`[replay-player] ${out} differs from what the source declares: run node scripts/types.mjs`);
    else fs.writeFileSync(file, text);
  }
  if (check && stale) process.exit(1);
  console.log(
    `[replay-player] ${check ? 'checked' : 'wrote'} ${ENTRIES.length} declaration files${stale && !check ? ` (${stale} changed)` : ''}`,
  );
}
