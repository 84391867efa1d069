// A plain host page for tests/bench/players.mjs: `?n=N` players made with create(), each on its own
// element, all opening the demo (served from the repository root: this page is at
// /tests/bench/players/, the build at /<www>/ with `?www=` (default dist)); `&render=page` draws on
// the page (create()'s renderInPage) instead of in a render worker per player.
const q = new URLSearchParams(location.search);
const n = Math.max(0, Math.min(8, Number(q.get('n') ?? 1)));
const www = /^[\w./-]+$/.test(q.get('www') ?? '') ? q.get('www') : 'dist';
const renderInPage = q.get('render') === 'page';
const { create } = await import(`../../../${www}/player.js`);
window.__players = [];
for (let i = 0; i < n; i++) {
  const el = document.createElement('div');
  el.className = 'player';
  document.getElementById('players').append(el);
  window.__players.push(create(`../../../${www}/demo/demo.flrep`, el, { renderInPage }));
}
window.__made = true;
