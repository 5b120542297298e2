import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { applicationUrl, parseUrlFrom } from '../../../src/report/url.js';

const ingress = (name: string, spec: unknown): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, namespace: 'shop' },
  spec,
});
const route = (name: string, spec: unknown): KubeObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name, namespace: 'shop' },
  spec,
});
const service = (
  name: string,
  ports: number[],
  ingressStatus: unknown[],
  type = 'LoadBalancer',
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'shop' },
  spec: { type, ports: ports.map((port) => ({ port })) },
  status: { loadBalancer: { ingress: ingressStatus } },
});
const gateway = (listeners: unknown[]): KubeObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name: 'gw', namespace: 'infra' },
  spec: { listeners },
});
const web = ingress('web', { rules: [{ host: 'shop.example.com' }] });
const lb = service('lb', [80], [{ ip: '203.0.113.7' }]);

describe('applicationUrl', () => {
  test.each<[string, KubeObject[], string | undefined, string | undefined]>([
    ['an Ingress host without TLS: http', [web], 'http://shop.example.com', 'ingress/web'],
    [
      'an Ingress host its tls lists: https',
      [ingress('web', { tls: [{ hosts: ['shop.example.com'] }], rules: [{ host: 'shop.example.com' }] })],
      'https://shop.example.com',
      'ingress/web',
    ],
    [
      'a wildcard certificate covers one label',
      [ingress('web', { tls: [{ hosts: ['*.example.com'] }], rules: [{ host: 'shop.example.com' }] })],
      'https://shop.example.com',
      'ingress/web',
    ],
    [
      'a wildcard certificate does not cover two labels',
      [ingress('web', { tls: [{ hosts: ['*.example.com'] }], rules: [{ host: 'a.shop.example.com' }] })],
      'http://a.shop.example.com',
      'ingress/web',
    ],
    [
      'the first path of the rule, without a trailing slash',
      [ingress('web', { rules: [{ host: 'x.example.com', http: { paths: [{ path: '/app/' }] } }] })],
      'http://x.example.com/app',
      'ingress/web',
    ],
    [
      'a regex path is not appended',
      [ingress('web', { rules: [{ host: 'x.example.com', http: { paths: [{ path: '/api(/|$)(.*)' }] } }] })],
      'http://x.example.com',
      'ingress/web',
    ],
    [
      'a wildcard or missing host gives nothing; a later rule does',
      [ingress('web', { rules: [{}, { host: '*.example.com' }, { host: 'b.example.com' }] })],
      'http://b.example.com',
      'ingress/web',
    ],
    ['an Ingress wins over a LoadBalancer', [lb, web], 'http://shop.example.com', 'ingress/web'],
    [
      'an HTTPRoute wins over a LoadBalancer; https without a known Gateway',
      [lb, route('r', { hostnames: ['r.example.com'] })],
      'https://r.example.com',
      'httproute/r',
    ],
    ['a LoadBalancer with port 80', [lb], 'http://203.0.113.7', 'service/lb'],
    [
      'port 443: https',
      [service('lb', [80, 443], [{ hostname: 'lb.example.net' }])],
      'https://lb.example.net',
      'service/lb',
    ],
    [
      'another port is written',
      [service('lb', [8080], [{ ip: '203.0.113.7' }])],
      'http://203.0.113.7:8080',
      'service/lb',
    ],
    [
      'an IPv6 address in brackets',
      [service('lb', [80], [{ ip: '2001:db8::1' }])],
      'http://[2001:db8::1]',
      'service/lb',
    ],
    ['a LoadBalancer without an address yet: none', [service('lb', [80], [])], undefined, undefined],
    [
      'a ClusterIP Service: none',
      [service('c', [80], [{ ip: '10.0.0.1' }], 'ClusterIP')],
      undefined,
      undefined,
    ],
    [
      'by name within a kind',
      [
        ingress('zeta', { rules: [{ host: 'z.example.com' }] }),
        ingress('alpha', { rules: [{ host: 'a.example.com' }] }),
      ],
      'http://a.example.com',
      'ingress/alpha',
    ],
    ['nothing at all', [], undefined, undefined],
  ])('%s', (_, objects, url, object) => {
    const found = applicationUrl(objects);
    expect(found?.url).toBe(url);
    expect(found?.object).toBe(object);
  });

  test('url-from picks the named object over the rule', () => {
    expect(applicationUrl([web, lb], { from: parseUrlFrom('svc/lb') })).toEqual({
      url: 'http://203.0.113.7',
      object: 'service/lb',
    });
    expect(applicationUrl([web], { from: parseUrlFrom('service/lb') })).toBeUndefined();
  });

  test.each<[string, unknown[], { sectionName?: string; port?: number }, string]>([
    ['every listener HTTP: http', [{ name: 'web', port: 80, protocol: 'HTTP' }], {}, 'http://r.example.com'],
    [
      'an HTTPS listener: https',
      [
        { name: 'web', port: 80, protocol: 'HTTP' },
        { name: 'tls', port: 443, protocol: 'HTTPS' },
      ],
      {},
      'https://r.example.com',
    ],
    [
      'the section named: its protocol',
      [
        { name: 'web', port: 80, protocol: 'HTTP' },
        { name: 'tls', port: 443, protocol: 'HTTPS' },
      ],
      { sectionName: 'web' },
      'http://r.example.com',
    ],
  ])('HTTPRoute scheme from its parent Gateway: %s', (_, listeners, ref, url) => {
    const r = route('r', {
      hostnames: ['r.example.com'],
      parentRefs: [{ name: 'gw', namespace: 'infra', ...ref }],
    });
    const gw = gateway(listeners);
    expect(
      applicationUrl([r], { gateway: (ns, name) => (ns === 'infra' && name === 'gw' ? gw : undefined) })?.url,
    ).toBe(url);
  });
});

describe('parseUrlFrom', () => {
  test.each([
    ['ingress/web', { kind: 'ingress', name: 'web' }],
    ['Ingress/web', { kind: 'ingress', name: 'web' }],
    ['httproute/web', { kind: 'httproute', name: 'web' }],
    ['svc/web', { kind: 'service', name: 'web' }],
  ])('%s', (text, expected) => expect(parseUrlFrom(text)).toEqual(expected));
  test.each(['web', 'configmap/web', 'ingress/', 'ingress/a/b'])('rejects %s', (text) =>
    expect(() => parseUrlFrom(text)).toThrow(
      /expected KIND\/NAME of an Ingress, HTTPRoute or LoadBalancer Service/,
    ),
  );
});
