// The focused set of tests/engines/scenarios.mjs in WebKitGTK's MiniBrowser under WebKitWebDriver (selenium-webdriver),
// in an Xvfb window; WebGL in workers stays off (WebKitGTK's default), so the player draws on the page.
//   node --test tests/engines/webkit.test.mjs
import { engineSuite } from './scenarios.mjs';

engineSuite('webkit');
