// The constants the published surface and the page's UI share: speeds, camera modes, faction
// colours, the packed frame's layout, the seek and kill steps. www/player.ts publishes the first
// few (CAMERA_MODES, SPEEDS, FACTION_COLOURS, factionColour); the rest are the page's.
import type { CameraMode } from '../lib/types.ts';

export { SEEK_SHOW_MS } from '../core/core.ts';
export { SPEEDS, State } from '../core/clock.ts';
export { STRIDE, NO_ENTITY, NO_WEAPON, FLAG_NAMES, findEntity } from '../core/entities.ts';
export { KILL_LEAD_S } from '../core/ledger.ts';
export { SEEK_STEP_S } from '../core/hints.ts';
export { MAX_LABELS } from '../view/labels.ts';

declare const __REPLAY_PLAYER_VERSION__: string | undefined;

/** The player's version, package.json's (scripts/dist.mjs writes it into the bundles; unbundled,
 *  as in the unit tests, '0.0.0-dev'). Semantic versioning: docs/versions.md. */
export const VERSION: string = typeof __REPLAY_PLAYER_VERSION__ === 'string' ? __REPLAY_PLAYER_VERSION__ : '0.0.0-dev';

/**
 * What this version of the player reads, per format (docs/versions.md "What a version reads"):
 * the format version a file says it is. `.flrep`: major 1, any minor (a newer minor's added fields
 * are skipped); `.foldback`: format version 1 and older, live protocol 1; SparkEngine `.replay`:
 * version 1. A file newer than this is refused with both numbers and "update the player". The Rust
 * readers' constants are these (tests/unit/versions.test.mjs compares them).
 */
export const READS = Object.freeze({
  flrep: Object.freeze({ major: 1 }),
  foldback: Object.freeze({ version: 1, liveProtocol: 1 }),
  spark: Object.freeze({ version: 1 }),
});

/** READS as one line for a person: "reads .flrep 1.x, .foldback 1, SparkEngine .replay 1". */
export const readsLine = (): string =>
  `reads .flrep ${READS.flrep.major}.x, .foldback ${READS.foldback.version} (live protocol ${READS.foldback.liveProtocol}), SparkEngine .replay ${READS.spark.version}`;

/** Camera modes the shell offers (renderer names). */
export const CAMERA_MODES: readonly CameraMode[] = ['orbit', 'free', 'follow', 'first', 'kill'];

/** Faction colours, the renderer's palette (Okabe–Ito, then Tol's muted: crate/src/render/scene.rs); index modulo 14. */
export const FACTION_COLOURS = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#D55E00',
  '#F0E442',
  '#882255',
  '#999933',
  '#AA4499',
  '#DDDDDD',
  '#CC6677',
  '#DDCC77',
  '#44AA99',
];
export function factionColour(i: number): string {
  const n = FACTION_COLOURS.length;
  return FACTION_COLOURS[((i % n) + n) % n] ?? FACTION_COLOURS[0];
}
