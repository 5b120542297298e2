import { PassThrough } from 'node:stream';
import { describe, expect, test, vi } from 'vitest';
import { ignoreClosedOutput, trapInterrupts } from '../../../src/frontend/interrupts.js';

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

describe('trapInterrupts', () => {
  test('the same signal twice at once is one cancel; a different one ends the process', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const errors: string[] = [];
    const traps = trapInterrupts({ error: (m) => errors.push(m) });
    try {
      process.emit('SIGTERM');
      process.emit('SIGTERM');
      expect(traps.signal.aborted).toBe(true);
      expect(traps.exitCode()).toBe(143);
      expect(exit).not.toHaveBeenCalled();
      expect(errors).toHaveLength(1);
      process.emit('SIGINT');
      expect(exit).toHaveBeenCalledWith(143);
    } finally {
      traps.dispose();
      exit.mockRestore();
    }
  });
});
