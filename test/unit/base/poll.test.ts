import { describe, expect, it } from 'vitest';
import { interruptOf, poll, sleep } from '../../../src/base/poll.js';

describe('sleep', () => {
  it('resolves after the pause', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
  });

  it('rejects with the reason of a signal aborted during the pause', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted by SIGINT');
    const pending = sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects at once with the reason of a signal aborted before', async () => {
    const reason = new Error('cancelled');
    await expect(sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});

describe('poll', () => {
  it('answers the first defined value, checking again until there is one', async () => {
    let calls = 0;
    const answer = await poll(() => (++calls === 3 ? 'ready' : undefined), {
      intervalMs: 1,
      timeoutMs: 60_000,
    });
    expect(answer).toBe('ready');
    expect(calls).toBe(3);
  });

  it('checks once at once, with no pause before the first check', async () => {
    let calls = 0;
    await poll(() => ++calls, { intervalMs: 60_000, timeoutMs: 60_000 });
    expect(calls).toBe(1);
  });

  it('answers undefined once the timeout passed, after a last check', async () => {
    let calls = 0;
    const answer = await poll(
      () => {
        calls++;
        return undefined;
      },
      { intervalMs: 1, timeoutMs: 0 },
    );
    expect(answer).toBeUndefined();
    expect(calls).toBe(1);
  });

  it('keeps a falsy answer other than undefined (false, 0, empty string)', async () => {
    await expect(poll(() => false, { intervalMs: 1, timeoutMs: 0 })).resolves.toBe(false);
    await expect(poll(() => 0, { intervalMs: 1, timeoutMs: 0 })).resolves.toBe(0);
  });

  it('rejects with the signal reason when aborted between checks', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted by SIGTERM');
    let calls = 0;
    const pending = poll(
      () => {
        if (++calls === 2) controller.abort(reason);
        return undefined;
      },
      { intervalMs: 1, timeoutMs: 60_000, signal: controller.signal },
    );
    await expect(pending).rejects.toBe(reason);
    expect(calls).toBe(2);
  });

  it('passes on what the check throws', async () => {
    const failure = new Error('403 Forbidden');
    await expect(
      poll(
        () => {
          throw failure;
        },
        { intervalMs: 1, timeoutMs: 60_000 },
      ),
    ).rejects.toBe(failure);
  });
});

describe('interruptOf', () => {
  const aborted = (reason: unknown) => {
    const c = new AbortController();
    c.abort(reason);
    return c.signal;
  };
  const abortError = () => Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });

  it("an AbortError of an aborted signal becomes the signal's reason, the AbortError its cause", () => {
    const cause = abortError();
    const error = interruptOf(cause, aborted(new Error('interrupted by SIGTERM'))) as Error;
    expect(error.message).toBe('interrupted by SIGTERM');
    expect(error.cause).toBe(cause);
  });

  it('any other error, or a signal not aborted, or a reason that is no Error: the error as it is', () => {
    const other = new Error('HTTP 500');
    expect(interruptOf(other, aborted(new Error('interrupted by SIGINT')))).toBe(other);
    const abort = abortError();
    expect(interruptOf(abort, new AbortController().signal)).toBe(abort);
    expect(interruptOf(abort, undefined)).toBe(abort);
    expect(interruptOf(abort, aborted('SIGTERM'))).toBe(abort);
  });
});
