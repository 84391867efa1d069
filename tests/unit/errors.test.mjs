// lib/errors.ts: the one messageOf of the shell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messageOf } from '../../www/lib/errors.ts';

test("messageOf: an error's message, else the thrown value as text", () => {
  assert.equal(messageOf(new Error('the file is cut short')), 'the file is cut short');
  assert.equal(messageOf(new TypeError('')), 'TypeError');
  assert.equal(messageOf('a string the glue threw'), 'a string the glue threw');
  assert.equal(messageOf({ message: 'a plain object with a message' }), 'a plain object with a message');
  assert.equal(messageOf({ message: 42 }), '[object Object]');
  assert.equal(messageOf(null), 'null');
  assert.equal(messageOf(undefined), 'undefined');
  assert.equal(messageOf(404), '404');
});
