// embed.html's entry (the iframe form, docs/embedding.md "iframe"): embed/page.ts.
import './embed/page.ts';
