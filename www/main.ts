// The full page's entry (index.html): app/main.ts.
import './app/main.ts';
