// embed.html's entry (the iframe form, docs/embedding.md "iframe"): embed/page.js.
import './embed/page.js';
