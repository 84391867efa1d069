// The <replay-player> element (docs/embedding.md "Element"): embed/element.js.
export * from './embed/element.js';
