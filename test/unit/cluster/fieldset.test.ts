import { describe, expect, test } from 'vitest';
import { fieldPaths, removedFields, withoutFields } from '../../../src/cluster/fieldset.js';

// A Service's field sets as the API server records them (kubectl apply --server-side, then spread).
const kubectl = {
  'f:data': { 'f:a': {}, 'f:b': {} },
  'f:spec': {
    'f:type': {},
    'f:ports': {
      'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:targetPort': {} },
    },
  },
};

describe('fieldPaths', () => {
  test('leaves and nodes marked "." are members', () => {
    expect(fieldPaths(kubectl)).toEqual([
      ['f:data', 'f:a'],
      ['f:data', 'f:b'],
      ['f:spec', 'f:type'],
      ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'],
      ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:name'],
      ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:port'],
      ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:targetPort'],
    ]);
  });
});

describe('removedFields', () => {
  test('what only the taken-over manager owns, and neither spread nor another manager', () => {
    const spread = {
      'f:data': { 'f:a': {} },
      'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } },
    };
    const operator = {
      'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { 'f:targetPort': {} } } },
    };
    expect(removedFields([kubectl], spread, [operator])).toEqual([
      ['f:data', 'f:b'],
      ['f:spec', 'f:type'],
      ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:name'],
    ]);
  });

  test('a list item goes whole, and its fields with it; an item another manager still fills stays', () => {
    const taken = {
      'f:spec': { 'f:ports': { 'k:{"port":81,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } },
    };
    expect(removedFields([taken], {}, [])).toEqual([['f:spec', 'f:ports', 'k:{"port":81,"protocol":"TCP"}']]);
    const other = { 'f:spec': { 'f:ports': { 'k:{"port":81,"protocol":"TCP"}': { 'f:name': {} } } } };
    expect(removedFields([taken], {}, [other])).toEqual([
      ['f:spec', 'f:ports', 'k:{"port":81,"protocol":"TCP"}', 'f:port'],
    ]);
  });

  test('nothing when spread declares everything', () => {
    expect(removedFields([kubectl], kubectl, [])).toEqual([]);
  });
});

describe('withoutFields', () => {
  test('removes map keys and list items by key, value and index; skips paths that lead nowhere', () => {
    const object = {
      data: { a: '1', b: '2' },
      spec: {
        ports: [
          { port: 80, protocol: 'TCP', name: 'http' },
          { port: 81, protocol: 'TCP' },
        ],
        finalizers: ['x', 'y'],
        args: ['p', 'q'],
      },
    };
    const out = withoutFields(object, [
      ['f:data', 'f:b'],
      ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:name'],
      ['f:spec', 'f:ports', 'k:{"port":81,"protocol":"TCP"}'],
      ['f:spec', 'f:finalizers', 'v:"y"'],
      ['f:spec', 'f:args', 'i:0'],
      ['f:spec', 'f:missing', 'f:deeper'],
      ['f:spec', 'f:ports', 'k:{"port":99,"protocol":"TCP"}'],
    ]);
    expect(out).toEqual({
      data: { a: '1' },
      spec: { ports: [{ port: 80, protocol: 'TCP' }], finalizers: ['x'], args: ['q'] },
    });
    // The input is left as it was.
    expect(object.data).toEqual({ a: '1', b: '2' });
  });
});
