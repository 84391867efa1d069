// Whether a player's element has come into view (docs/embedding.md "Several players"): a player
// below the fold opens its recording (the info only: header, sections, trailer) but asks the
// worker for no chunk and starts no renderer until it is scrolled near the viewport. Once in view
// it stays started (scrolling away pauses nothing).

/** How near the viewport (CSS px) counts as in view: decoding starts just before it shows. */
export const VIEW_MARGIN_PX = 200;

/**
 * Calls `fn` once, when `element` is in (or within VIEW_MARGIN_PX of) the viewport: at once when
 * it is already there on a top-level page (no frame of delay for the full page), else on the
 * IntersectionObserver's word (a framed page's observer knows where the top-level viewport is).
 * Returns the function that stops watching (dispose).
 */
export function whenInView(element: Element, fn: () => void): () => void {
  if (typeof IntersectionObserver === 'undefined' || inViewNow(element)) {
    fn();
    return () => {};
  }
  const io = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      io.disconnect();
      fn();
    },
    { rootMargin: `${VIEW_MARGIN_PX}px` },
  );
  io.observe(element);
  return () => io.disconnect();
}

/** In view now, as far as a top-level page can tell from the layout (a framed page cannot). */
function inViewNow(element: Element): boolean {
  if (window.top !== window || !element.isConnected || element.getClientRects().length === 0) return false;
  const r = element.getBoundingClientRect();
  const m = VIEW_MARGIN_PX;
  return r.bottom >= -m && r.top <= window.innerHeight + m && r.right >= -m && r.left <= window.innerWidth + m;
}
