// The published player (docs/player-api.md): create() and the handle, from api/.
export * from './api/create.ts';
