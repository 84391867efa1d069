// Host pages for tests/e2e/embed.test.mjs: a site on its own origin that embeds the player served
// from another one. Each page's script is a file of its own (the host's CSP has no
// 'unsafe-inline'); sizes and layout are set through the CSSOM (no inline styles either). The
// pages read where the player and the replays are from their query: ?player=<origin>/&replays=<origin>/.
import fs from 'node:fs';
import path from 'node:path';

const page = (title, script, body) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title}</title>
  <script type="module" src="${script}"></script>
</head>
<body>
  <h1>${title}</h1>
  <p><input id="search" placeholder="The host page's own input"></p>
${body}
</body>
</html>
`;

// What every host script shares: the query, and the replay's address on the replay origin (a
// query names the player, so that the replay server's log tells the players' requests apart).
const COMMON = `const q = new URLSearchParams(location.search);
const replay = (who) => \`\${q.get('replays')}demo/demo.flrep?p=\${who}\`;
`;

export const HOSTS = {
  // (i) the iframe form, driven only through postMessage; window.__host records what arrives.
  'iframe.html': page('iframe host', 'iframe.js', '  <div id="frames"></div>'),
  'iframe.js': `${COMMON}
const frames = new Map();
window.__host = {
  events: [],
  /** Adds an iframe on embed.html with \`query\` (the replay is added as url=), w × h px. */
  frame(name, query, w = 640, h = 360) {
    const f = document.createElement('iframe');
    f.title = name;
    f.width = String(w);
    f.height = String(h);
    f.allow = 'fullscreen';
    f.src = \`\${q.get('player')}embed.html?url=\${encodeURIComponent(replay(name))}&\${query}\`;
    frames.set(name, f);
    document.getElementById('frames').append(f);
  },
  send(name, command, args, id) {
    frames.get(name).contentWindow.postMessage({ type: 'replay-player:command', command, args, id }, '*');
  },
  raw(name, data) {
    frames.get(name).contentWindow.postMessage(data, '*');
  },
};
addEventListener('message', (e) => {
  for (const [name, f] of frames)
    if (e.source === f.contentWindow) window.__host.events.push({ frame: name, origin: e.origin, ...e.data });
});
`,
  // (ii) the script form.
  'script.html': page('script host', 'script.js', '  <div id="player"></div>'),
  'script.js': `${COMMON}
const { create } = await import(\`\${q.get('player')}player.js\`);
const el = document.getElementById('player');
el.style.width = '640px';
window.__p = create(replay('script'), el, { t: 10 });
`,
  // (iii) the custom element; window.__events records its DOM events.
  'element.html': page('element host', 'element.js', '  <div id="box"></div>'),
  'element.js': `${COMMON}
await import(\`\${q.get('player')}element.js\`);
window.__events = [];
const el = document.createElement('replay-player');
el.id = 'rp';
el.style.width = '640px';
for (const ev of ['ready', 'play', 'pause', 'seeked', 'timeupdate', 'notice', 'cameramode'])
  el.addEventListener(ev, (e) => window.__events.push({ type: ev, detail: e.detail, custom: e instanceof CustomEvent }));
el.setAttribute('src', replay('element'));
el.setAttribute('t', '10');
el.setAttribute('spoilers', 'off');
document.getElementById('box').append(el);
`,
  // A live match (?live=<manifest URL>) in the script form and the custom element, side by side.
  'live.html': page('live host', 'live.js', '  <div id="row"></div>'),
  'live.js': `const q = new URLSearchParams(location.search);
const live = q.get('live');
const row = document.getElementById('row');
const { create } = await import(\`\${q.get('player')}player.js\`);
const d = document.createElement('div');
d.style.width = '480px';
row.append(d);
window.__script = create({ live }, d);
await import(\`\${q.get('player')}element.js\`);
const el = document.createElement('replay-player');
el.id = 'rp';
el.style.width = '480px';
el.setAttribute('live', live);
row.append(el);
`,
  // Several players: three side by side, a fourth far below the fold.
  'several.html': page('several players', 'several.js', '  <div id="row"></div>\n  <div id="far"></div>'),
  'several.js': `${COMMON}
const { create } = await import(\`\${q.get('player')}player.js\`);
const row = document.getElementById('row');
row.style.display = 'flex';
row.style.gap = '8px';
const far = document.getElementById('far');
far.style.marginTop = '3000px';
far.style.width = '400px';
const make = (who, opts, parent = row) => {
  const d = document.createElement('div');
  d.style.width = '400px';
  d.style.flex = 'none';
  parent.append(d);
  return create(replay(who), d, opts);
};
window.__players = {
  a: make('a', { t: 5 }),
  b: make('b', { t: 30 }),
  c: make('c', { poster: 40 }),
  off: make('off', { t: 10 }, far),
};
`,
};

/** Writes the host pages into `dir` (and an icon, so that the browser's request finds one). */
export function writeHosts(dir, icon) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(HOSTS)) fs.writeFileSync(path.join(dir, name), text);
  fs.copyFileSync(icon, path.join(dir, 'favicon.ico'));
}
