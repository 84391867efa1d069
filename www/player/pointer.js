// The pointer on the canvas: a drag orbits, a pinch or the wheel zooms, a click (a press that did
// not move) picks the entity under it, selects and follows it (docs/playback.md, "Camera modes").

/**
 * Listens on `player.element` for the pointer on `player.canvas` (which a new renderer may
 * replace) and drives `player.renderer`. Returns the function that stops listening.
 * @param {import('./core.js').Core} player
 */
export function bindPointer(player) {
  const pointers = new Map();
  let pinch = 0;
  let down = null;
  const local = (e) => {
    const r = player.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const onDown = (e) => {
    if (e.target !== player.canvas) return;
    player.canvas.setPointerCapture?.(e.pointerId);
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    down = pointers.size === 1 ? { x: e.clientX, y: e.clientY, moved: false } : null;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = Math.hypot(a.x - b.x, a.y - b.y);
    }
  };
  const onMove = (e) => {
    const p = pointers.get(e.pointerId);
    const r = player.renderer;
    if (!p || !r) return;
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    p.x = e.clientX;
    p.y = e.clientY;
    if (pointers.size === 1) {
      if (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) down.moved = true;
      if (!down || down.moved) r.orbit(dx, dy);
    } else if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      r.zoom((pinch - d) * 4);
      pinch = d;
    }
  };
  const onUp = (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.delete(e.pointerId);
    if (down && !down.moved && e.type === 'pointerup' && player.renderer) {
      const { x, y } = local(e);
      player.renderer.request('pick', x, y).then(
        (id) => {
          if (!player.disposed) player.camera.select(id, { follow: id >= 0 });
        },
        () => {},
      );
    }
    down = null;
  };
  const onWheel = (e) => {
    if (e.target !== player.canvas || !player.renderer) return;
    e.preventDefault();
    const scale = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
    player.renderer.zoom(e.deltaY * scale);
  };
  const el = player.element;
  el.addEventListener('pointerdown', onDown);
  el.addEventListener('pointermove', onMove);
  el.addEventListener('pointerup', onUp);
  el.addEventListener('pointercancel', onUp);
  el.addEventListener('wheel', onWheel, { passive: false });
  return () => {
    el.removeEventListener('pointerdown', onDown);
    el.removeEventListener('pointermove', onMove);
    el.removeEventListener('pointerup', onUp);
    el.removeEventListener('pointercancel', onUp);
    el.removeEventListener('wheel', onWheel);
  };
}
