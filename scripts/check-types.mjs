// Type-checks the shell (www/, TypeScript in strict mode: www/tsconfig.json for the page,
// www/workers/tsconfig.json for the workers) and the package's declarations (types/*.d.ts):
// the declarations themselves, a site's use of them (tests/types/usage.ts, whose `@ts-expect-error`
// lines must be errors), and the same imports through the package's own `exports` (the `types`
// conditions of package.json, resolved by name as an installed package is: tests/types/package.ts).
//   node scripts/check-types.mjs              skips (exit 0) when typescript is not installed
//   node scripts/check-types.mjs --require    fails when it is not
//   node scripts/check-types.mjs --shell      the shell (needs www/pkg: after the wasm build), and that
//                                             types/*.d.ts are what it declares (scripts/types.mjs)
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

/** The shell's two programs: the page's modules and the workers'. */
export const SHELL_CONFIGS = ['www/tsconfig.json', 'www/workers/tsconfig.json'];

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
    lines.push(...ts.getPreEmitDiagnostics(program).map((d) => describe(ts, d)));
  }
  return lines;
}

/** The shell's programs (SHELL_CONFIGS) compiled as their tsconfig says; diagnostics as text lines. */
export function checkShell(ts) {
  const lines = [];
  for (const cfg of SHELL_CONFIGS) {
    const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => lines.push(describe(ts, d)) };
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, cfg), {}, host);
    if (!parsed) continue;
    lines.push(...parsed.errors.map((d) => describe(ts, d)));
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
    lines.push(...ts.getPreEmitDiagnostics(program).map((d) => describe(ts, d)));
  }
  // lib/ is in both programs: an error there is told once.
  return [...new Set(lines)];
}

/** One diagnostic as `file:line:col: TSnnnn: text`. */
function describe(ts, d) {
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  if (d.file && d.start !== undefined) {
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(ROOT, d.file.fileName)}:${line + 1}:${character + 1}: TS${d.code}: ${text}`;
  }
  return `TS${d.code}: ${text}`;
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
    const shell = process.argv.includes('--shell');
    const errors = shell ? checkShell(ts) : checkTypes(ts);
    const what = shell ? 'www/ (strict)' : 'types/*.d.ts and their uses';
    if (errors.length) {
      console.error(errors.join('\n'));
      console.error(`[replay-player] ${what}: ${errors.length} error(s) (TypeScript ${ts.version})`);
      process.exit(1);
    }
    log(`ok: ${what} (TypeScript ${ts.version})`);
    if (shell) {
      // The package's declarations are generated from the shell (scripts/types.mjs): the committed
      // ones must be what the source declares now.
      const { generate } = await import('./types.mjs');
      const stale = (await generate()).filter(({ out, text }) => {
        const file = path.join(ROOT, out);
        return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text;
      });
      if (stale.length) {
        for (const { out } of stale)
          console.error(`[replay-player] ${out} differs from what the source declares: run node scripts/types.mjs`);
        process.exit(1);
      }
      log('ok: types/*.d.ts are what the source declares (scripts/types.mjs)');
    }
  }
}
