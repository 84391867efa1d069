// The full page's entry (index.html): app/main.js.
import './app/main.js';
