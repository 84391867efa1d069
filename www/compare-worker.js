// The Compare view's worker entry (features/compare): workers/compare/main.js.
import './workers/compare/main.js';
