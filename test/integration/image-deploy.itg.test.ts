// Deploys of `&` images through the CLI (dist/cli), against the cluster, registry and BuildKit of
// .cluster/env (issue 38): a commit that changes nothing in a build context rolls nothing, `spread
// status` resolves the marker as the deploy pinned it, and a broken manifest fails before any build,
// pushing nothing. FROM images come from the local registry (SPREAD_BASE_IMAGE_REF).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { missingHarness, needs } from './harness.js';
import { kubectl, runNode, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('images-itg');
let registry: string;
let repository: string;
let auth: string;

beforeAll(async () => {
  // Top-level hooks run even when every test of the file is skipped (harness.ts).
  if (missingHarness('docker', 'registry')) return;
  registry = process.env.SPREAD_REGISTRY!;
  repository = uniqueName('images-itg');
  const password = readFileSync(process.env.SPREAD_REGISTRY_PASSWORD_FILE!, 'utf8').trim();
  auth = `Basic ${Buffer.from(`${process.env.SPREAD_REGISTRY_USER}:${password}`).toString('base64')}`;
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});

afterAll(async () => {
  if (missingHarness('docker', 'registry')) return;
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
});

/** The tags the registry holds for an image of this run (none when it has no such repository). */
async function tagsOf(name: string): Promise<string[]> {
  const res = await fetch(`http://${registry}/v2/${repository}/${name}/tags/list`, {
    headers: { authorization: auth },
  });
  if (res.status === 404) return [];
  expect(res.status).toBe(200);
  return ((await res.json()) as { tags: string[] | null }).tags ?? [];
}

/** A directory with an `&name` image built FROM the local base image, and a Service. */
function app(
  name: string,
  service = `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  ports:\n    - port: 80\n`,
) {
  return writeDir(name, {
    'web.ctr': `name: web\nimage: "&${name}"\nports:\n  - containerPort: 8080\n`,
    Dockerfile: `FROM ${process.env.SPREAD_BASE_IMAGE_REF}\nCOPY app.txt /app.txt\n`,
    'app.txt': 'v1\n',
    '.k2e/service.yaml': service,
  });
}

/** `spread COMMAND DIR spread-local -n NS --registry …` with the commit `sha` (GITHUB_SHA). */
function spread(command: string, dir: string, sha: string, ...extra: string[]) {
  return runNode(
    'dist/cli/index.js',
    [
      command,
      dir,
      ...(command === 'status' ? ['--context'] : []),
      'spread-local',
      '-n',
      ns,
      '--registry',
      `${registry}/${repository}`,
      ...extra,
    ],
    { ...process.env, GITHUB_SHA: sha },
  );
}

async function deployment(name: string) {
  const out = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'deployment', name, '-o', 'json']);
  return JSON.parse(out.stdout) as {
    metadata: { generation: number };
    spec: { template: { spec: { containers: { image: string }[] } } };
  };
}

describe('& images deployed at two commits', needs('docker', 'registry'), () => {
  const dir = app('same');
  const a = 'a'.repeat(40);
  const b = 'b'.repeat(40);

  test('a commit that changes nothing in the build context rolls nothing', async () => {
    const first = await spread('deploy', dir, a, '--no-wait', '-o', 'json');
    expect(first.code, first.stderr).toBe(0);
    const before = await deployment('same');
    const image = before.spec.template.spec.containers[0]!.image;
    // Deployed by the context's tag; the commit is a second tag of the same image.
    expect(image).toMatch(
      new RegExp(`^${registry}/${repository}/same:ctx-[0-9a-f]{12}@sha256:[0-9a-f]{64}$`),
    );
    expect((await tagsOf('same')).sort()).toEqual(
      [image.split(':')[2]!.split('@')[0]!, a.slice(0, 12)].sort(),
    );

    const second = await spread('deploy', dir, b, '--no-wait', '-o', 'json');
    expect(second.code, second.stderr).toBe(0);
    const report = JSON.parse(second.stdout) as { images: { built: boolean; reference: string }[] };
    expect(report.images[0]).toMatchObject({ built: false, reference: image });
    const after = await deployment('same');
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec.template).toEqual(before.spec.template);
    // And a plan at a third commit shows no image change.
    const plan = await spread('plan', dir, 'c'.repeat(40), '-o', 'json');
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as { objects: { kind: string; action: string }[] };
    expect(planned.objects.find((o) => o.kind === 'Deployment')?.action).toBe('unchanged');
  });

  test('spread status resolves the & marker as the deploy pinned it: in sync, exit 0', async () => {
    const status = await spread('status', dir, b, '-o', 'json');
    expect(status.code, `${status.stdout}\n${status.stderr}`).toBe(0);
    // Another build argument makes another image, which the registry does not hold: it differs.
    const drift = await spread('status', dir, b, '--build-arg', 'X=1');
    expect(drift.code, drift.stdout).toBe(2);
  });
});

test(
  'an invalid Service fails the deploy before any build: its file and line, nothing pushed',
  needs('registry'),
  async () => {
    const dir = app(
      'broken',
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: broken\nspec:\n  ports:\n    - port: 99999\n',
    );
    const out = await spread('deploy', dir, 'c'.repeat(40), '--no-wait');
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/\.k2e\/service\.yaml:\d+/);
    expect(out.stderr).toContain('Service');
    expect(out.stderr).not.toMatch(/^#\d+ /m);
    expect(await tagsOf('broken')).toEqual([]);
  },
);
