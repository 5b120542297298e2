import { describe, expect, test } from 'vitest';
import { capJsonArray, capText, OUTPUT_LIMIT_BYTES } from '../../../src/report/cap.js';

const reportFile = '/runner/_temp/spread-report-0123456789ab.json';
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const objects = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'team-a',
    name: `settings-${i}`,
    action: 'created',
    source: `.k2e/settings-${i}.yaml:1`,
  }));

describe('capJsonArray: a JSON output within the limit', () => {
  test('a value that fits is the whole array', () => {
    expect(capJsonArray(objects(3), 'objects', { reportFile })).toBe(JSON.stringify(objects(3)));
  });

  test('5,000 objects: within 64 KiB, still JSON, the first objects kept, then the marker naming the file', () => {
    const all = objects(5000);
    expect(bytes(JSON.stringify(all))).toBeGreaterThan(4 * OUTPUT_LIMIT_BYTES);
    const value = capJsonArray(all, 'objects', { reportFile });
    expect(bytes(value)).toBeLessThanOrEqual(OUTPUT_LIMIT_BYTES);
    const parsed = JSON.parse(value) as unknown[];
    const kept = parsed.slice(0, -1);
    expect(kept).toEqual(all.slice(0, kept.length));
    expect(kept.length).toBeGreaterThan(100);
    expect(parsed.at(-1)).toEqual({
      truncated: `${5000 - kept.length} of 5000 objects not shown (a step output's limit in spread is 64 KiB); all of them are in ${reportFile} (output report-file)`,
      left: 5000 - kept.length,
      total: 5000,
      reportFile,
    });
    // As many as fit: one more would not.
    const oneMore = JSON.stringify([...all.slice(0, kept.length + 1), parsed.at(-1)]);
    expect(bytes(oneMore)).toBeGreaterThan(OUTPUT_LIMIT_BYTES);
  });

  test('a smaller limit', () => {
    const value = capJsonArray(objects(50), 'objects', { reportFile, limitBytes: 1000 });
    expect(bytes(value)).toBeLessThanOrEqual(1000);
    expect(JSON.parse(value).at(-1).truncated).toMatch(/^\d+ of 50 objects not shown \(.*1000 bytes\)/);
  });
});

describe('capText: a text output within the limit', () => {
  test('a value that fits is unchanged', () => {
    expect(capText('web', { reportFile })).toBe('web');
  });

  test('a long text is cut at a line end, ends with the marker, and stays within the limit', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `| ✨ create | \`configmap/settings-${i}\` |`).join(
      '\n',
    );
    const value = capText(text, { reportFile });
    expect(bytes(value)).toBeLessThanOrEqual(OUTPUT_LIMIT_BYTES);
    expect(value).toMatch(
      new RegExp(
        `\\|\\n\\n… truncated to 64 KiB \\(a step output's limit in spread\\); the whole report is in ${reportFile.replace(/\./g, '\\.')} \\(output report-file\\)$`,
      ),
    );
    expect(text.startsWith(value.slice(0, value.indexOf('\n\n…')))).toBe(true);
  });

  test('never a broken character: a cut inside a multi-byte one drops it', () => {
    const value = capText('€'.repeat(1000), { reportFile, limitBytes: 500 });
    expect(bytes(value)).toBeLessThanOrEqual(500);
    expect(value).not.toContain('\uFFFD');
    expect(value.startsWith('€')).toBe(true);
  });
});
