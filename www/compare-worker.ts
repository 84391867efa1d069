// The Compare view's worker entry (features/compare): workers/compare/main.ts.
import './workers/compare/main.ts';
