// www/api/options.ts: the option vocabulary of share links, embed.html, create() and <replay-player>.
import assert from 'node:assert/strict';
import test from 'node:test';
import { parseTime, readOptions } from '../../www/api/options.ts';
import { formatTime, linkQuery } from '../../www/api/links.ts';

test('parseTime reads seconds, m:ss, h:mm:ss, 1m35s and tick:N', () => {
  assert.deepEqual(parseTime('95.2'), { seconds: 95.2 });
  assert.deepEqual(parseTime('1:35.2'), { seconds: 95.2 });
  assert.deepEqual(parseTime('0:05'), { seconds: 5 });
  assert.deepEqual(parseTime('1:02:03.5'), { seconds: 3723.5 });
  assert.deepEqual(parseTime('90:00'), { seconds: 5400 });
  assert.deepEqual(parseTime('1m35s'), { seconds: 95 });
  assert.deepEqual(parseTime('2h'), { seconds: 7200 });
  assert.deepEqual(parseTime('tick:5712'), { tick: 5712 });
  assert.deepEqual(parseTime(' TICK:0 '), { tick: 0 });
  assert.deepEqual(parseTime(12), { seconds: 12 });
});

test('parseTime refuses what is not a time', () => {
  for (const bad of [
    '',
    ' ',
    'abc',
    '-5',
    '1:60',
    '1:75:00',
    'tick:',
    'tick:-1',
    'tick:1.5',
    '1e3',
    'NaN',
    'Infinity',
    '1:2:3:4',
    'm',
    '1.2.3',
    '9'.repeat(40),
    'tick:9999999999999999',
  ]) {
    assert.equal(parseTime(bad), null, `"${bad}" is not a time`);
  }
  for (const bad of [-1, NaN, Infinity, null, undefined, {}, [], true]) assert.equal(parseTime(bad), null, String(bad));
});

test('formatTime writes what parseTime reads back', () => {
  for (const t of [{ seconds: 95.2 }, { seconds: 0 }, { seconds: 3723.125 }, { tick: 5712 }]) {
    assert.deepEqual(parseTime(formatTime(t)), t);
  }
  assert.equal(formatTime({ seconds: 1 / 3 }), '0.333');
  assert.equal(formatTime({ seconds: -4 }), '0');
});

test('readOptions reads every option from URL parameters', () => {
  const q = new URLSearchParams(
    'url=https://cdn.example/m.flrep&t=1:35.2&end=tick:9000&loop=1&follow=Iceman&camera=follow&view=1.5,-2,300' +
      '&speed=2&autoplay=1&spoilers=0&controls=0&panels=roster,kills&poster=12&origin=https://host.example&aspect=4:3',
  );
  const { options, notices } = readOptions(q);
  assert.deepEqual(notices, []);
  assert.deepEqual(options, {
    url: 'https://cdn.example/m.flrep',
    t: { seconds: 95.2 },
    end: { tick: 9000 },
    loop: true,
    follow: 'Iceman',
    camera: 'follow',
    view: [1.5, -2, 300],
    speed: 2,
    autoplay: true,
    spoilers: false,
    controls: false,
    panels: ['roster', 'kills'],
    poster: { seconds: 12 },
    origin: ['https://host.example'],
    aspect: 4 / 3,
  });
});

test('readOptions ignores malformed and unknown values with a notice each, and never throws', () => {
  const q = new URLSearchParams(
    't=soon&camera=drone&speed=3&loop=maybe&view=1,x&panels=chat&origin=javascript:alert(1)&aspect=99&wat=1&__proto__=x',
  );
  const { options, notices } = readOptions(q);
  assert.deepEqual(options, {});
  assert.equal(notices.length, 10, notices.join('\n'));
  assert.match(notices[0], /^Ignored t=soon: use seconds/);
  assert.ok(notices.some((n) => n === 'Ignored the unknown parameter "wat".'));
  assert.ok(notices.some((n) => n === 'Ignored the unknown parameter "__proto__".'));
  assert.equal(Object.getPrototypeOf(options), Object.prototype, 'no prototype key was written');
  // Page parameters are the page's, not options, and not noticed.
  assert.deepEqual(readOptions(new URLSearchParams('renderer=webgl&render=page')), { options: {}, notices: [] });
});

test('readOptions takes create()/attribute values: typed values, bare attributes, aliases', () => {
  const { options, notices } = readOptions({ src: 'a.flrep', t: 12, autoplay: '', spoilers: 'off', forceWebgl: true });
  assert.deepEqual(notices, [], 'a page setting in the options object is not noticed');
  assert.deepEqual(options, { url: 'a.flrep', t: { seconds: 12 }, autoplay: true, spoilers: false });
  assert.deepEqual(readOptions(null), { options: {}, notices: [] });
  assert.deepEqual(readOptions('t=5'), { options: {}, notices: [] });
});

test('readOptions refuses oversized text and shows notices on one short line', () => {
  const huge = `${'A'.repeat(5000)}\n<b>`;
  const { options, notices } = readOptions(new URLSearchParams({ follow: huge }));
  assert.equal(options.follow, undefined);
  assert.equal(notices.length, 1);
  assert.ok(!notices[0].includes('\n'));
  assert.ok(notices[0].length < 120, notices[0]);
});

test('linkQuery writes a link that readOptions reads back', () => {
  const o = {
    url: 'https://cdn.example/a b.flrep',
    t: { seconds: 95.2 },
    end: { seconds: 120 },
    loop: true,
    follow: 'Ice man',
    camera: 'orbit',
    view: [0.12345678, 2, -3],
    speed: 4,
    spoilers: false,
  };
  const q = linkQuery(o);
  assert.ok(q.startsWith('url=https%3A%2F%2Fcdn.example%2Fa+b.flrep&t=95.2&end=120&loop=1'), q);
  const back = readOptions(new URLSearchParams(q));
  assert.deepEqual(back.notices, []);
  assert.deepEqual(back.options, { ...o, view: [0.1235, 2, -3] });
  assert.equal(linkQuery({ t: { tick: 5 }, speed: 1 }), 't=tick%3A5', 'speed 1 is the default: left out');
});
