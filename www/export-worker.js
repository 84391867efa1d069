// The export worker's entry (features/export/open.js): workers/export/main.js.
import './workers/export/main.js';
