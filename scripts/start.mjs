// npm start: install what is missing, build, serve dist/ (www/ minified: what ships) on http://127.0.0.1:${PORT:-8080}/.
import path from 'node:path';
import { ROOT, log } from './lib.mjs';
import { setup } from './setup.mjs';
import { build } from './build.mjs';
import { serve } from './serve.mjs';

async function main() {
  await setup();
  await build({ skipSetup: true });
  const port = Number(process.env.PORT ?? 8080);
  const host = '127.0.0.1';
  const server = serve({ root: path.join(ROOT, 'dist'), port, host });
  await new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const url = `http://${host}:${server.address().port}/`;
  log(`serving the player on ${url}  (Ctrl-C to stop)`);
  console.log(url);
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      server.close();
      process.exit(0);
    });
  }
}

main().catch((e) => {
  console.error(`[replay-player] start failed: ${e.message}`);
  process.exit(1);
});
