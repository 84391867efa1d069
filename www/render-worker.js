// The render worker's entry (spawned by bridge/renderer.js): workers/render/main.js.
import './workers/render/main.js';
