// The <replay-player> element (docs/embedding.md "Element"): embed/element.ts.
export * from './embed/element.ts';
