// Small formatting helpers for the UI (pure functions).

/** Seconds as mm:ss.s (h:mm:ss.s from one hour). */
export function fmtTime(s: number): string {
  if (!Number.isFinite(s) || s < 0) s = 0;
  const tenths = Math.floor(s * 10 + 1e-6);
  const t = tenths % 10;
  const total = Math.floor(tenths / 10);
  const sec = total % 60;
  const min = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600);
  const mm = String(min).padStart(2, '0');
  const ss = String(sec).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}.${t}` : `${mm}:${ss}.${t}`;
}

export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1048576).toFixed(1)} MiB`;
  return `${(n / 1073741824).toFixed(2)} GiB`;
}

export function fmtDuration(s: number): string {
  if (!Number.isFinite(s)) return '';
  if (s < 60) return `${s.toFixed(1)} s`;
  const total = Math.round(s);
  const m = Math.floor(total / 60);
  const r = total % 60;
  if (m < 60) return r ? `${m} min ${r} s` : `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** A heading in whole degrees, 001–360 as instruments write it (0 reads 360). */
export function fmtHeading(deg: number): string {
  const d = Math.round(((deg % 360) + 360) % 360) || 360;
  return String(d).padStart(3, '0');
}

/** An altitude as the inspector shows it: state `st` of entityState(). */
export function fmtAltitude(st: { altitude?: number; pos: ArrayLike<number> }): string {
  if (st.altitude === undefined) return `${st.pos[2].toFixed(1)} m (z)`;
  const v = st.altitude;
  return Math.abs(v) >= 100000 ? `${(v / 1000).toFixed(1)} km` : `${v.toFixed(1)} m`;
}

/** A speed as the inspector shows it. */
export function fmtSpeed(mps: number): string {
  return `${mps.toFixed(1)} m/s · ${(mps * 3.6).toFixed(0)} km/h`;
}

/** Creates an element with a class and text (never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string | null,
  text?: unknown,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

/** Sets `node`'s text only when it differs (the same text set again still replaces the text node
 *  and lays it out again: the panels refresh several times a second). */
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}
