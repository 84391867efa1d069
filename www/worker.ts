// The decoder worker's entry (spawned by bridge/decoder.ts): workers/decode/main.ts.
import './workers/decode/main.ts';
