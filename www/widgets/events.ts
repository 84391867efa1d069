// Event kinds for the UI: a CSS-safe key per kind (custom events by their type), a label, and a
// one-line description. Strings from files are returned as plain text (callers use textContent /
// title, never HTML).
import type { KillEvent as Kill, ReplayEvent } from '../lib/types.ts';

/** A kill and an event of the recording (lib/types.ts; strings from files are shown as text). */
export type { Kill, ReplayEvent };

const LABELS: Record<string, string> = {
  kill: 'Kill',
  spawn: 'Spawn',
  despawn: 'Despawn',
  chat: 'Chat',
  admin: 'Admin',
  alert_level: 'Alert level',
  explosion: 'Explosion',
  pickup: 'Pickup',
  flag_capture: 'Flag capture',
  objective: 'Objective',
  weapon_switch: 'Weapon switch',
  other: 'Other',
};

/** What eventText() asks of the player (the handle, www/api/player.ts). */
export interface EventTextPlayer {
  killText(kill: Kill): string;
  entityName(id: number): string;
  participant(id: number): { callsign?: string } | null | undefined;
}

/** Kinds with their own marker style (see style.css .ev-*); any other custom type is "other". */
export const STYLED_KINDS = Object.keys(LABELS);

/** `kill`, `spawn`, …, or a custom event's type when styled, else `other`. */
export function eventKindKey(e: { kind?: unknown; type?: unknown }): string {
  const k = e.kind === 'custom' ? String(e.type ?? '') : String(e.kind ?? '');
  return Object.hasOwn(LABELS, k) ? k : 'other';
}

export function eventKindLabel(key: string): string {
  return LABELS[key] ?? 'Other';
}

function clip(s: unknown, n = 80): string {
  const t = String(s ?? '');
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

function participantName(player: EventTextPlayer, id: number): string {
  return player.participant(id)?.callsign || `participant ${id}`;
}

/** One line describing `e` (plain text). */
export function eventText(player: EventTextPlayer, e: ReplayEvent): string {
  switch (e.kind) {
    case 'kill':
      return `Kill: ${player.killText(e)}`;
    case 'spawn':
      return `Spawn: ${player.entityName(e.entity)}`;
    case 'despawn':
      return `Despawn: ${player.entityName(e.entity)}`;
    case 'chat':
      return `Chat (${participantName(player, e.participant)}): ${clip(e.text)}`;
    case 'admin':
      return `Admin (${participantName(player, e.participant)}): ${clip(e.action, 40)} ${clip(e.detail, 60)}`.trim();
    case 'alert_level':
      return `Alert level ${e.level}`;
    case 'custom': {
      const key = eventKindKey(e);
      const label = key === 'other' ? clip(e.type, 40) : eventKindLabel(key);
      const who =
        e.source !== undefined && e.source !== 0 && e.source !== 4294967295 ? ` ${player.entityName(e.source)}` : '';
      const data = e.data ? ` (${clip(e.data, 60)})` : '';
      return `${label}:${who}${data}`;
    }
    default: {
      // A kind this shell does not know (a newer file's): its name.
      const other: { kind: unknown } = e;
      return clip(other.kind, 40);
    }
  }
}
