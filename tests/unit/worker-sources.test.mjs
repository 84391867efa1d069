// Unit tests of the URL source's reads (www/workers/decode/sources.ts `UrlSource.read`) against a fake
// `fetch`: a range the server failed to send (5xx, a short body, a dropped connection) is asked for
// again before the read fails; an answer that will not change (404, another range) fails at once;
// an abort ends the waits.
// Run: node --test tests/unit/
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { UrlSource, RETRY_MS } from '../../www/workers/decode/sources.ts';
import { until } from './fakes.mjs';

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

const FILE = Uint8Array.from({ length: 4096 }, (_, i) => i & 0xff);
/** A 206 for the asked range (its body cut to `short` bytes when given). */
function partial(range, short = null) {
  const [, a, b] = /bytes=(\d+)-(\d+)/.exec(range).map(Number);
  const body = FILE.slice(a, short === null ? b + 1 : a + short);
  return new Response(body, { status: 206, headers: { 'Content-Range': `bytes ${a}-${b}/${FILE.length}` } });
}
/** Answers each request with the next of `answers` (a function of the Range header, or an error to
 *  throw); returns the ranges asked for. */
function fakeFetch(answers) {
  const asked = [];
  globalThis.fetch = async (_url, init) => {
    const range = init.headers.Range;
    asked.push(range);
    const a = answers[Math.min(asked.length - 1, answers.length - 1)];
    if (a instanceof Error) throw a;
    return a(range);
  };
  return asked;
}
const source = () => new UrlSource('https://files.example/r.flrep', 'r.flrep', FILE.length, new Uint8Array(0));

test('a 503 is asked for again, and the second answer is read', async () => {
  const asked = fakeFetch([() => new Response('busy', { status: 503, statusText: 'Service Unavailable' }), partial]);
  const s = source();
  const b = await s.read(1000, 100);
  assert.deepEqual([...b], [...FILE.slice(1000, 1100)]);
  assert.deepEqual(asked, ['bytes=1000-1099', 'bytes=1000-1099']);
  assert.equal(s.retries, 1);
});

test('a short body and a dropped connection are asked for again', async () => {
  const asked = fakeFetch([(r) => partial(r, 10), new TypeError('Failed to fetch'), partial]);
  const s = source();
  assert.equal((await s.read(0, 512)).length, 512);
  assert.equal(asked.length, 3);
  assert.equal(s.retries, 2);
});

test('a server that keeps failing: the read fails after the retries, with its answer', async () => {
  const asked = fakeFetch([() => new Response('', { status: 500, statusText: 'Internal Server Error' })]);
  const s = source();
  await assert.rejects(s.read(2000, 10), (e) => {
    assert.equal(e.message, 'the server answered 500 Internal Server Error for https://files.example/r.flrep');
    return true;
  });
  assert.equal(asked.length, RETRY_MS.length + 1, 'the first request and one per wait');
});

test('an answer that will not change is not asked for again: a 404, a different range', async () => {
  let asked = fakeFetch([() => new Response('', { status: 404, statusText: 'Not Found' })]);
  await assert.rejects(source().read(0, 10), /404 Not Found/);
  assert.equal(asked.length, 1);
  asked = fakeFetch([
    () => new Response(FILE.slice(0, 10), { status: 206, headers: { 'Content-Range': 'bytes 5-14/4096' } }),
  ]);
  await assert.rejects(source().read(0, 10), /a different range/);
  assert.equal(asked.length, 1);
});

test('an abort ends the wait before the next try', async () => {
  const asked = fakeFetch([() => new Response('', { status: 503 })]);
  const s = source();
  const p = s.read(0, 10);
  // The first try failed and the source is waiting before the next (it counts the retry, then waits).
  await until(() => s.retries === 1, 'the first try to fail');
  s.abort();
  await assert.rejects(p, (e) => e.name === 'AbortError');
  assert.equal(asked.length, 1);
});
