// The playback speeds the player offers (docs/playback.md "Speeds": SparkEngine's 0.25–4 and
// beyond). A leaf of its own so that api/options.ts, loaded only for a link, shares no more than this
// with the clock (core/clock.ts) and the first load.
export const SPEEDS = Object.freeze([0.25, 0.5, 1, 2, 4, 8, 16]);
