// bench/renderers-fixture.mjs: the chart and overlay of the renderer benchmark, and its verdicts.

import { describe, expect, test } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import {
  chartFiles,
  median,
  overlayFiles,
  rendererModel,
  renderMeasures,
  verdict,
} from '../../../bench/renderers-fixture.mjs';

const kinds = (objects: { kind: string }[]) => {
  const n: Record<string, number> = {};
  for (const o of objects) n[o.kind] = (n[o.kind] ?? 0) + 1;
  return n;
};

describe('rendererModel', () => {
  test('exactly the size, a mix of kinds, unique names per kind', () => {
    const objects = rendererModel(200);
    expect(objects).toHaveLength(200);
    expect(kinds(objects)).toEqual({
      Deployment: 40,
      Service: 40,
      ConfigMap: 40,
      Secret: 40,
      ServiceAccount: 40,
    });
    expect(new Set(objects.map((o) => `${o.kind}/${o.name}`)).size).toBe(200);
  });
  test('shared ConfigMaps fill a size that is not a multiple of the kinds', () => {
    expect(kinds(rendererModel(13))).toEqual({
      Deployment: 2,
      Service: 2,
      ConfigMap: 5,
      Secret: 2,
      ServiceAccount: 2,
    });
  });
});

describe('chartFiles', () => {
  test('a chart whose values list every service and shared ConfigMap', () => {
    const files = chartFiles(13);
    expect(files['Chart.yaml']).toContain('apiVersion: v2');
    const values = parse(files['values.yaml'] ?? '');
    expect(values.services.map((s: { name: string }) => s.name)).toEqual(['svc-000', 'svc-001']);
    expect(values.shared).toEqual(['shared-10', 'shared-11', 'shared-12']);
    expect(Object.keys(files).filter((f) => f.startsWith('templates/'))).toHaveLength(5);
  });
});

describe('overlayFiles', () => {
  test('a base of every object and an overlay over it', () => {
    const files = overlayFiles(13);
    const objects = Object.entries(files)
      .filter(([f]) => f.startsWith('base/') && f !== 'base/kustomization.yaml')
      .flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS()));
    expect(objects).toHaveLength(13);
    const base = parse(files['base/kustomization.yaml'] ?? '');
    expect(base.resources.sort()).toEqual(['shared.yaml', 'svc-000.yaml', 'svc-001.yaml']);
    const overlay = parse(files['overlay/kustomization.yaml'] ?? '');
    expect(overlay.resources).toEqual(['../base']);
    expect(overlay.patches.map((p: { path: string }) => p.path)).toEqual(['replicas.yaml', 'config.yaml']);
    expect(files['overlay/config.yaml']).toContain('name: svc-000-config');
  });
});

describe('verdict', () => {
  test('ratio against the target', () => {
    expect(verdict(100, 400, 0.5)).toBe('0.25 × (target ≤ 0.5 ×: met)');
    expect(verdict(300, 400, 0.5)).toBe('0.75 × (target ≤ 0.5 ×: **missed**)');
    expect(verdict(300, 400, undefined)).toBe('0.75 ×');
    expect(verdict(39, 400, 0.1)).toBe('0.098 × (target ≤ 0.1 ×: met)');
    expect(verdict(undefined, 400, 0.5)).toBe('–');
  });
  test('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeUndefined();
  });
});

describe('renderMeasures', () => {
  test("the raw ratio, spread's added time, and the ratio without Node's start", () => {
    // spread 300 ms, helm template 60 ms, Node's start 100 ms: 5 ×, 240 ms added, (300 − 100) ÷ 60.
    expect(renderMeasures(300, 60, 100)).toEqual({ ratio: 5, addedMs: 240, withoutNodeStart: 200 / 60 });
    expect(renderMeasures(300, 60, undefined)).toEqual({ ratio: 5, addedMs: 240 });
    expect(renderMeasures(undefined, 60, 100)).toBeUndefined();
    expect(renderMeasures(300, 0, 100)).toBeUndefined();
  });
});
