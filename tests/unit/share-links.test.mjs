// www/features/share/links.ts: the Share dialog's links and embed snippets, as text. Values from a file
// (a callsign) must not break out of an attribute or a script. Run: node --test tests/unit/
import assert from 'node:assert/strict';
import test from 'node:test';
import {
  createOptions,
  embedSnippets,
  escapeAttr,
  jsValue,
  linkUrl,
  pageLink,
  timeParams,
} from '../../www/features/share/links.ts';
import { readOptions } from '../../www/api/options.ts';

const BASE = 'https://host.example/player/';
const URL_ = 'https://host.example/player/replays/final.flrep';

test('a replay under the player folder is linked relative to it; others whole', () => {
  assert.equal(linkUrl(URL_, BASE), 'replays/final.flrep');
  assert.equal(linkUrl('https://cdn.example/a.flrep', BASE), 'https://cdn.example/a.flrep');
  assert.equal(linkUrl('https://host.example/other/a.flrep', BASE), 'https://host.example/other/a.flrep');
  // Not relative addresses once cut: kept whole.
  assert.equal(linkUrl('https://host.example/player//x.flrep', BASE), 'https://host.example/player//x.flrep');
  assert.equal(linkUrl('https://host.example/player/a:b.flrep', BASE), 'https://host.example/player/a:b.flrep');
  assert.equal(linkUrl('', BASE), '');
});

test('a link to a moment reads back as the same options (readOptions)', () => {
  const o = {
    url: URL_,
    t: { seconds: 95.2 },
    follow: 'Viper & co',
    camera: 'orbit',
    view: [1, 2, 3, 0.5, 0.25, 1200],
    speed: 4,
    spoilers: false,
  };
  const link = pageLink(BASE, o);
  assert.ok(link.startsWith(`${BASE}?url=replays%2Ffinal.flrep&t=95.2&`), link);
  const back = readOptions(new URL(link).searchParams);
  assert.deepEqual(back.notices, []);
  assert.deepEqual(back.options, {
    url: 'replays/final.flrep',
    t: { seconds: 95.2 },
    follow: 'Viper & co',
    camera: 'orbit',
    view: [1, 2, 3, 0.5, 0.25, 1200],
    speed: 4,
    spoilers: false,
  });
  const clip = pageLink(BASE, { url: URL_, t: { seconds: 10 }, end: { seconds: 20.5 }, loop: true });
  assert.equal(clip, `${BASE}?url=replays%2Ffinal.flrep&t=10&end=20.5&loop=1`);
});

test('a file from the disk gets the time-only parameters', () => {
  assert.equal(timeParams({ t: { seconds: 95.2 }, end: { seconds: 100 } }), '?t=95.2&end=100');
  assert.equal(timeParams({ url: URL_, t: { seconds: 1 } }), '?t=1', 'never the url');
  assert.equal(timeParams({}), '');
});

test('create() options mirror the link, with numbers and booleans', () => {
  assert.deepEqual(
    createOptions({
      url: URL_,
      t: { tick: 5712 },
      end: { seconds: 100 },
      loop: true,
      view: [0.5, 0.2, 300],
      speed: 2,
      spoilers: false,
      autoplay: true,
    }),
    { t: 'tick:5712', end: 100, loop: true, view: [0.5, 0.2, 300], speed: 2, autoplay: true, spoilers: false },
  );
  // create() reads them as the link does.
  assert.deepEqual(readOptions(createOptions({ t: { seconds: 3 }, camera: 'free' })).options, {
    t: { seconds: 3 },
    camera: 'free',
  });
});

test('the three embed snippets: iframe of embed.html, a module script, the element', () => {
  const s = embedSnippets(BASE, { url: URL_, t: { seconds: 95.2 }, follow: 'Viper', loop: true, spoilers: false });
  assert.equal(
    s.iframe,
    `<iframe src="${BASE}embed.html?url=replays%2Ffinal.flrep&amp;t=95.2&amp;loop=1&amp;follow=Viper&amp;spoilers=0" width="640" height="360" title="Replay" allow="fullscreen" allowfullscreen></iframe>`,
  );
  assert.match(s.script, /^<div id="replay"><\/div>\n<script type="module">\n/);
  assert.ok(s.script.includes(`import { create } from "${BASE}player.js";`), s.script);
  assert.ok(
    s.script.includes(
      `create("${URL_}", document.getElementById("replay"), { t: 95.2, loop: true, follow: "Viper", spoilers: false });`,
    ),
    s.script,
  );
  assert.equal(
    s.element,
    `<script type="module" src="${BASE}element.js"></script>\n<replay-player src="${URL_}" t="95.2" loop follow="Viper" spoilers="off"></replay-player>`,
  );
});

test('a hostile callsign stays text in every snippet', () => {
  const evil = '"><script>alert(1)</script><x a="';
  const s = embedSnippets(BASE, { url: URL_, t: { seconds: 1 }, follow: evil });
  for (const [name, text] of Object.entries(s)) {
    assert.ok(!text.includes('<script>alert'), `${name}: ${text}`);
    assert.ok(!text.includes('<x a='), `${name}: ${text}`);
  }
  // The script's literal still says the same callsign.
  const lit = /follow: ("(?:[^"\\]|\\.)*")/.exec(s.script)[1];
  assert.equal(JSON.parse(lit), evil);
  assert.equal(escapeAttr('a&b"<>'), 'a&amp;b&quot;&lt;&gt;');
  assert.equal(jsValue('</script>\u2028'), '"\\u003c/script>\\u2028"');
});
