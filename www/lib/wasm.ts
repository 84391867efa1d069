// The one loader of the wasm builds (crate/src/web/, built into pkg/<build>/ by wasm-bindgen): every
// thread that runs Rust (the decoder, render, compare and export workers, the page when it draws
// itself) loads its build here. Each glue is a literal `import('../pkg/<build>/<build>.js')`, which
// dist/ keeps as `import('./pkg/…')` without bundling it (scripts/dist.mjs), so a site's bundler
// sees each build and its .wasm (the glue's own `new URL('<build>_bg.wasm', import.meta.url)`);
// it fetches its .wasm from beside itself. Its types are wasm-bindgen's own declarations
// (pkg/<build>/<build>.d.ts), never written again by hand.

/** Each build's glue module, as wasm-bindgen declares it. */
export interface Builds {
  decoder: typeof import('../pkg/decoder/decoder.js');
  decoder_spark: typeof import('../pkg/decoder_spark/decoder_spark.js');
  decoder_foldback: typeof import('../pkg/decoder_foldback/decoder_foldback.js');
  decoder_export: typeof import('../pkg/decoder_export/decoder_export.js');
  renderer: typeof import('../pkg/renderer/renderer.js');
  renderer_webgl: typeof import('../pkg/renderer_webgl/renderer_webgl.js');
}
export type BuildName = keyof Builds;

/** Each build's glue, imported on first use. */
const GLUE: { [N in BuildName]: () => Promise<Builds[N]> } = {
  decoder: () => import('../pkg/decoder/decoder.js'),
  decoder_spark: () => import('../pkg/decoder_spark/decoder_spark.js'),
  decoder_foldback: () => import('../pkg/decoder_foldback/decoder_foldback.js'),
  decoder_export: () => import('../pkg/decoder_export/decoder_export.js'),
  renderer: () => import('../pkg/renderer/renderer.js'),
  renderer_webgl: () => import('../pkg/renderer_webgl/renderer_webgl.js'),
};

/** A build, loaded: its glue's exports and the instance's (its `memory`). */
export interface Loaded<N extends BuildName> {
  mod: Builds[N];
  exports: Awaited<ReturnType<Builds[N]['default']>>;
}

/**
 * Loads the build `name`. `module` (a compiled WebAssembly.Module, handed over by another worker)
 * is instantiated instead of fetching the .wasm. The panic hook is set where the build has one.
 */
export async function loadWasm<N extends BuildName>(name: N, module?: WebAssembly.Module): Promise<Loaded<N>> {
  const mod = (await GLUE[name]()) as Builds[N];
  const exports = (await mod.default(module ? { module_or_path: module } : undefined)) as Loaded<N>['exports'];
  const hook = (mod as { init_panic_hook?: () => void }).init_panic_hook;
  try {
    hook?.();
  } catch {
    /* a build without the hook */
  }
  return { mod, exports };
}
