// Keyboard shortcuts: Space play/pause, ←/→ 5 s (Shift 1 s, Alt 30 s), , / . one tick,
// [ / ] previous/next kill, Home/End.

export function bindKeyboard(player, target = document) {
  const onKey = (e) => {
    if (!player.info || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement || t?.isContentEditable) return;
    const step = e.shiftKey ? 1 : e.altKey ? 30 : 5;
    let handled = true;
    switch (e.key) {
      case ' ':
      case 'Spacebar':
        if (t instanceof HTMLButtonElement && t.id !== 'play') {
          handled = false;
          break;
        }
        player.toggle();
        break;
      case 'ArrowLeft':
        player.seek(player.currentTime - step);
        break;
      case 'ArrowRight':
        player.seek(player.currentTime + step);
        break;
      case ',':
      case '<':
        player.step(-1);
        break;
      case '.':
      case '>':
        player.step(1);
        break;
      case '[':
        seekKill(-1);
        break;
      case ']':
        seekKill(1);
        break;
      case 'Home':
        player.seek(0);
        break;
      case 'End':
        player.seek(player.duration);
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  };

  /** Kills are watched from 2 s before; previous/next is relative to that viewing point. */
  function seekKill(dir) {
    const kills = player.kills;
    if (!kills.length) return;
    const now = player.currentTime;
    const starts = kills.map((k) => Math.max(0, player.killTime(k) - 2));
    let target = null;
    if (dir > 0) {
      target = starts.find((s) => s > now + 0.05);
    } else {
      for (let i = starts.length - 1; i >= 0; i--) {
        if (starts[i] < now - 0.5) {
          target = starts[i];
          break;
        }
      }
    }
    if (target !== null && target !== undefined) player.seek(target);
  }

  target.addEventListener('keydown', onKey);
  return () => target.removeEventListener('keydown', onKey);
}
