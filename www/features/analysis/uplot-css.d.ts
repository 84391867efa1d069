// uPlot's stylesheet, imported as text (scripts/dist.mjs: the '.css' loader is 'text'); plots.ts puts it
// in a <style> when the plots first open.
declare module 'uplot/dist/uPlot.min.css' {
  const css: string;
  export default css;
}
