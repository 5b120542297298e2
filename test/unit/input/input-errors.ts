// The error lines of a failed read, for the input tests that compare them with a table: the promise
// must reject with an InputError, and each of its errors (warnings left out) becomes `file:line: message`.
import { expect } from 'vitest';
import { InputError } from '../../../src/input/index.js';

/** The `file:line: message` of each error of the InputError `promise` rejects with (fails the test otherwise). */
export async function errorsOf(promise: Promise<unknown>): Promise<string[]> {
  const e = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(e).toBeInstanceOf(InputError);
  return (e as InputError).issues
    .filter((i) => i.severity === 'error')
    .map((i) => `${i.source.file}:${i.source.line}: ${i.message}`);
}
