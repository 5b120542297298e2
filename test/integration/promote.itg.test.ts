// `spread promote` through the CLI (dist/cli) against the local cluster, registry and BuildKit of
// .cluster/env (issue 41): a kustomize base with an `&web` image and two overlays (staging, production)
// declared in spread.yaml; staging deployed (built), then promoted: production runs staging's digest
// with its own replicas and host, nothing built (the builder unreachable), and refusals after failures.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureClusters, type LocalClusters } from './clusters.js';
import { missingHarness, needs } from './harness.js';
import { kubectl, runNode, uniqueName, writeDir } from './helpers.js';

const base = uniqueName('promote-itg');
const staging = `${base}-staging`;
const production = `${base}-production`;
let registry: string;
let local: LocalClusters;
let dir: string;

/** kubectl on local cluster `n` (0: staging's, 1: production's). */
const on = (n: number, ...args: string[]) =>
  kubectl(['--kubeconfig', local.kubeconfig, '--context', local.clusters[n]!.context, ...args]);

beforeAll(async () => {
  if (missingHarness('docker', 'registry', 'clusters')) return;
  registry = `${process.env.SPREAD_REGISTRY!}/${uniqueName('promote-itg')}`;
  local = await ensureClusters(2);
  dir = writeDir('shop', files(local));
  await on(0, 'create', 'namespace', staging);
  await on(1, 'create', 'namespace', production);
}, 240_000);

afterAll(async () => {
  if (missingHarness('docker', 'registry', 'clusters')) return;
  await on(0, 'delete', 'namespace', staging, '--wait=false').catch(() => undefined);
  await on(1, 'delete', 'namespace', production, '--wait=false').catch(() => undefined);
});

/** An overlay: the base, `replicas` of web, its ingress.yaml, and `patches`. */
function overlay(replicas: number, patches = ''): string {
  return `resources:\n  - ../../base\n  - ingress.yaml\nreplicas:\n  - name: web\n    count: ${replicas}\n${patches}`;
}
const ingress = (host: string) =>
  `apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  rules:\n    - host: ${host}\n      http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend:\n              service:\n                name: web\n                port:\n                  number: 80\n`;

/** The repository: spread.yaml naming each environment's cluster, the base and its two overlays. */
const files = ({ clusters: [a, b] }: LocalClusters) => ({
  'spread.yaml': `environments:\n  staging:\n    context: ${a!.context}\n    namespace: ${staging}\n    path: overlays/staging\n    kubeSystemUID: ${a!.kubeSystemUID}\n  production:\n    context: ${b!.context}\n    namespace: ${production}\n    path: overlays/production\n    server: ${b!.server}\n    kubeSystemUID: ${b!.kubeSystemUID}\n    after: staging\n`,
  'base/kustomization.yaml': 'resources:\n  - deployment.yaml\n  - service.yaml\n',
  'base/deployment.yaml': `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: { app: web }\n  template:\n    metadata:\n      labels: { app: web }\n    spec:\n      containers:\n        - name: web\n          image: "&web"\n          command: ["sh", "-c", "sleep 3600"]\n`,
  'base/service.yaml':
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: { app: web }\n  ports:\n    - port: 80\n',
  'base/Dockerfile': `FROM ${process.env.SPREAD_BASE_IMAGE_REF}\nCOPY app.txt /app.txt\n`,
  'base/app.txt': 'v1\n',
  'overlays/staging/kustomization.yaml': overlay(1),
  'overlays/staging/ingress.yaml': ingress('staging.shop.test'),
  'overlays/production/kustomization.yaml': overlay(2),
  'overlays/production/ingress.yaml': ingress('shop.test'),
});

/** A kustomize patch adding a container whose image the local cluster's kubelet (kwok) fails to pull. */
const UNPULLABLE_SIDECAR =
  'patches:\n  - target: { kind: Deployment, name: web }\n    patch: |-\n      - op: add\n        path: /spec/template/spec/containers/-\n        value: { name: sidecar, image: "unpullable.invalid/sidecar:1" }\n';

const A = 'a1'.repeat(20);
const B = 'b2'.repeat(20);
const C = 'c3'.repeat(20);

/** `spread deploy --environment staging` as staging's job would, at commit `sha`. */
function deployStaging(sha: string, ...extra: string[]) {
  return runNode(
    'dist/cli/index.js',
    ['deploy', dir, '--environment', 'staging', '--name', 'shop', '--registry', registry, ...extra],
    { ...process.env, KUBECONFIG: local.kubeconfig, GITHUB_SHA: sha },
  );
}

/**
 * `spread promote --to production` at commit `sha`, with Docker and BuildKit unreachable: a build, or
 * any buildx call, would fail the command.
 */
function promote(sha: string, ...extra: string[]) {
  return runNode('dist/cli/index.js', ['promote', dir, '--to', 'production', '--name', 'shop', ...extra], {
    ...process.env,
    KUBECONFIG: local.kubeconfig,
    GITHUB_SHA: sha,
    DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    BUILDX_BUILDER: 'no-such-builder',
    BUILDKIT_HOST: 'tcp://127.0.0.1:1',
  });
}

/** Cluster 1 holds staging's namespace, cluster 2 production's. */
const clusterOf = (ns: string) => (ns === staging ? 0 : 1);

async function get(ns: string, what: string) {
  const out = await on(clusterOf(ns), '-n', ns, 'get', what, '-o', 'json');
  return JSON.parse(out.stdout) as {
    metadata: { resourceVersion: string; annotations?: Record<string, string> };
    spec: {
      replicas?: number;
      rules?: { host: string }[];
      template?: { spec: { containers: { image: string }[] } };
    };
  };
}

/** `spread history shop` on the cluster of `ns`, as text or (`json`) parsed. */
function historyRun(ns: string, ...extra: string[]) {
  return runNode(
    'dist/cli/index.js',
    ['history', 'shop', local.clusters[clusterOf(ns)]!.context, '-n', ns, ...extra],
    { ...process.env, KUBECONFIG: local.kubeconfig },
  );
}

async function history(ns: string) {
  const out = await historyRun(ns, '-o', 'json');
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as {
    current: number;
    revisions: {
      revision: number;
      status: string;
      commit?: string;
      environment?: string;
      promotedFrom?: { environment: string; revision: number };
      marks?: { mark: string; reference: string; digest: string }[];
    }[];
  };
}

/**
 * Points `reference`'s tag at another image (the base image, its blobs mounted from its repository):
 * what a later push of the same tag does. A deploy that looked the tag up would build again; a
 * promotion pins the digest staging ran and never looks at the tag.
 */
async function moveTag(reference: string): Promise<void> {
  const password = readFileSync(process.env.SPREAD_REGISTRY_PASSWORD_FILE!, 'utf8').trim();
  const authorization = `Basic ${Buffer.from(`${process.env.SPREAD_REGISTRY_USER}:${password}`).toString('base64')}`;
  const [host, ...rest] = reference.split('@')[0]!.split('/');
  const [repository, tag] = rest.join('/').split(':') as [string, string];
  const [baseHost, ...baseRest] = process.env.SPREAD_BASE_IMAGE_REF!.split('/');
  const [baseRepository, baseTag] = baseRest.join('/').split(':') as [string, string];
  expect(baseHost).toBe(host);
  const accept =
    'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json';
  const got = await fetch(`http://${host}/v2/${baseRepository}/manifests/${baseTag}`, {
    headers: { authorization, accept },
  });
  expect(got.status).toBe(200);
  const type = got.headers.get('content-type')!;
  const manifest = await got.text();
  const parsed = JSON.parse(manifest) as { config: { digest: string }; layers: { digest: string }[] };
  for (const blob of [parsed.config, ...parsed.layers]) {
    const mounted = await fetch(
      `http://${host}/v2/${repository}/blobs/uploads/?mount=${blob.digest}&from=${baseRepository}`,
      { method: 'POST', headers: { authorization } },
    );
    expect(mounted.status).toBe(201);
  }
  const put = await fetch(`http://${host}/v2/${repository}/manifests/${tag}`, {
    method: 'PUT',
    headers: { authorization, 'content-type': type },
    body: manifest,
  });
  expect(put.status).toBe(201);
}

const imageOf = async (ns: string) =>
  (await get(ns, 'deployment/web')).spec.template!.spec.containers[0]!.image;

describe('spread promote --to production', needs('docker', 'registry', 'clusters'), () => {
  let stagingImage: string;

  test("staging deployed, then promoted: production runs staging's digest with its own settings, nothing built", async () => {
    const deployed = await deployStaging(A);
    expect(deployed.code, deployed.stderr).toBe(0);
    stagingImage = await imageOf(staging);
    expect(stagingImage).toMatch(/@sha256:[0-9a-f]{64}$/);
    const stagingHistory = await history(staging);
    expect(stagingHistory.revisions[0]).toMatchObject({
      commit: A,
      environment: 'staging',
      marks: [{ mark: '&web', reference: stagingImage, digest: stagingImage.split('@')[1] }],
    });

    // The tag staging deployed now names another image: only the digest says what staging ran.
    await moveTag(stagingImage);
    const promoted = await promote(A, '-o', 'json');
    expect(promoted.code, `${promoted.stdout}\n${promoted.stderr}`).toBe(0);
    const report = JSON.parse(promoted.stdout) as {
      images: { built: boolean; pushed: boolean; reference: string }[];
      promotion: { from: { environment: string; revision: number }; commit: string; unchanged: boolean };
    };
    expect(report.images).toEqual([
      expect.objectContaining({ built: false, pushed: false, reference: stagingImage }),
    ]);
    expect(report.promotion).toMatchObject({
      from: { environment: 'staging', revision: stagingHistory.current },
      commit: A,
      unchanged: false,
    });
    // The pod templates run the same image, by digest.
    expect(await imageOf(production)).toBe(stagingImage);
    // Production's own settings.
    expect((await get(production, 'deployment/web')).spec.replicas).toBe(2);
    expect((await get(staging, 'deployment/web')).spec.replicas).toBe(1);
    expect((await get(production, 'ingress/web')).spec.rules?.[0]?.host).toBe('shop.test');
    const productionHistory = await history(production);
    expect(productionHistory.revisions).toHaveLength(1);
    expect(productionHistory.revisions[0]).toMatchObject({
      status: 'deployed',
      commit: A,
      environment: 'production',
      promotedFrom: { environment: 'staging', revision: stagingHistory.current },
      marks: [{ mark: '&web', reference: stagingImage }],
    });
    const text = await historyRun(production);
    expect(text.stdout).toMatch(/production\s+a1a1a1a1a1a1\s+\d+\s+\S+\s+promoted from staging revision 1/);
  });

  test('a second promote is a no-op: nothing written, no new revision', async () => {
    const before = await get(production, 'deployment/web');
    const promoted = await promote(A);
    expect(promoted.code, `${promoted.stdout}\n${promoted.stderr}`).toBe(0);
    expect(promoted.stdout).toContain('production already runs staging revision 1');
    expect((await get(production, 'deployment/web')).metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
    expect((await history(production)).revisions).toHaveLength(1);
  });

  test('refused when the checkout is another commit than staging ran', async () => {
    const promoted = await promote(B);
    expect(promoted.code).toBe(1);
    expect(promoted.stderr).toContain(
      `the checkout is at commit ${B}, but staging's revision 1 ran commit ${A}`,
    );
    expect(promoted.stderr).toContain('nothing was written');
  });

  test("refused after staging's rollout failed (the same image, a sidecar that cannot be pulled)", async () => {
    const file = path.join(dir, 'overlays/staging/kustomization.yaml');
    writeFileSync(file, overlay(1, UNPULLABLE_SIDECAR));
    const failed = await deployStaging(B, '--timeout', '60s');
    expect(failed.code, failed.stdout).toBe(1);
    expect((await history(staging)).revisions[0]).toMatchObject({ status: 'failed', commit: B });
    const before = await get(production, 'deployment/web');
    const promoted = await promote(B);
    expect(promoted.code).toBe(1);
    expect(promoted.stderr).toMatch(/staging's last rollout failed: revision 2 \(rollout failed/);
    expect(promoted.stderr).not.toContain('its images differ');
    expect((await get(production, 'deployment/web')).metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
    writeFileSync(file, overlay(1));
    const fixed = await deployStaging(B);
    expect(fixed.code, fixed.stderr).toBe(0);
  });

  test("refused after a rebuild changed staging's digest but the rollout failed", async () => {
    const dockerfile = path.join(dir, 'base/Dockerfile');
    const file = path.join(dir, 'overlays/staging/kustomization.yaml');
    const good = readFileSync(dockerfile, 'utf8');
    // Another image (its digest changes), deployed in a rollout that fails: the local cluster's
    // kubelet (kwok) runs every image it can pull, so the failure is a sidecar it cannot.
    writeFileSync(dockerfile, good.replace('COPY app.txt /app.txt', 'COPY app.txt /app2.txt'));
    writeFileSync(file, overlay(1, UNPULLABLE_SIDECAR));
    const failed = await deployStaging(C, '--timeout', '60s');
    expect(failed.code, failed.stdout).toBe(1);
    const h = await history(staging);
    expect(h.revisions[0]).toMatchObject({ status: 'failed', commit: C });
    const newDigest = h.revisions[0]!.marks![0]!.digest;
    expect(newDigest).not.toBe(stagingImage.split('@')[1]);
    const promoted = await promote(C);
    expect(promoted.code).toBe(1);
    expect(promoted.stderr).toMatch(/staging's last rollout failed: revision \d+/);
    expect(promoted.stderr).toContain(
      `its images differ from revision 3, the last good one: &web ${stagingImage.split('@')[1]!.slice(0, 19)}… → ${newDigest.slice(0, 19)}…`,
    );
    expect(await imageOf(production)).toBe(stagingImage);
    writeFileSync(dockerfile, good);
    writeFileSync(file, overlay(1));
  });
  test('refused when a digest staging ran is gone from the registry', async () => {
    const deployed = await deployStaging(C);
    expect(deployed.code, deployed.stderr).toBe(0);
    const image = await imageOf(staging);
    const [name, digest] = image.split('@') as [string, string];
    const [host, ...rest] = name.split('/');
    const password = readFileSync(process.env.SPREAD_REGISTRY_PASSWORD_FILE!, 'utf8').trim();
    const authorization = `Basic ${Buffer.from(`${process.env.SPREAD_REGISTRY_USER}:${password}`).toString('base64')}`;
    const deleted = await fetch(`http://${host}/v2/${rest.join('/').split(':')[0]}/manifests/${digest}`, {
      method: 'DELETE',
      headers: { authorization },
    });
    expect(deleted.status).toBe(202);
    const before = await get(production, 'deployment/web');
    const promoted = await promote(C);
    expect(promoted.code).toBe(1);
    expect(promoted.stderr).toContain(`${image} (&web) is gone from the registry`);
    expect((await get(production, 'deployment/web')).metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
  });
  test("refused before anything is read or written when production's context reaches another cluster", async () => {
    const file = path.join(dir, 'spread.yaml');
    const declared = readFileSync(file, 'utf8');
    const [a, b] = local.clusters;
    // Production says it is cluster 1; its context reaches cluster 2.
    writeFileSync(
      file,
      declared.replace(`kubeSystemUID: ${b!.kubeSystemUID}`, `kubeSystemUID: ${a!.kubeSystemUID}`),
    );
    try {
      const promoted = await promote(C);
      expect(promoted.code).toBe(1);
      expect(promoted.stderr).toContain(
        `wrong cluster: environment production is server ${b!.server} (spread.yaml:`,
      );
      expect(promoted.stderr).toMatch(
        new RegExp(`kube-system uid ${a!.kubeSystemUID} \\(spread\\.yaml:\\d+\\), but context`),
      );
      expect(promoted.stderr).toContain(`reaches server ${b!.server}, kube-system uid ${b!.kubeSystemUID}`);
    } finally {
      writeFileSync(file, declared);
    }
  });
});
