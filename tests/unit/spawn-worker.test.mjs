// www/lib/spawn.ts: module workers from the same origin directly, from another through a blob: module.
import assert from 'node:assert/strict';
import test from 'node:test';
import { spawnWorker, trampolineSource } from '../../www/lib/spawn.ts';

function env(origin) {
  const made = [];
  const blobs = [];
  return {
    made,
    blobs,
    location: { origin },
    Worker: class {
      constructor(url, opts) {
        made.push({ url, opts });
      }
    },
    Blob: class {
      constructor(parts, opts) {
        this.parts = parts;
        this.type = opts.type;
      }
    },
    URL: {
      createObjectURL: (b) => {
        blobs.push(b);
        return `blob:${origin}/1`;
      },
      revokeObjectURL: () => {},
    },
  };
}

test('a same-origin worker starts directly, as a module', () => {
  const e = env('https://site.example');
  spawnWorker('https://site.example/player/worker.js', { name: 'decoder' }, e);
  assert.deepEqual(e.made, [
    { url: 'https://site.example/player/worker.js', opts: { name: 'decoder', type: 'module' } },
  ]);
  assert.equal(e.blobs.length, 0);
});

test('a cross-origin worker starts from a same-origin blob: module that imports it', () => {
  const e = env('https://site.example');
  spawnWorker(new URL('https://cdn.example/p/worker.js?v=1'), {}, e);
  assert.equal(e.made.length, 1);
  assert.equal(e.made[0].url, 'blob:https://site.example/1');
  assert.equal(e.made[0].opts.type, 'module');
  assert.equal(e.blobs[0].type, 'text/javascript');
  assert.equal(e.blobs[0].parts.join(''), 'import "https://cdn.example/p/worker.js?v=1";\n');
});

test('the trampoline quotes the address as a string literal (nothing in a URL can break out of it)', () => {
  const src = trampolineSource('https://cdn.example/a"b\\c/w.js');
  assert.equal(src, `import ${JSON.stringify('https://cdn.example/a%22b/c/w.js')};\n`);
  assert.throws(() => trampolineSource('not a url'));
});
