// The focused set of tests/engines/scenarios.mjs in Firefox ESR (Debian's firefox-esr over WebDriver BiDi,
// puppeteer-core), in an Xvfb window: headless Firefox here has no WebGL2.
//   node --test tests/engines/firefox.test.mjs
import { engineSuite } from './scenarios.mjs';

engineSuite('firefox');
