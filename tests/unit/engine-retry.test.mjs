// The engine tests' one retry (tests/engines/retry.mjs): a scenario whose engine died or hung runs
// once more only after the first try's engine was stopped, and the retry is named; anything else,
// and a second failure, fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withDeadline, withOneRetry } from '../../tests/engines/retry.mjs';

/** A fake engine: calls that wait until it is closed, then fail as a quit session's do. */
function fakeEngine() {
  const waiting = [];
  return {
    closed: false,
    call() {
      if (this.closed) return Promise.reject(new Error('invalid session id'));
      return new Promise((_, reject) => waiting.push(reject));
    },
    close() {
      this.closed = true;
      for (const r of waiting.splice(0)) r(new Error('invalid session id'));
    },
  };
}

const died = (e) => /did not finish|invalid session id/.test(e.message);

test('a hang: the first try is stopped with its engine before the second starts, and the retry is named', async () => {
  let engine = fakeEngine();
  const first = engine;
  const log = [];
  let tries = 0;
  let firstEnded = null;
  const attempt = async () => {
    tries++;
    if (tries === 1) {
      // Hangs in the page until its engine goes.
      await engine.call().catch((e) => {
        firstEnded = { engineClosed: first.closed, secondStarted: tries > 1, message: e.message };
        throw e;
      });
      log.push('the first try went on');
    }
    return 'passed';
  };
  const r = await withOneRetry(attempt, {
    ms: 50,
    died,
    lastCall: () => 'play()',
    restart: async () => {
      engine.close();
      engine = fakeEngine();
      log.push('restarted');
    },
    onRetry: (why) => log.push(`retry: ${why}`),
  });
  assert.equal(r, 'passed');
  assert.equal(tries, 2);
  assert.deepEqual(firstEnded, { engineClosed: true, secondStarted: false, message: 'invalid session id' });
  assert.deepEqual(log, ['restarted', 'retry: the scenario did not finish in 50 ms (last in the page: play())']);
});

test("the player's own failure is not retried; a second death fails", async () => {
  let restarts = 0;
  const opts = { ms: 1000, died, restart: async () => restarts++, onRetry: () => {} };
  await assert.rejects(
    withOneRetry(async () => {
      throw new Error('in WebKit: the clock did not move');
    }, opts),
    /the clock did not move/,
  );
  assert.equal(restarts, 0);
  await assert.rejects(
    withOneRetry(async () => {
      throw new Error('invalid session id');
    }, opts),
    /invalid session id/,
  );
  assert.equal(restarts, 1, 'retried once, then failed');
});

test('withDeadline: the promise, or a named timeout', async () => {
  assert.equal(await withDeadline(Promise.resolve(3), 1000), 3);
  await assert.rejects(
    withDeadline(new Promise(() => {}), 20, () => 'seek(30)'),
    /did not finish in 20 ms \(last in the page: seek\(30\)\)/,
  );
});
