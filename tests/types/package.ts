// The declarations reached the way a site's compiler reaches them: by the package's name, through
// the `types` conditions of its `exports` (package.json). Type-checked by scripts/check-types.mjs.
import { create, type Player } from 'replay-player/player.js';
import * as root from 'replay-player';
import 'replay-player/element.js';

const p: Player = create('demo/demo.flrep', document.body, { autoplay: true });
p.on('ended', () => p.seek(0));
root.create(null, document.body).dispose();
document.createElement('replay-player').play();
