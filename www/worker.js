// The decoder worker's entry (spawned by bridge/decoder.js): workers/decode/main.js.
import './workers/decode/main.js';
