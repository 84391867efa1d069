// The export worker's entry (features/export/open.ts): workers/export/main.ts.
import './workers/export/main.ts';
