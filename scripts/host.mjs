// npm run host: install what is missing, build, then run the replay host (`replay host`,
// docs/hosting.md) on http://127.0.0.1:${PORT:-8090}/ with its store in .cache/host/ and the demo
// uploaded, so that the gallery, a /r/ page that unfurls, its poster and oEmbed are there to try.
//   npm run host            (PORT=9000 npm run host, HOST_DATA=/srv/replays npm run host)
//   npm run host -- --no-build    what is built already (dist/, target/release/replay)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, log, run } from './lib.mjs';
import { setup } from './setup.mjs';
import { build } from './build.mjs';

const BIN = path.join(
  process.env.CARGO_TARGET_DIR ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR) : path.join(ROOT, 'target'),
  'release',
  process.platform === 'win32' ? 'replay.exe' : 'replay',
);
const DEMO = path.join(ROOT, 'dist', 'demo', 'demo.flrep');

async function main() {
  if (!process.argv.includes('--no-build')) {
    await setup();
    await build({ skipSetup: true });
    await run('cargo', ['build', '--release', '-p', 'replay-player', '--bin', 'replay']);
  }
  const data = path.resolve(ROOT, process.env.HOST_DATA ?? path.join('.cache', 'host'));
  fs.mkdirSync(data, { recursive: true });
  const listen = `127.0.0.1:${Number(process.env.PORT ?? 8090)}`;
  const host = spawn(BIN, ['host', '--data', data, '--listen', listen], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    host.stdout.on('data', (b) => {
      process.stdout.write(b);
      out += b;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    host.once('exit', (code) => reject(new Error(`replay host exited with ${code}`)));
  });
  const res = await fetch(`${url}/api/replays`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'demo.flrep' },
    body: fs.readFileSync(DEMO),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`uploading the demo: ${res.status} ${body.error ?? ''}`);
  log(`the gallery: ${url}/`);
  log(`the demo's page: ${body.page}?t=30  (oEmbed: ${body.oembed})`);
  log('Ctrl-C to stop');
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      host.kill('SIGINT');
      process.exit(0);
    });
  }
}

main().catch((e) => {
  console.error(`[replay-player] host failed: ${e.message}`);
  process.exit(1);
});
