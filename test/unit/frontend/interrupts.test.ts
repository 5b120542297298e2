import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { ignoreClosedOutput } from '../../../src/frontend/interrupts.js';

const epipe = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' });

describe('ignoreClosedOutput', () => {
  test('without it, an EPIPE on the stream is an unhandled error (what ended a deploy with its Lease held)', () => {
    expect(() => new PassThrough().emit('error', epipe())).toThrow('write EPIPE');
  });

  test('with it, the error is dropped; installing it twice adds one listener', () => {
    const out = new PassThrough();
    ignoreClosedOutput([out]);
    ignoreClosedOutput([out]);
    expect(out.listenerCount('error')).toBe(1);
    expect(() => out.emit('error', epipe())).not.toThrow();
  });
});
