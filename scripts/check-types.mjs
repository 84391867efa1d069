// Type-checks the package's TypeScript declarations (types/*.d.ts) with the TypeScript compiler:
// the declarations themselves, a site's use of them (tests/types/usage.ts, whose `@ts-expect-error`
// lines must be errors), and the same imports through the package's own `exports` (the `types`
// conditions of package.json, resolved by name as an installed package is: tests/types/package.ts).
//   node scripts/check-types.mjs              skips (exit 0) when typescript is not installed
//   node scripts/check-types.mjs --require    fails when it is not
// The compiler is `typescript` from node_modules (a devDependency), or TYPESCRIPT=<its folder>.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, log, isMain } from './lib.mjs';

/** The files each program checks (paths from the repository root). */
export const PROGRAMS = [
  ['types/player.d.ts', 'types/element.d.ts', 'tests/types/usage.ts'],
  ['tests/types/package.ts'],
];

/** The typescript module, or null when it is not installed. */
export function loadTypescript() {
  const where = process.env.TYPESCRIPT || path.join(ROOT, 'node_modules', 'typescript');
  if (!fs.existsSync(path.join(where, 'package.json'))) return null;
  return createRequire(path.join(ROOT, 'package.json'))(where);
}

/**
 * Runs the compiler over PROGRAMS (strict, DOM, NodeNext modules, no emit); returns the
 * diagnostics as text lines (empty: no errors).
 */
export function checkTypes(ts) {
  const options = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    skipLibCheck: false,
    exactOptionalPropertyTypes: true,
    noUnusedLocals: false,
  };
  const lines = [];
  for (const files of PROGRAMS) {
    const program = ts.createProgram(
      files.map((f) => path.join(ROOT, f)),
      options,
    );
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (d.file && d.start !== undefined) {
        const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
        lines.push(`${path.relative(ROOT, d.file.fileName)}:${line + 1}:${character + 1}: TS${d.code}: ${text}`);
      } else {
        lines.push(`TS${d.code}: ${text}`);
      }
    }
  }
  return lines;
}

if (isMain(import.meta.url)) {
  const ts = loadTypescript();
  if (!ts) {
    const msg = 'typescript is not installed (npm install --save-dev typescript): declarations not type-checked';
    if (process.argv.includes('--require')) {
      console.error(`[replay-player] ${msg}`);
      process.exit(1);
    }
    log(`skipped: ${msg}`);
  } else {
    const errors = checkTypes(ts);
    if (errors.length) {
      console.error(errors.join('\n'));
      console.error(`[replay-player] types: ${errors.length} error(s) (TypeScript ${ts.version})`);
      process.exit(1);
    }
    log(`ok: types/*.d.ts and their uses (TypeScript ${ts.version})`);
  }
}
