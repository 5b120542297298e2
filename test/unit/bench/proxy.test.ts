// bench/proxy.mjs: the latency toxics built from a round trip, --rtt parsing and the kubeconfig that
// points every tool at the proxy. (Starting Toxiproxy itself is exercised by `npm run bench`.)
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { hostPort, latencyToxics, parseRtts, proxiedKubeconfig } from '../../../bench/proxy.mjs';

describe('latencyToxics', () => {
  test.each([
    [10, 5, 5],
    [30, 15, 15],
    [1, 0, 1],
    [25, 12, 13],
  ])('RTT %i ms: upstream %i ms + downstream %i ms', (rtt, up, down) => {
    const toxics = latencyToxics(rtt);
    expect(toxics).toEqual([
      {
        name: 'latency_upstream',
        type: 'latency',
        stream: 'upstream',
        toxicity: 1,
        attributes: { latency: up, jitter: 0 },
      },
      {
        name: 'latency_downstream',
        type: 'latency',
        stream: 'downstream',
        toxicity: 1,
        attributes: { latency: down, jitter: 0 },
      },
    ]);
    expect(toxics.reduce((n, t) => n + t.attributes.latency, 0)).toBe(rtt);
  });

  test('RTT 0 adds no toxic', () => {
    expect(latencyToxics(0)).toEqual([]);
  });

  test.each([-1, 2.5, Number.NaN])('RTT %s is refused', (rtt) => {
    expect(() => latencyToxics(rtt)).toThrow(/whole number of milliseconds/);
  });
});

describe('parseRtts', () => {
  test('a comma-separated list', () => {
    expect(parseRtts('0,10,30')).toEqual([0, 10, 30]);
    expect(parseRtts('30')).toEqual([30]);
  });
  test.each(['10ms', '', '1,,2', '-5', '1.5'])('%j is refused, naming the value', (text) => {
    expect(() => parseRtts(text)).toThrow(/--rtt .*is not a round trip in whole milliseconds/);
  });
});

describe('proxiedKubeconfig', () => {
  const kubeconfig = `apiVersion: v1
kind: Config
clusters:
  - name: local
    cluster:
      server: https://127.0.0.1:7443
      certificate-authority-data: Q0E=
  - name: other
    cluster:
      server: https://10.0.0.1:6443
contexts:
  - name: spread-local
    context: { cluster: local, user: admin }
users:
  - name: admin
    user: { token: t }
current-context: spread-local
`;

  test('points the clusters at the API server to the proxy, keeping CA, users and contexts', () => {
    const out = parse(proxiedKubeconfig(kubeconfig, 'https://127.0.0.1:7443', 'https://127.0.0.1:8475'));
    const original = parse(kubeconfig);
    expect(out.clusters[0].cluster).toEqual({
      server: 'https://127.0.0.1:8475',
      'certificate-authority-data': 'Q0E=',
    });
    expect(out.clusters[1]).toEqual(original.clusters[1]);
    expect(out.users).toEqual(original.users);
    expect(out.contexts).toEqual(original.contexts);
    expect(out['current-context']).toBe('spread-local');
  });

  test('a kubeconfig without that server is an error', () => {
    expect(() => proxiedKubeconfig(kubeconfig, 'https://127.0.0.1:9999', 'https://127.0.0.1:8475')).toThrow(
      /no cluster of the kubeconfig has the server https:\/\/127.0.0.1:9999/,
    );
  });
});

test('hostPort gives Toxiproxy its host:port form', () => {
  expect(hostPort('https://127.0.0.1:7443')).toBe('127.0.0.1:7443');
  expect(hostPort('https://example.com')).toBe('example.com:443');
});
