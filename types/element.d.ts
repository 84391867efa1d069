// TypeScript declarations of `element.js`: importing it defines <replay-player> (docs/embedding.md
// "Custom element"). Generated from the source by scripts/types.mjs: do not edit.
//
//   import 'replay-player/element.js';
//   const el = document.querySelector('replay-player');   // ReplayPlayerElement

type TimeValue = number | string;
type CameraMode = "orbit" | "free" | "follow" | "first" | "kill";
type PlaybackState = "Stopped" | "Playing" | "Paused" | "Rewinding" | "FastForward";
type ReplaySource = string | URL | Blob | ArrayBuffer | ArrayBufferView | LiveSource;
interface LiveSource {
	live: string;
}
interface LoadOptions {
	/** Where playback starts. */
	t?: TimeValue;
	/** The same as `t`. */
	start?: TimeValue;
	/** A clip: playing forward stops at `end` (`ended`), or goes back to `t` with `loop`. */
	end?: TimeValue;
	loop?: boolean | 0 | 1 | string;
	/** The entity the camera follows: a callsign, an entity id, or "#id". */
	follow?: string | number;
	camera?: CameraMode;
	/** The camera pose of the mode (orbit / free), as `cameraPose()` returns it: up to 8 numbers. */
	view?: number[] | string;
	/** 0.25, 0.5, 1, 2, 4, 8 or 16. */
	speed?: number | string;
	/** Play once the first frame can be drawn. */
	autoplay?: boolean | 0 | 1 | string;
	/** `false`: spoiler-safe (no kills, totals or remaining time before the playhead reaches them). */
	spoilers?: boolean | 0 | 1 | string;
	/** A still frame at this time before play (ignored with `autoplay`). */
	poster?: TimeValue;
}
interface Gap {
	/** Seconds of playback. */
	from: number;
	to: number;
	/** 'damaged': the chunk cannot be decoded; 'unread': a server did not send it after retries. */
	cause: "damaged" | "unread";
	/** The reader's or the server's reason (text from the file or the network: show it as text). */
	reason: string;
}
interface LiveUpdate {
	type: "live";
	session: number;
	/** 'live', 'stalled', 'reconnecting', 'ended' (an ordinary replay from now on), 'failed'. */
	status: "live" | "stalled" | "reconnecting" | "ended" | "failed";
	/** The last tick received (absent when only the status changed after a failure). */
	lastTick?: number;
	/** Chunks received; the recording's bytes so far. */
	chunks?: number;
	fileLen?: number;
	/** The kills the new chunks hold (they join `markers`). */
	kills: ReplayEvent[];
	/** Wall-clock ms (timeOrigin + now) the worker had the new chunks. */
	arrivedAt?: number;
	/** Why the source ended ('failed'). */
	error?: string;
}
interface KillScan {
	done: number;
	total: number;
	kills: number;
	complete: boolean;
}
interface RecordingInfo {
	format: string;
	format_major: number;
	format_minor: number;
	engine_version?: string;
	tick_rate_hz: number;
	world: {
		kind: "planet";
		radius_m: number;
	} | {
		kind: "flat";
	};
	position_quantum_m: number;
	velocity_quantum_mps: number;
	start_unix_seconds: number;
	mission_id?: string;
	session_flags?: number;
	keyframe_interval_ticks: number;
	first_tick: number;
	last_tick: number;
	entity_types: EntityType[];
	factions: {
		index: number;
		id: number;
		display_name: string;
	}[];
	participants: Participant[];
	mission_objects?: {
		object_id: number;
		entity: number;
	}[];
	metadata: [
		string,
		string
	][];
	warnings: string[];
}
interface EntityType {
	index: number;
	id: number;
	display_name: string;
	category: "other" | "aircraft" | "projectile" | "ground" | "character";
	projectile_kind?: unknown;
}
interface Participant {
	id: number;
	callsign: string;
	/** 4294967295 (NO_ENTITY): none. */
	entity: number;
	faction: number;
}
interface OpenInfo {
	info: RecordingInfo;
	/** `(last_tick - first_tick) / tick_rate_hz`. */
	durationS: number;
	/** The file's length in bytes. */
	fileLen: number;
	/** Every chunk's file range and first (keyframe) tick, ascending. */
	chunks: {
		offset: number;
		len: number;
		firstTick: number;
	}[];
	/** The kills known at open (from the index trailer). */
	markers: ReplayEvent[];
	markersComplete: boolean;
	name: string;
	sourceKind: "file" | "url" | "live";
	/** A live open (`load({live})`): the source's state then (docs/live.md "The player"). */
	live?: {
		status: LiveUpdate["status"];
		kind?: string;
		chunkS?: number;
		pollMs?: number;
		file?: string | null;
		partial?: boolean;
	} | null;
	openReads: number;
	openBytes: number;
}
type ReplayEvent = (KillEvent | {
	kind: "spawn";
	entity: number;
	participant: number;
} | {
	kind: "despawn";
	entity: number;
	reason: number | string;
} | {
	kind: "chat";
	participant: number;
	channel: number | string;
	text: string;
} | {
	kind: "admin";
	participant: number;
	action: number | string;
	detail: string;
} | {
	kind: "alert_level";
	level: number;
} | {
	kind: "custom";
	type: number | string;
	source: number;
	target: number;
	pos: number[];
	data: unknown;
}) & {
	tick: number;
	t?: number;
};
interface KillEvent {
	kind: "kill";
	tick: number;
	killer: number;
	victim: number;
	/** An entity-type index; 65535 (NO_WEAPON): unknown. */
	weapon_type: number;
	t?: number;
}
interface KillDescription {
	killer: string;
	victim: string;
	weapon: string;
	time: number;
}
interface Clip {
	start: number;
	end: number | null;
	loop: boolean;
}
type Timed<E> = E & {
	t: number;
};
interface PlayerState {
	time: number;
	/** null while spoiler-safe playback hides it. */
	duration: number | null;
	tick: number;
	playing: boolean;
	speed: number;
	camera: CameraMode;
	/** The followed entity's name, or null. */
	follow: string | null;
	/** The replay's address, or null for a file or bytes. */
	url: string | null;
}
interface PlaybackStatus {
	state: PlaybackState;
	time: number;
	/** null before a recording is open. */
	duration: number | null;
	speed: number;
	/** null before a recording is open. */
	frames: number | null;
	events: number;
	map: string;
	mode: string;
	camera: string;
	killCam: boolean;
	text: string;
}
type PlayerStatus = "idle" | "loading" | "ready" | "failed" | "disposed";
interface PlayerEventMap {
	/** `status` changed (before the event that changed it: `loadstart`, `ready`, `error`). */
	statuschange: PlayerStatus;
	/** `load()` began; `src` is what it was given. */
	loadstart: {
		name: string;
		src: ReplaySource;
	};
	/** While opening (docs/worker-protocol.md `progress`). */
	progress: {
		type: "progress";
		session: number;
		phase: "wasm" | "connect" | "download" | "open";
		loaded: number;
		total: number;
	};
	/** The recording is open; its first frames are being decoded. */
	info: OpenInfo;
	/** The first frame can be drawn (once per load). */
	ready: OpenInfo;
	/** The file is a `.foldback` determinism log: not played by the player. */
	foldback: {
		src: Blob | string;
		name: string;
		info: unknown;
	};
	/** The renderer started. */
	backend: "webgpu" | "webgl2";
	/** Opening, decoding or drawing failed, or a worker crashed. */
	error: {
		message: string;
	};
	/** An option of the load could not be used (one sentence). */
	notice: {
		text: string;
	};
	/** A part of the recording skipped (a damaged chunk, or one a server did not send after retries). */
	gap: Gap;
	/** A recording without an index: the background kill scan's progress. */
	scan: KillScan;
	/** A live recording (`load({live})`, docs/live.md "The player") grew, or its source changed state. */
	live: LiveUpdate;
	play: undefined;
	pause: undefined;
	/** The speed changed. */
	ratechange: number;
	statechange: PlaybackStatus;
	/** A seek started (its target, seconds). */
	seeking: number;
	/** A seek's frame is decoded (seconds). */
	seeked: number;
	/** The playhead moved (seconds). */
	timeupdate: number;
	/** Playing forward reached the end (or the clip's end). */
	ended: undefined;
	/** Events became known. */
	events: Timed<ReplayEvent>[];
	/** The kill list grew (every kill known, tick order; spoiler-safe: those reached). */
	markers: Timed<KillEvent>[];
	/** The playhead crossed an event playing forward. */
	event: Timed<ReplayEvent>;
	/** The playhead crossed a kill (before that kill's `event`). */
	kill: Timed<KillEvent>;
	/** A pickup was crossed (text from file strings: show it as text). */
	toast: {
		kind: string;
		text: string;
	};
	killcam: {
		active: boolean;
		holding: boolean;
		kill: KillEvent | null;
	};
	cameramode: CameraMode;
	/** The selection changed (entity id, -1: none). */
	selection: number;
	/** A click on the canvas picked entity `id` (-1: none); with Shift the selection stays. */
	pick: {
		id: number;
		shiftKey: boolean;
	};
}
type PlayerEventName = keyof PlayerEventMap;
interface PieceSummary {
	chunk: number;
	from: number;
	end: number;
	stride: number;
	ticks: number;
	states: number;
}
interface FeedRow {
	tick: number;
	time: number;
	killer: number;
	victim: number;
	text: string;
}
interface Snapshot {
	/** The open was answered (a recording is open). */
	loaded: boolean;
	/** `ready` was emitted: the first frame could be drawn. */
	ready: boolean;
	/** A frame with entities has been drawn. */
	firstFrameShown: boolean;
	name: string;
	backend: string;
	rendererBuild: string;
	renderInWorker: boolean;
	/** The renderer has started and (in a worker) has its device. */
	rendererReady: boolean;
	/** The render worker has nothing queued or in flight (true on the page's own renderer). */
	rendererQuiet: boolean;
	/** Export → Video holds the stage. */
	stageHeld: boolean;
	time: number;
	/** The tick at the playhead. */
	tick: number;
	/** The tick of the frame last drawn, or null. */
	frameTick: number | null;
	/** Entities in the frame at the playhead. */
	entityCount: number;
	firstTick: number;
	lastTick: number;
	tickRate: number;
	duration: number;
	playing: boolean;
	ended: boolean;
	buffering: boolean;
	speed: number;
	playbackState: PlaybackState;
	/** A seek waits for its frame. */
	seekPending: boolean;
	killCam: boolean;
	killCamHolding: boolean;
	killCamKill: {
		tick: number;
		killer: number;
		victim: number;
	} | null;
	cameraMode: string;
	followed: number;
	selected: number;
	events: number;
	eventKinds: Record<string, number>;
	status: string;
	/** Kills shown (spoiler-safe: those reached) and every kill known. */
	markers: number;
	killsKnown: number;
	killFeed: FeedRow[];
	/** Parts skipped (gaps) so far. */
	gaps: number;
	chunksHeld: number[];
	pieces: PieceSummary[];
	heldBytes: number;
	/** Ticks [lo, hi) whose pieces are kept. */
	keepRange: [
		number,
		number
	];
	/** The animation loop rests (nothing moves); frames it timed since the start or perf({reset}). */
	resting: boolean;
	loopFrames: number;
	/** Prefetch hints sent, readied by the worker, and one waiting for its delay. */
	hints: {
		sent: number;
		prefetched: number;
		waiting: boolean;
	};
	/** Entity ids labelled in the last frame, and the candidates left unlabelled. */
	labels: number[];
	labelsHidden: number;
	/** Ghosts (Compare): whether B's frames are drawn, and the tick of the last sent (-1: none). */
	ghosts: {
		shown: boolean;
		tick: number;
	} | null;
	error: string | null;
	info: OpenInfo | null;
	workerRestarts: number;
}
interface FrameCopy {
	tick: number;
	frame: number[];
	next: number | null;
}
interface LabelInfo {
	/** Placed in the last frame; its element not hidden; styled as the selected one. */
	shown: boolean;
	visible: boolean;
	selected: boolean;
	/** The callsign it shows (a file string). */
	text: string;
	x: number;
	y: number;
	width: number;
}
interface Diagnostics {
	/** The player's state now (plain data). */
	snapshot(): Snapshot;
	/** Per-frame main-thread timings, the pieces' timings and the renderer's counters; `reset`
	 *  empties them after reading. */
	perf(opts?: {
		reset?: boolean;
	}): Perf;
	/** The decoder worker's counters (docs/worker-protocol.md `stats`). */
	workerStats(): Promise<WorkerStats>;
	/** Resolves after the next frame drawn (wakes a resting loop for it). */
	frameDrawn(): Promise<void>;
	/** The frame at the playhead as last drawn, or null. */
	frame(): FrameCopy | null;
	/** The decoded frame held for `tick`, with the next one's tick; null when no piece holds it. */
	frameAt(tick: number): FrameCopy | null;
	/** The decoded piece holding `tick`, or null. */
	pieceAt(tick: number): PieceSummary | null;
	/** The skipped part holding `tick`, or null. */
	gapAt(tick: number): unknown;
	/** Whether the events of `tick` were learned from a whole-recording scan. */
	learned(tick: number): boolean;
	/** Entity `id`'s callsign label, or null when it has none. */
	label(id: number): LabelInfo | null;
	/** The renderer's projections of every label candidate: [id, x, y, visible] × n (CSS px). */
	rendererLabels(): Promise<number[]>;
	/** Entity `id`'s last projection [id, x, y, visible] (the next frame answers a first ask). */
	labelOf(id: number): number[];
	/** Whether entity `id` has a callsign (from the info or a spawn). */
	hasName(id: number): boolean;
	/** Entity `id`'s faction (index into the palette), or undefined. */
	factionOf(id: number): number | undefined;
	/** How long a seek's page changes wait for its frame (ms). */
	seekShowMs: number;
	/** The loop never rests (benchmarks). */
	stayAwake(): void;
	/** `true`: the page stops telling the decoder worker which frames it wants; `false`: again. */
	holdWants(hold: boolean): void;
	/** Makes the decoder worker trap: in the reply to a request, or (`async`) outside one. */
	trapWorker(opts?: {
		async?: boolean;
	}): Promise<unknown>;
	/** Loses the renderer's GPU device (it recreates it). */
	loseDevice(): void;
	/** Zooms the current camera by `factor`. */
	zoom(factor: number): void;
	/** Clears the trails drawn so far. */
	clearTrails(): void;
	/** How many seconds of trail are drawn (0: none). */
	setTrailSeconds(s: number): void;
	/** No callsign labels (benchmarks compare their cost). */
	labelsOff: boolean;
	/** `true`: the renderer's answers to frames are held back (a frame that never comes); `false`:
	 *  those held are handed on. */
	holdFrames(hold: boolean): void;
	/** The render worker's next `n` answers to frames say "not drawn" (as a surface that was busy or
	 *  reconfigured says), their pictures dropped; returns how many are still to come. */
	undrawnFrames(n?: number): number;
	/** Export → Video's limit on any one wait (ms; undefined: its default, 30 s). */
	videoStallMs: number | undefined;
}
interface Perf {
	frames: number;
	totalMs: number[];
	renderMs: number[];
	timeMs: number[];
	buildMs: number[];
	labelsMs: number[];
	chunks: PieceTimes[];
	rendererWasmBytes: number;
	renderInWorker: boolean;
	renderStats: {
		posted: number;
		drawn: number;
		skipped: number;
		idle: number;
		unready: number;
	} | null;
}
interface PieceTimes {
	index: number;
	from: number;
	transit: number;
	page: number;
	started?: number;
	resumed?: boolean;
	cached?: boolean;
	read?: number;
	decode?: number;
	extract?: number;
	copy?: number;
	startedAt?: number;
	postedAt?: number;
}
type WorkerStats = Record<string, unknown> & {
	[field: string]: unknown;
};
interface Player {
	/**
	 * Where the player is: 'idle' (nothing loaded yet), 'loading' (a load began: its first frame is
	 * not drawable yet), 'ready' (it is), 'failed' (opening, decoding or drawing failed, or a worker
	 * crashed: the next load() starts afresh) or 'disposed'. Each change is a `statuschange` event.
	 */
	readonly status: PlayerStatus;
	/** The player's version (semantic versioning; what it reads: docs/versions.md), as `VERSION`. */
	readonly version: string;
	/** Why it failed (the `error` event's message) while `status` is 'failed', else null. */
	readonly error: string | null;
	/** Listens to an event; returns the function that stops listening. */
	on<K extends PlayerEventName>(event: K, fn: (payload: PlayerEventMap[K]) => void): () => void;
	off<K extends PlayerEventName>(event: K, fn: (payload: PlayerEventMap[K]) => void): void;
	/** Opens a replay (the previous one is closed) with `options` (docs/embedding.md "Options");
	 *  resolves when the open is answered (failures arrive as `error`, options it cannot use as
	 *  `notice`). */
	load(src: ReplaySource, options?: LoadOptions): Promise<void>;
	/** Stops the workers and the loop, releases the GPU device and removes the canvas and the UI it
	 *  drew; the handle is dead afterwards. */
	dispose(): void;
	/** The open's answer (`info.info`: the recording), or null. */
	readonly info: OpenInfo | null;
	/** 'webgpu' or 'webgl2' once the renderer has started, else ''. */
	readonly backend: "" | "webgpu" | "webgl2";
	/** The replay's address (absolute), or '' for a file or bytes. */
	readonly url: string;
	/** The sentences of the last load's `notice` events so far (options it could not use). */
	readonly notices: string[];
	/** Forward at the current speed (from the start when stopped or at the end). */
	play(): void;
	pause(): void;
	/** Pause, or resume the way it was going. */
	toggle(): void;
	/** Seeks to `t` seconds (clamped); resolves with the time once the frame there is decoded. */
	seek(t: number): Promise<number>;
	/** Seeks to tick `tick` of the recording. */
	seekTick(tick: number): Promise<number>;
	/** Pauses and moves `n` ticks. */
	step(n: number): Promise<number>;
	/** 0.25–16; anything not positive is ignored. Ends a kill cam. */
	setSpeed(speed: number): void;
	/** The playhead (seconds); setting it seeks. */
	currentTime: number;
	/** The recording's length (seconds; 0 before one is open). */
	readonly duration: number;
	/** The tick the playhead shows. */
	readonly tick: number;
	readonly playing: boolean;
	readonly paused: boolean;
	/** At the end, or where a clip stopped. */
	readonly ended: boolean;
	readonly speed: number;
	/** Every event known, in time order (spoiler-safe: those reached). */
	readonly events: ReplayEvent[];
	/** Every kill known, in tick order (spoiler-safe: those reached). */
	readonly kills: KillEvent[];
	/** The parts of the recording skipped (damaged, or not sent by a server), in time order. */
	readonly gaps: Gap[];
	/** A kill as a viewer reads it: names, the weapon's name and its time (file strings: text). */
	describeKill(kill: KillEvent): KillDescription;
	/** Entity `id`'s callsign (a file string: show it as text). */
	entityName(id: number): string;
	/** Where entity `id` was drawn in the last frame (CSS px of the player's element), or null. */
	screenPosition(id: number): {
		x: number;
		y: number;
		visible: boolean;
	} | null;
	/** `fn()` after every frame drawn (not while the loop rests); returns the function that stops it. */
	onFrame(fn: () => void): () => void;
	/** The selected entity, or -1. */
	readonly selected: number;
	/** Follows an entity (id, callsign or "#id"); null or -1 follows nothing. Throws for a name nobody has. */
	follow(entity: number | string | null): void;
	cameraMode(): CameraMode;
	/** 'orbit', 'free', 'follow', 'first' or 'kill'; throws on an unknown mode. */
	setCamera(mode: CameraMode): void;
	/** The clip `{start, end, loop}` (seconds), or null. */
	readonly clip: Clip | null;
	/** Sets the clip (null clears it); returns the clip kept. */
	setClip(clip: {
		start?: number;
		end?: number | null;
		loop?: boolean;
	} | null): Clip | null;
	/** What an embedding page may know now (the postMessage `state`). */
	getState(): PlayerState;
	/** The picture at `t` seconds drawn at `width` × `height` px (the canvas alone, without the
	 *  labels over it); the playhead and the canvas are as they were afterwards. */
	captureFrame(t: number, width: number, height: number): Promise<ImageBitmap>;
	/** Diagnostics: a snapshot of the state, timings, the decoder worker's counters, a frame drawn
	 *  (docs/player-api.md "Diagnostics"). */
	readonly diagnostics: Diagnostics;
}
type LoadSource = string | URL | Blob | ArrayBuffer | ArrayBufferView | {
	live: string;
};
declare const METHODS: readonly [
	"play",
	"pause",
	"toggle",
	"seek",
	"seekTick",
	"step",
	"setSpeed",
	"follow",
	"setCamera",
	"cameraMode",
	"setClip",
	"getState",
	"describeKill",
	"entityName",
	"screenPosition",
	"onFrame",
	"captureFrame"
];
declare const GETTERS: readonly [
	"status",
	"error",
	"duration",
	"tick",
	"playing",
	"paused",
	"ended",
	"speed",
	"info",
	"backend",
	"kills",
	"events",
	"gaps",
	"notices",
	"url",
	"clip",
	"selected",
	"diagnostics"
];
export declare class ReplayPlayerElement extends HTMLElement {
	#private;
	static observedAttributes: string[];
	constructor();
	connectedCallback(): void;
	disconnectedCallback(): void;
	attributeChangedCallback(name: string, old: string | null, value: string | null): void;
	/** Opens `src` (a URL, File/Blob or ArrayBuffer) with the attributes' options and `options`. */
	load(src: LoadSource, options?: object): Promise<unknown>;
	/** Ends the player (workers, GPU, timers); connecting the element again starts a new one. */
	dispose(): void;
	/** The player's handle (player.js), or null while the element is not connected. */
	get player(): Player | null;
	/** The replay's address (the `src` attribute); setting it loads that replay. */
	get src(): string;
	set src(v: string);
	/** A live recording's address (the `live` attribute); setting it opens that source. */
	get live(): string;
	set live(v: string);
	get currentTime(): number;
	set currentTime(t: number);
	/** Listens to a handle event with the handle's `(payload) => …` (the DOM events carry `detail`). */
	on<K extends keyof PlayerEventMap>(ev: K, fn: (payload: PlayerEventMap[K]) => void): () => void;
	off<K extends keyof PlayerEventMap>(ev: K, fn: (payload: PlayerEventMap[K]) => void): void;
}
/** The handle's methods and getters the element forwards (METHODS, GETTERS: undefined before it is connected). */
export interface ReplayPlayerElement extends Pick<Player, (typeof METHODS)[number]>, Readonly<Pick<Player, Exclude<(typeof GETTERS)[number], "status">>> {
	readonly status: Player["status"] | undefined;
	addEventListener<K extends keyof ReplayPlayerElementEventMap>(type: K, listener: (this: ReplayPlayerElement, ev: ReplayPlayerElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
	addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
	removeEventListener<K extends keyof ReplayPlayerElementEventMap>(type: K, listener: (this: ReplayPlayerElement, ev: ReplayPlayerElementEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
	removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}
/** The element's events: the handle's, as CustomEvents carrying the payload in `detail`. */
export type ReplayPlayerElementEventMap = Omit<HTMLElementEventMap, keyof PlayerEventMap> & {
	[K in keyof PlayerEventMap]: CustomEvent<PlayerEventMap[K]>;
};

declare global {
	interface HTMLElementTagNameMap {
		"replay-player": ReplayPlayerElement;
	}
}

export {};
