import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import {
  isLoopbackRegistry,
  MANIFEST_ACCEPT,
  parseChallenge,
  RegistryAuthError,
  RegistryClient,
} from '../../../src/image/registry.js';

test.each([
  [
    'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"',
    {
      scheme: 'bearer',
      params: {
        realm: 'https://auth.docker.io/token',
        service: 'registry.docker.io',
        scope: 'repository:library/nginx:pull',
      },
    },
  ],
  ['Basic realm="spread-registry"', { scheme: 'basic', params: { realm: 'spread-registry' } }],
  [
    'Bearer realm=x, error=insufficient_scope',
    { scheme: 'bearer', params: { realm: 'x', error: 'insufficient_scope' } },
  ],
])('parseChallenge(%s)', (header, challenge) => {
  expect(parseChallenge(header)).toEqual(challenge);
});

test.each([
  ['localhost:5000', true],
  ['127.0.0.1:5000', true],
  ['[::1]:5000', true],
  ['ghcr.io', false],
  ['localhost.example.com', false],
])('isLoopbackRegistry(%s) = %s', (host, loopback) => {
  expect(isLoopbackRegistry(host)).toBe(loopback);
});

const DIGEST = `sha256:${'c'.repeat(64)}`;
const CONFIG = `sha256:${'d'.repeat(64)}`;

/** A registry with a token service, as Docker Hub and most cloud registries work. */
function bearerRegistry(requests: string[]): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}${url.search} ${req.headers.authorization ?? '-'}`);
    const host = req.headers.host;
    if (url.pathname === '/token') {
      if (req.headers.authorization !== `Basic ${Buffer.from('u:p').toString('base64')}`) {
        res.writeHead(401).end();
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ token: `tok-${url.searchParams.get('scope')}` }));
      return;
    }
    if (req.headers.authorization !== 'Bearer tok-repository:team/web:pull') {
      res.writeHead(401, { 'www-authenticate': `Bearer realm="http://${host}/token",service="reg"` }).end();
      return;
    }
    if (url.pathname === '/v2/team/web/manifests/v1') {
      expect(req.headers.accept).toBe(MANIFEST_ACCEPT);
      res
        .writeHead(200, {
          'content-type': 'application/vnd.docker.distribution.manifest.v2+json',
          'docker-content-digest': DIGEST,
        })
        .end(
          JSON.stringify({
            schemaVersion: 2,
            mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
            config: { digest: CONFIG },
          }),
        );
      return;
    }
    if (url.pathname === `/v2/team/web/blobs/${CONFIG}`) {
      res.writeHead(200).end(JSON.stringify({ config: { Labels: { a: 'b' } } }));
      return;
    }
    res.writeHead(404).end();
  });
}

describe('RegistryClient', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    server = undefined;
  });

  async function start(s: Server): Promise<string> {
    server = s;
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  test('bearer token flow: challenge, token with basic auth for the scope, then the manifest and config', async () => {
    const requests: string[] = [];
    const host = await start(bearerRegistry(requests));
    const client = new RegistryClient(host, {
      credential: { serverAddress: host, username: 'u', password: 'p', from: 'auths' },
    });
    const manifest = await client.manifest('team/web', 'v1');
    expect(manifest?.digest).toBe(DIGEST);
    expect(await client.imageLabels('team/web', manifest!)).toEqual({ a: 'b' });
    expect(await client.manifest('team/web', 'absent')).toBeUndefined();
    expect(requests.map((r) => r.replace(/Basic \S+/, 'Basic …'))).toEqual([
      'GET /v2/team/web/manifests/v1 -',
      'GET /token?service=reg&scope=repository%3Ateam%2Fweb%3Apull Basic …',
      'GET /v2/team/web/manifests/v1 Bearer tok-repository:team/web:pull',
      `GET /v2/team/web/blobs/${CONFIG} Bearer tok-repository:team/web:pull`,
      'GET /v2/team/web/manifests/absent Bearer tok-repository:team/web:pull',
    ]);
  });

  test('a refused credential: "authentication to <registry> failed", no secret in the message', async () => {
    const host = await start(bearerRegistry([]));
    const client = new RegistryClient(host, {
      credential: { serverAddress: host, username: 'u', password: 'wrong-secret', from: 'auths' },
    });
    const error = await client.manifest('team/web', 'v1').catch((e: Error) => e);
    expect(error).toBeInstanceOf(RegistryAuthError);
    expect((error as Error).message).toMatch(new RegExp(`^authentication to ${host} failed`));
    expect((error as Error).message).not.toContain('wrong-secret');
  });

  test('basic challenge without credentials: which config was read, the image, and docker login', async () => {
    const host = await start(
      createServer((_req, res) => {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="r"' }).end();
      }),
    );
    const error = await new RegistryClient(host, { configFile: '/home/ci/.docker/config.json' })
      .manifest('team/web', 'b')
      .catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `authentication to ${host} failed: the registry asks for a user and password (HTTP 401) for ${host}/team/web; /home/ci/.docker/config.json holds no credentials for ${host}: log in with \`docker login ${host}\` (docker/login-action in a workflow) as an account that may push to team/web, or point DOCKER_CONFIG at the directory whose config.json holds such credentials`,
    );
  });

  test("a refusal quotes the registry's words (unauthorized, denied) and where the credential came from", async () => {
    const said = (status: number, code: string, message: string) =>
      createServer((req, res) => {
        if (!req.headers.authorization) {
          res.writeHead(401, { 'www-authenticate': 'Basic realm="r"' }).end();
          return;
        }
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ errors: [{ code, message, detail: null }] }));
      });
    const credential = { serverAddress: 'x', username: 'u', password: 'p', from: 'credHelpers (ecr-login)' };
    const unauthorized = await start(said(401, 'UNAUTHORIZED', 'authentication required'));
    const e401 = await new RegistryClient(unauthorized, { credential, configFile: '/c/config.json' })
      .manifest('team/web', 'v1')
      .catch((e: Error) => e);
    expect(e401).toBeInstanceOf(RegistryAuthError);
    expect((e401 as Error).message).toContain(
      `the registry refused the credentials (HTTP 401: unauthorized: authentication required) for ${unauthorized}/team/web; the credentials are /c/config.json's credHelpers (ecr-login) entry for ${unauthorized}: log in with \`docker login ${unauthorized}\``,
    );
    const denied = await start(said(403, 'DENIED', 'requested access to the resource is denied'));
    const e403 = await new RegistryClient(denied, { credential })
      .manifest('team/web', 'v1')
      .catch((e: Error) => e);
    expect((e403 as Error).message).toContain(
      'access denied (HTTP 403: denied: requested access to the resource is denied)',
    );
  });

  test('an identity token from a credential helper is named as such, never as "none"', async () => {
    const host = await start(
      createServer((_req, res) => {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="r"' }).end();
      }),
    );
    const error = await new RegistryClient(host, {
      credential: { serverAddress: host, identityToken: 'secret-token', from: 'credsStore (desktop)' },
    })
      .manifest('team/web', 'v1')
      .catch((e: Error) => e);
    const message = (error as Error).message;
    expect(message).toContain(
      "the Docker config's credential for it is an identity token (from credsStore (desktop)), which only a Bearer token service takes",
    );
    expect(message).toContain("the Docker config's credsStore (desktop) entry");
    expect(message).not.toMatch(/\bnone\b/);
    expect(message).not.toContain('secret-token');
  });

  test('a loopback registry is asked over plain HTTP first: no TLS handshake reaches a plain registry', async () => {
    const requests: string[] = [];
    const s = bearerRegistry(requests);
    let handshakes = 0;
    s.on('clientError', (_e, socket) => {
      handshakes++;
      socket.destroy();
    });
    const host = await start(s);
    const client = new RegistryClient(host, {
      credential: { serverAddress: host, username: 'u', password: 'p', from: 'auths' },
    });
    expect((await client.manifest('team/web', 'v1'))?.digest).toBe(DIGEST);
    expect(handshakes).toBe(0);
    expect(requests[0]).toBe('GET /v2/team/web/manifests/v1 -');
  });

  test('a loopback port that answers plain HTTP with 400 (a TLS port) is tried over HTTPS; when that fails too, the 400 is the answer', async () => {
    const seen: string[] = [];
    const s = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(400).end('Client sent an HTTP request to an HTTPS server.\n');
    });
    s.on('clientError', (_e, socket) => {
      seen.push('TLS handshake');
      socket.destroy();
    });
    const host = await start(s);
    const error = await new RegistryClient(host).manifest('a', 'b').catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(`${host}/a:b: HTTP 400`);
    expect(seen).toEqual(['GET /v2/a/manifests/b', 'TLS handshake']);
  });
});
