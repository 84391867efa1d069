// www/view/labels.ts: the callsign labels over the canvas against a tiny fake DOM and a fake
// renderer: where each label goes, overlap culling by priority (selected / followed always, then
// last frame's), the "+N hidden" count, health marks and the element pool. Run: node --test tests/unit/
import assert from 'node:assert/strict';
import test from 'node:test';
import { BOX_DX, BOX_DY, Labels, MAX_LABELS } from '../../www/view/labels.ts';

/** A fake element: records children, classes, attributes and every style.transform written. */
function fakeElement(tag) {
  const el = {
    tag,
    className: '',
    hidden: false,
    textContent: '',
    dataset: {},
    attrs: {},
    children: [],
    parent: null,
    removed: 0,
    writes: [],
    classes: new Set(),
    setAttribute(k, v) {
      el.attrs[k] = v;
    },
    append(...kids) {
      for (const k of kids) {
        k.parent = el;
        el.children.push(k);
      }
    },
    remove() {
      el.removed++;
      if (el.parent) el.parent.children = el.parent.children.filter((k) => k !== el);
      el.parent = null;
    },
    getContext: () => null, // a canvas without 2D: widths fall back to 7 px a character
  };
  el.classList = {
    toggle: (c, on) => (on ? el.classes.add(c) : el.classes.delete(c)),
    add: (c) => el.classes.add(c),
    remove: (c) => el.classes.delete(c),
  };
  const style = {};
  Object.defineProperty(style, 'transform', {
    get: () => el.writes.at(-1),
    set: (v) => el.writes.push(v),
  });
  el.style = style;
  return el;
}

function fakeDom() {
  const created = [];
  return {
    created,
    document: {
      createElement(tag) {
        const el = fakeElement(tag);
        created.push(el);
        return el;
      },
    },
    getComputedStyle: () => ({ getPropertyValue: () => '', fontFamily: '' }),
  };
}

/** A renderer that drew `ents` ({ id: [x, y, visible] }) nearest first in their key order. */
function fakeRenderer(ents, order = Object.keys(ents).map(Number)) {
  return {
    asked: [],
    labelsNear(max) {
      this.asked.push(max);
      const out = [];
      for (const id of order) if (ents[id][2] === 1) out.push(id, ents[id][0], ents[id][1], 1);
      return out;
    },
    labelOf: (id) => (ents[id] ? [id, ents[id][0], ents[id][1], ents[id][2]] : []),
  };
}

function setup() {
  const parent = fakeElement('main');
  const dom = fakeDom();
  const labels = new Labels(parent, dom);
  const layer = parent.children[0];
  const count = layer.children[0];
  return { parent, dom, labels, layer, count };
}
const names = (ids) => new Map(ids.map((id) => [id, `P${id}`]));
const el = (labels, id) => labels.pool.get(id);
const at = (x, y) => `translate(${x}px, ${y}px)`;

test('the layer goes over the canvas; a label is placed at its entity, rounded, with its callsign', () => {
  const { parent, labels, layer, count } = setup();
  assert.equal(parent.children.length, 1);
  assert.equal(layer.className, 'rp-labels');
  assert.equal(layer.attrs['aria-hidden'], 'true');
  assert.equal(count.className, 'rp-labels-hidden');
  assert.equal(count.hidden, true);
  const r = fakeRenderer({ 7: [100.4, 200.6, 1] });
  labels.place(r, true, names([7]), -1, -1, null, null);
  assert.deepEqual(r.asked, [512]);
  const e = el(labels, 7);
  assert.equal(e.parent, layer);
  assert.equal(e.className, 'rp-label');
  assert.equal(e.dataset.id, '7');
  assert.equal(e.rpName.textContent, 'P7');
  assert.equal(e.hidden, false);
  assert.deepEqual(e.writes, [at(100, 201)]);
  assert.deepEqual([...labels.shown], [7]);
  assert.equal(labels.hidden, 0);
  assert.equal(count.hidden, true);
});

test('overlapping labels: the nearer one wins, the other is counted hidden; unnamed ones are not', () => {
  const { labels, count } = setup();
  // 1 and 2 overlap (5 px apart); 3 is far below; 4 has no callsign.
  const r = fakeRenderer({ 1: [100, 100, 1], 2: [105, 105, 1], 3: [100, 300, 1], 4: [400, 400, 1] });
  labels.place(r, true, names([1, 2, 3]), -1, -1, null, null);
  assert.deepEqual([...labels.shown].sort(), [1, 3]);
  assert.equal(labels.pool.has(2), false, 'no element made for a culled label');
  assert.equal(labels.pool.has(4), false);
  assert.equal(labels.hidden, 1);
  assert.equal(count.hidden, false);
  assert.equal(count.textContent, '+1 hidden');
});

test('boxes only cull where they really overlap: just touching edges both show', () => {
  const { labels } = setup();
  // "P1" is 2 chars → 2 * 7 + 12 = 26 px wide, 22 px tall; next box starts exactly at x1 / y1.
  const r = fakeRenderer({ 1: [0, 0, 1], 2: [26, 0, 1], 3: [0, 22, 1], 4: [25, 21, 1] });
  labels.place(r, true, names([1, 2, 3, 4]), -1, -1, null, null);
  assert.deepEqual([...labels.shown].sort(), [1, 2, 3]);
  assert.equal(labels.hidden, 1);
  assert.equal(BOX_DX, 10);
  assert.equal(BOX_DY, -24);
});

test('the selected and followed labels always show, over nearer ones; selected is marked', () => {
  const { labels } = setup();
  const ents = { 1: [100, 100, 1], 2: [104, 102, 1], 3: [98, 99, 1], 9: [500, 500, 0] };
  const r = fakeRenderer(ents);
  labels.place(r, true, names([1, 2, 3, 9]), 2, 3, null, null);
  // 2 and 3 overlap each other too: the selected one is placed first, the followed one only where
  // it fits, then the rest.
  assert.ok(labels.shown.has(2), 'selected shown over the nearer 1');
  assert.equal(labels.shown.has(1), false);
  assert.equal(labels.shown.has(3), false);
  assert.equal(el(labels, 2).classes.has('selected'), true);
  assert.equal(labels.hidden, 2);

  // Followed far from the crowd: shown too, not marked selected; an off-screen one is not forced.
  const s = setup();
  const r2 = fakeRenderer({ 1: [100, 100, 1], 2: [104, 102, 1], 3: [300, 300, 1], 9: [500, 500, 0] }, [1, 2]);
  s.labels.place(r2, true, names([1, 2, 3, 9]), 2, 3, null, null);
  assert.deepEqual([...s.labels.shown], [2, 3]);
  assert.equal(el(s.labels, 3).classes.has('selected'), false);
  s.labels.place(r2, true, names([1, 2, 3, 9]), 9, -1, null, null);
  assert.equal(s.labels.shown.has(9), false, 'invisible selected entity: no label');
  assert.equal(el(s.labels, 2).classes.has('selected'), false, 'the mark moves off');
});

test('priority: recent events first, then last frame’s labels (no flicker), then nearest', () => {
  const { labels } = setup();
  const r = fakeRenderer({ 1: [100, 100, 1], 2: [104, 102, 1] });
  labels.place(r, true, names([1, 2]), -1, -1, null, new Set([2]));
  assert.deepEqual([...labels.shown], [2], 'recent beats nearest');
  labels.place(r, true, names([1, 2]), -1, -1, null, null);
  assert.deepEqual([...labels.shown], [2], 'last frame’s label stays');
  labels.place(r, true, names([1, 2]), 1, -1, null, null);
  assert.deepEqual([...labels.shown], [1]);
  assert.equal(el(labels, 2).hidden, true, 'the displaced label hides');
});

test('at most MAX_LABELS labels; the rest are counted', () => {
  const { labels, count } = setup();
  const ents = {};
  for (let i = 0; i < MAX_LABELS + 10; i++) ents[i] = [(i % 10) * 100, Math.floor(i / 10) * 40, 1];
  labels.place(fakeRenderer(ents), true, names(Object.keys(ents).map(Number)), -1, -1, null, null);
  assert.equal(labels.shown.size, MAX_LABELS);
  assert.equal(labels.hidden, 10);
  assert.equal(count.textContent, '+10 hidden');
});

test('health bar and dead mark from the frame; written only when they change', () => {
  const { labels } = setup();
  const frame = new Int32Array(16 * 2);
  frame[0] = 4;
  frame[13] = 8000; // 80 %
  frame[14] = 1; // alive
  frame[16] = 5;
  frame[16 + 13] = 2500; // 25 %
  frame[16 + 14] = 0; // dead
  const r = fakeRenderer({ 4: [0, 0, 1], 5: [0, 200, 1] });
  labels.place(r, true, names([4, 5]), -1, -1, frame, null);
  const a = el(labels, 4);
  const b = el(labels, 5);
  assert.deepEqual(a.rpFill.writes, ['scaleX(0.8)']);
  assert.equal(a.rpFill.classes.size, 0);
  assert.equal(a.classes.has('dead'), false);
  assert.deepEqual(b.rpFill.writes, ['scaleX(0.25)']);
  assert.deepEqual([...b.rpFill.classes], ['low']);
  assert.equal(b.classes.has('dead'), true);
  frame[13] = 5000;
  labels.place(r, true, names([4, 5]), -1, -1, frame, null);
  assert.deepEqual(a.rpFill.writes, ['scaleX(0.8)', 'scaleX(0.5)']);
  assert.deepEqual([...a.rpFill.classes], ['mid']);
  assert.deepEqual(b.rpFill.writes, ['scaleX(0.25)'], 'unchanged: not written again');
  assert.deepEqual(a.writes, [at(0, 0)], 'unmoved: transform not written again');
});

test('pool: a label hidden and shown again reuses its element; only moves are written', () => {
  const { dom, labels, layer } = setup();
  const ents = { 1: [10, 10, 1] };
  const r = fakeRenderer(ents);
  labels.place(r, true, names([1]), -1, -1, null, null);
  const e = el(labels, 1);
  const made = dom.created.length;
  labels.place(null, true, names([1]), -1, -1, null, null);
  assert.equal(e.hidden, true, 'no renderer: every label hides');
  labels.place(r, false, names([1]), -1, -1, null, null);
  assert.equal(e.hidden, true, 'no frame shown: every label hides');
  ents[1] = [30, 10, 1];
  labels.place(r, true, names([1]), -1, -1, null, null);
  assert.equal(el(labels, 1), e);
  assert.equal(e.hidden, false);
  assert.equal(dom.created.length, made, 'no new elements');
  assert.deepEqual(e.writes, [at(10, 10), at(30, 10)]);
  assert.equal(layer.children.filter((k) => k.className === 'rp-label').length, 1);
});

test('pool: past 160 elements the hidden ones are removed, never a shown one; clear() empties it', () => {
  const { labels, layer, count } = setup();
  let next = 0;
  const frameOf = () => {
    const ents = {};
    for (let i = 0; i < MAX_LABELS; i++) ents[next++] = [(i % 8) * 100, Math.floor(i / 8) * 40, 1];
    return ents;
  };
  const all = [];
  for (let f = 0; f < 3; f++) {
    const ents = frameOf();
    labels.place(fakeRenderer(ents), true, names(Object.keys(ents).map(Number)), -1, -1, null, null);
    all.push(...Object.keys(ents).map(Number));
  }
  assert.equal(labels.pool.size, 160, '192 made, trimmed to 160');
  for (const id of labels.shown) assert.ok(labels.pool.has(id));
  assert.equal(labels.shown.size, MAX_LABELS);
  const gone = all.filter((id) => !labels.pool.has(id));
  assert.deepEqual(gone, all.slice(0, 32), 'the oldest hidden ones go first');
  assert.equal(layer.children.length, 1 + 160);
  const kept = [...labels.pool.values()];
  labels.clear();
  assert.equal(labels.pool.size, 0);
  assert.equal(labels.shown.size, 0);
  assert.equal(labels.hidden, 0);
  assert.equal(count.hidden, true);
  assert.ok(kept.every((k) => k.removed === 1));
  assert.deepEqual(layer.children, [count]);
});

test('remove() takes the layer off the page', () => {
  const { parent, labels } = setup();
  labels.remove();
  assert.deepEqual(parent.children, []);
});
