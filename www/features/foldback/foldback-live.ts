// Live mode (docs/format/foldback.md "Live mode"): a WebSocket to the game (ws://127.0.0.1:PORT or
// any ws/wss URL). Text messages (hello / goodbye) and binary frames are forwarded in arrival order
// to the decoder worker, where every binary message goes through the wasm `parse_frame` (the same
// parser as files). Bounded: a message over MAX_MESSAGE is refused, and past MAX_QUEUE_* pending
// messages new ones are dropped with a visible warning (the page never freezes on a flood).
// Reconnects with backoff when the game goes away; each connection starts with a new hello, which
// starts a new session in the view (save the previous one first).

export const MAX_MESSAGE = 16 * 1024 * 1024;
export const MAX_QUEUE_MESSAGES = 100_000;
export const MAX_QUEUE_BYTES = 64 * 1024 * 1024;
const FLUSH_MS = 100;
const BACKOFF_MS = [500, 1000, 2000, 4000, 5000];

/** The decoder worker's client (www/bridge/: `new WorkerClient(o)`), as the divergence view calls it (fb* methods). */
export interface FoldbackClient {
  call(method: string, params: object): Promise<unknown>;
  notify(method: string, params: object): void;
}

/** A control message the decoder read (`fbLiveControl`): the game's hello or goodbye. */
export interface LiveControl {
  type: string;
  reason?: string;
}

/** createLive()'s options: the client, and what it tells the view. */
export interface FoldbackLiveOptions {
  client: FoldbackClient;
  onStatus?: (text: string, kind: string) => void;
  onHello?: (hello: LiveControl) => void;
  onData?: () => void;
  onWarning?: (message: string) => void;
}

/** Live mode's connection: createLive()'s answer. */
export type FoldbackLive = ReturnType<typeof createLive>;

export function createLive({ client, onStatus, onHello, onData, onWarning }: FoldbackLiveOptions) {
  let ws: WebSocket | null = null;
  let url = '';
  let wanted = false;
  let attempt = 0;
  let retryTimer = 0;
  let queue: (string | ArrayBuffer)[] = [];
  let queueBytes = 0;
  let flushing = false;
  let dropped = 0;
  let refused = 0;
  let haveHello = false;

  const status = (t: string, k: string) => onStatus?.(t, k);

  function connect(u: string) {
    if (!/^wss?:\/\//i.test(u)) {
      onWarning?.(`not a WebSocket URL: ${u} (use ws://127.0.0.1:PORT)`);
      return;
    }
    disconnect();
    url = u;
    wanted = true;
    attempt = 0;
    dropped = 0;
    refused = 0;
    open();
  }

  function open() {
    clearTimeout(retryTimer);
    status(`connecting to ${url}…`, 'connecting');
    let sock: WebSocket;
    try {
      sock = new WebSocket(url);
    } catch (e) {
      onWarning?.(`cannot connect: ${(e as Error).message}`);
      wanted = false;
      status('disconnected', 'disconnected');
      return;
    }
    sock.binaryType = 'arraybuffer';
    haveHello = false;
    ws = sock;
    sock.onopen = () => {
      attempt = 0;
      status(`connected to ${url}`, 'connected');
    };
    sock.onmessage = (ev: MessageEvent<string | ArrayBuffer>) => {
      if (sock !== ws) return;
      const size = typeof ev.data === 'string' ? ev.data.length : ev.data.byteLength;
      if (size > MAX_MESSAGE) {
        refused++;
        onWarning?.(`refused a ${size}-byte message: over the ${MAX_MESSAGE}-byte limit (${refused} refused)`);
        return;
      }
      if (queue.length >= MAX_QUEUE_MESSAGES || queueBytes + size > MAX_QUEUE_BYTES) {
        dropped++;
        if (dropped === 1 || dropped % 1000 === 0)
          onWarning?.(
            `the game sends faster than the page can read: ${dropped} messages dropped (their ticks show as missing)`,
          );
        return;
      }
      queue.push(ev.data);
      queueBytes += size;
      schedule();
    };
    sock.onclose = () => {
      if (sock !== ws) return;
      ws = null;
      if (!wanted) {
        status('disconnected', 'disconnected');
        return;
      }
      const wait = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
      attempt++;
      status(`disconnected — reconnecting in ${(wait / 1000).toFixed(1)} s (attempt ${attempt})`, 'reconnecting');
      retryTimer = setTimeout(open, wait);
    };
    sock.onerror = () => {};
  }

  let flushTimer = 0;
  function schedule() {
    if (!flushTimer) flushTimer = setTimeout(flush, FLUSH_MS);
  }

  async function flush() {
    flushTimer = 0;
    if (flushing) return schedule();
    flushing = true;
    const batch = queue;
    queue = [];
    queueBytes = 0;
    let changed = false;
    try {
      let bin: ArrayBuffer[] = [];
      const pushBin = async () => {
        if (bin.length === 0) return;
        const lens = new Uint32Array(bin.map((b) => b.byteLength));
        const data = new Uint8Array(lens.reduce((a, b) => a + b, 0));
        let at = 0;
        for (const b of bin) {
          data.set(new Uint8Array(b), at);
          at += b.byteLength;
        }
        bin = [];
        if (!haveHello) {
          onWarning?.('binary frames arrived before the hello: ignored');
          return;
        }
        const r = (await client.call('fbLivePush', { data, lens })) as { refused: number; errors: string[] };
        changed = true;
        if (r.refused > 0)
          onWarning?.(`refused ${r.refused} live frame${r.refused === 1 ? '' : 's'}: ${r.errors.join('; ')}`);
      };
      for (const m of batch) {
        if (typeof m !== 'string') {
          bin.push(m);
          continue;
        }
        await pushBin();
        let c: LiveControl;
        try {
          c = (await client.call('fbLiveControl', { text: m })) as LiveControl;
        } catch (e) {
          onWarning?.(`refused a control message: ${(e as Error).message}`);
          continue;
        }
        if (c.type === 'hello') {
          haveHello = true;
          onHello?.(c);
        } else if (c.type === 'goodbye') {
          status(`the game said goodbye (${c.reason || 'no reason'}) — waiting for it to come back`, 'goodbye');
        }
        changed = true;
      }
      await pushBin();
    } catch (e) {
      onWarning?.((e as Error).message);
    } finally {
      flushing = false;
    }
    if (changed) onData?.();
  }

  function disconnect() {
    wanted = false;
    clearTimeout(retryTimer);
    if (ws) {
      const s = ws;
      ws = null;
      s.close();
      status('disconnected', 'disconnected');
    }
  }

  async function save() {
    const bytes = (await client.call('fbLiveBytes', {})) as Uint8Array<ArrayBuffer> | null;
    if (!bytes || bytes.length === 0) {
      onWarning?.('nothing received yet');
      return;
    }
    const blob = new Blob([bytes], { type: 'application/octet-stream' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `live-${new Date().toISOString().replace(/[:.]/g, '-')}.foldback`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  }

  return { connect, disconnect, save, stats: () => ({ dropped, refused, queued: queue.length }) };
}
