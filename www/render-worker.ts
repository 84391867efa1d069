// The render worker's entry (spawned by bridge/renderer.ts): workers/render/main.ts.
import './workers/render/main.ts';
