// A stand-in for the GitHub Actions cache service (v2, what github.com runners use): the Twirp JSON API
// of github.actions.results.api.v1.CacheService at ACTIONS_RESULTS_URL, and the blob storage its signed
// URLs point at, enough for @actions/cache's restoreCache and saveCache. Entries follow the service's
// rules: matched by key and version (a hash of the paths and compression), the exact key first, then
// each restore key as a prefix, newest first; a key+version is written once. Like the service, it
// answers with the protobuf field names (`signed_upload_url`), which is what @actions/cache masks.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const SERVICE = '/twirp/github.actions.results.api.v1.CacheService/';

export interface CacheEntry {
  key: string;
  version: string;
  /** The archive; undefined until the upload is finalized. */
  data: Buffer | undefined;
  created: number;
}

export interface ActionsCacheServer {
  /** ACTIONS_RESULTS_URL. */
  readonly url: string;
  /** The environment a runner sets for the cache. */
  readonly env: NodeJS.ProcessEnv;
  readonly entries: CacheEntry[];
  /** `GetCacheEntryDownloadURL key → matched key or "miss"`, `CreateCacheEntry key`, … in order. */
  readonly calls: string[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startActionsCacheServer(): Promise<ActionsCacheServer> {
  // JWT-shaped, as the runner's: BuildKit's gha backend reads the cache scopes from its `ac` claim.
  const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const token = [
    b64url({ alg: 'HS256', typ: 'JWT' }),
    b64url({
      ac: JSON.stringify([{ Scope: 'refs/heads/main', Permission: 3 }]),
      nonce: Math.random().toString(36).slice(2),
      exp: Math.floor(Date.now() / 1000) + 3600,
      nbf: Math.floor(Date.now() / 1000) - 60,
    }),
    'c3RhbmQtaW4',
  ].join('.');
  const blocks = new Map<string, Buffer>();
  const entries: CacheEntry[] = [];
  const calls: string[] = [];
  let url = '';
  let clock = 0;
  const blobUrl = (i: number) => `${url}devstoreaccount1/actions-cache/entry-${i}?sig=s3cr3t-${i}`;

  const twirp = async (method: string, request: Record<string, unknown>, res: ServerResponse) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const key = String(request.key ?? '');
    const version = String(request.version ?? '');
    switch (method) {
      case 'GetCacheEntryDownloadURL': {
        const restoreKeys = (request.restore_keys ?? request.restoreKeys ?? []) as string[];
        const ready = entries.filter((e) => e.version === version && e.data !== undefined);
        const newest = (list: CacheEntry[]) => list.sort((a, b) => b.created - a.created)[0];
        let hit = ready.find((e) => e.key === key);
        for (const prefix of restoreKeys) hit ??= newest(ready.filter((e) => e.key.startsWith(prefix)));
        calls.push(`${method} ${key} → ${hit ? hit.key : 'miss'}`);
        if (!hit) return json(200, { ok: false });
        return json(200, {
          ok: true,
          signed_download_url: blobUrl(entries.indexOf(hit)),
          matched_key: hit.key,
        });
      }
      case 'CreateCacheEntry': {
        calls.push(`${method} ${key}`);
        if (entries.some((e) => e.key === key && e.version === version))
          return json(409, {
            code: 'already_exists',
            msg: 'cache entry with the same key and version already exists',
          });
        entries.push({ key, version, data: undefined, created: 0 });
        return json(200, { ok: true, signed_upload_url: blobUrl(entries.length - 1) });
      }
      case 'FinalizeCacheEntryUpload': {
        calls.push(`${method} ${key}`);
        const i = entries.findIndex((e) => e.key === key && e.version === version);
        const entry = entries[i];
        if (!entry?.data) return json(200, { ok: false, message: 'nothing was uploaded' });
        entry.created = ++clock;
        return json(200, { ok: true, entry_id: String(i + 1) });
      }
      default:
        return json(404, { code: 'bad_route', msg: `no method ${method}` });
    }
  };

  const server: Server = createServer(async (req, res) => {
    try {
      const u = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST' && u.pathname.startsWith(SERVICE)) {
        if (req.headers.authorization !== `Bearer ${token}`) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: 'unauthenticated', msg: 'bad token' }));
          return;
        }
        const body = await readBody(req);
        await twirp(u.pathname.slice(SERVICE.length), JSON.parse(body.toString('utf8') || '{}'), res);
        return;
      }
      // The blob store of the signed URLs (the Azure Blob "Put Blob" and "Get Blob" operations).
      const blob = /^\/devstoreaccount1\/actions-cache\/entry-(\d+)$/.exec(u.pathname);
      const entry = blob ? entries[Number(blob[1])] : undefined;
      if (!entry || u.searchParams.get('sig') !== `s3cr3t-${blob![1]}`) {
        res.writeHead(404).end();
        return;
      }
      if (req.method === 'PUT') {
        // Azure "Put Block" and "Put Block List" (BuildKit's gha backend uploads in blocks).
        if (u.searchParams.get('comp') === 'block') {
          blocks.set(`${blob![1]}/${u.searchParams.get('blockid')}`, await readBody(req));
          res.writeHead(201, { 'x-ms-request-id': 'stand-in' }).end();
          return;
        }
        if (u.searchParams.get('comp') === 'blocklist') {
          const ids = [
            ...(await readBody(req)).toString('utf8').matchAll(/<(?:Latest|Uncommitted|Committed)>([^<]*)</g),
          ];
          entry.data = Buffer.concat(ids.map((m) => blocks.get(`${blob![1]}/${m[1]}`) ?? Buffer.alloc(0)));
          res.writeHead(201, { etag: `"${entry.data.length}"`, 'x-ms-request-id': 'stand-in' }).end();
          return;
        }
        if (u.searchParams.get('comp')) {
          res.writeHead(501).end();
          return;
        }
        entry.data = await readBody(req);
        res.writeHead(201, { etag: `"${entry.data.length}"`, 'x-ms-request-id': 'stand-in' }).end();
        return;
      }
      const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? req.headers['x-ms-range'] ?? ''));
      if (req.method === 'GET' && entry.data && range) {
        const start = Number(range[1]);
        const end = range[2] ? Math.min(Number(range[2]), entry.data.length - 1) : entry.data.length - 1;
        res.writeHead(206, {
          'content-length': end - start + 1,
          'content-range': `bytes ${start}-${end}/${entry.data.length}`,
          'content-type': 'application/octet-stream',
        });
        res.end(entry.data.subarray(start, end + 1));
        return;
      }
      if ((req.method === 'GET' || req.method === 'HEAD') && entry.data) {
        res.writeHead(200, {
          'content-length': entry.data.length,
          'content-type': 'application/octet-stream',
        });
        res.end(req.method === 'GET' ? entry.data : undefined);
        return;
      }
      res.writeHead(405).end();
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    env: { ACTIONS_RESULTS_URL: url, ACTIONS_CACHE_SERVICE_V2: 'true', ACTIONS_RUNTIME_TOKEN: token },
    entries,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
