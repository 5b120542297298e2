// The differential test for kustomize overlays: a base with two overlays of our own
// (differential-kustomize-corpus.ts), each overlay through `kubectl apply --server-side -k` (ApplySet
// prune, field manager `kubectl`, kubectl's own kustomize) into one namespace and through `spread
// deploy` of the overlay (the CLI, rendering with the kustomize binary the harness builds) into
// another; after each state the stored objects are compared field by field. Also: dropping an
// object prunes exactly it, a broken overlay patch fails naming its file and writes nothing, and the
// sources and image marks spread reads through kustomize's origin annotations.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kustomizeRenderer } from '../../src/input/kustomize.js';
import {
  CONTEXT,
  differentialSides,
  exitDisagreement,
  kubectlApply,
  kubectlRun,
  type Run,
  type Side,
  spreadDeploy,
  stored,
  storedDisagreements,
} from './differential-compare.js';
import { BROKEN, OVERLAYS, steps, type Tree } from './differential-kustomize-corpus.js';
import { kustomizeBinary } from './env.js';
import { needs } from './harness.js';
import { ROOT, runNode } from './helpers.js';

const KINDS = 'configmaps,secrets,services,serviceaccounts,deployments';
/** Helm 4 as the harness builds it (SPREAD_HELM, else its cache path), for helmCharts. */
const helmBinary = () => {
  const cache =
    process.env.SPREAD_CACHE ||
    path.join(process.env.XDG_CACHE_HOME || path.join(process.env.HOME ?? '', '.cache'), 'spread');
  const version = /SPREAD_HELM_VERSION:=([^}]+)\}/.exec(
    readFileSync(path.join(ROOT, 'scripts/cluster/versions.sh'), 'utf8'),
  )?.[1];
  return process.env.SPREAD_HELM || path.join(cache, 'bin', `helm-${version}`, 'helm');
};
const sides = differentialSides('kustomize');
const temp = sides.temp;
/** spread finds kustomize on PATH, as on a user's runner. */
const spreadEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  PATH: `${path.dirname(kustomizeBinary())}${path.delimiter}${process.env.PATH}`,
});

function writeTree(root: string, tree: Tree): void {
  rmSync(root, { recursive: true, force: true });
  for (const [file, content] of Object.entries(tree)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
}

async function apply(side: Side, overlay: string): Promise<Run> {
  const dir = path.join(side.root, overlay);
  if (side.tool === 'kubectl') return kubectlApply(side.ns, ['-k', dir]);
  return spreadDeploy(dir, side.ns, [], spreadEnv());
}

/** The uid of every object of the ApplySet in a namespace, by `Kind/name`. */
async function uids(ns: string): Promise<Map<string, string>> {
  const r = await kubectlRun(['get', KINDS, '-n', ns, '-l', 'applyset.kubernetes.io/part-of', '-o', 'json']);
  if (r.code !== 0) throw new Error(`kubectl get failed: ${r.stderr}`);
  const items = (
    JSON.parse(r.stdout) as { items: { kind: string; metadata: { name: string; uid: string } }[] }
  ).items;
  return new Map(items.map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.uid]));
}

beforeAll(async () => {
  const said = await runNode('dist/cli/index.js', ['--version'], spreadEnv());
  if (said.code !== 0) throw new Error(`dist/cli/index.js does not run (build it): ${said.stderr}`);
});

afterAll(() => sides.cleanUp());

describe('Differential, kustomize: spread deploy of an overlay stores what kubectl apply --server-side -k stores', () => {
  test.each(OVERLAYS)('%s, state by state: both exit 0 and store the same objects', async (overlay) => {
    const label = path.basename(overlay);
    const [k, s] = [await sides.newSide('kubectl', label), await sides.newSide('spread', label)];
    const disagreements: string[] = [];
    let before = new Map<string, string>();
    for (const [i, step] of steps().entries()) {
      writeTree(k.root, step.tree);
      writeTree(s.root, step.tree);
      const [rk, rs] = [await apply(k, overlay), await apply(s, overlay)];
      const at = `state ${i + 1} (${step.title})`;
      const failed = exitDisagreement(at, rk, rs);
      if (failed) {
        disagreements.push(failed);
        break;
      }
      const [sk, ss] = [await stored(k, KINDS), await stored(s, KINDS)];
      expect(sk.size, at).toBeGreaterThanOrEqual(3);
      disagreements.push(...storedDisagreements(sk, ss, at));
      const now = await uids(s.ns);
      if (overlay === 'overlays/prod' && step.drops) {
        // Exactly the dropped objects are gone; every other object is the same object (its uid).
        const gone = [...before.keys()].filter((key) => !now.has(key));
        expect(gone, at).toEqual(step.drops);
        for (const [key, uid] of now)
          if (before.has(key)) expect([key, uid], at).toEqual([key, before.get(key)]);
      }
      before = now;
    }
    expect(disagreements).toEqual([]);
  });

  test.each(BROKEN)('$title: both fail, spread names $file and writes nothing', async ({ tree, file }) => {
    const [k, s] = [await sides.newSide('kubectl', 'broken'), await sides.newSide('spread', 'broken')];
    writeTree(k.root, tree);
    writeTree(s.root, tree);
    const [rk, rs] = [await apply(k, 'overlays/prod'), await apply(s, 'overlays/prod')];
    expect(rk.code, rk.stdout).not.toBe(0);
    expect(rs.code, rs.stdout).toBe(1);
    // Sources are relative to the input root, the overlay: the file as the overlay names it.
    const named = path.posix.relative('overlays/prod', file) || file;
    expect(rs.stderr).toContain(`${named}: kustomize v`);
    expect((await uids(s.ns)).size).toBe(0);
  });
});

describe('kustomize renders with sources and marks from the files the user wrote', () => {
  const first = steps()[0]!.tree;
  const prodFile = first['overlays/prod/kustomization.yaml'] as string;
  test.each([
    ['overlays/prod', first],
    ['overlays/staging', first],
    // The user's own buildMetadata (the origin annotations kept, with their paths) and sortOptions.
    [
      'overlays/prod',
      {
        ...first,
        'overlays/prod/kustomization.yaml': `${prodFile}buildMetadata: [originAnnotations, transformerAnnotations, managedByLabel]\nsortOptions:\n  order: fifo\n`,
      },
    ],
  ])('%s: the objects are exactly what kustomize build FOLDER prints', async (overlay, tree) => {
    const root = path.join(temp, `exact-${Math.random().toString(36).slice(2, 8)}`);
    writeTree(root, tree);
    const folder = path.join(root, overlay);
    const result = await kustomizeRenderer({ command: kustomizeBinary() })({
      kind: 'kustomize',
      abs: folder,
      dir: overlay,
      root,
    });
    expect(result.issues).toEqual([]);
    const direct = execFileSync(kustomizeBinary(), ['build', folder], { encoding: 'utf8' });
    expect(result.objects.map((o) => o.value)).toEqual(parseAllDocuments(direct).map((d) => d.toJS()));
  });

  test('each object names its base or overlay file and line, generated objects their generator entry', async () => {
    const root = path.join(temp, 'sources');
    writeTree(root, steps()[2]!.tree);
    const r = await runNode('dist/cli/index.js', ['debug-objects', root], spreadEnv());
    expect(r.code, r.stderr).toBe(0);
    const sources = Object.fromEntries(
      (
        JSON.parse(r.stdout) as {
          source: { file: string; line: number; via?: string };
          object: { kind: string; metadata: { name: string } };
        }[]
      ).map((o) => [
        `${o.object.kind}/${o.object.metadata.name}`,
        `${o.source.file}:${o.source.line}${o.source.via ? ` via ${o.source.via}` : ''}`,
      ]),
    );
    expect(sources).toMatchObject({
      'Deployment/prod-web': 'base/deployment.yaml:1 via overlays/prod',
      'Service/prod-web': 'base/service.yaml:1 via overlays/prod',
      // The comment line comes first.
      'ConfigMap/prod-web-settings': 'base/settings.yaml:2 via overlays/prod',
      'ServiceAccount/prod-web-runner': 'overlays/prod/extra.yaml:1',
      'Deployment/web-staging': 'base/deployment.yaml:1 via overlays/staging',
    });
    const generated = Object.entries(sources).filter(([key]) =>
      /^(ConfigMap\/prod-web-env|Secret\/prod-db)-/.test(key),
    );
    expect(generated.map(([, at]) => at).sort()).toEqual([
      'base/kustomization.yaml:10 via overlays/prod',
      'overlays/prod/kustomization.yaml:14',
    ]);
  });

  test('helmCharts are inflated with --kustomize-enable-helm (Helm 4 on PATH), and refused without it', async () => {
    const root = path.join(temp, 'helm');
    writeTree(root, {
      'kustomization.yaml':
        'helmCharts:\n- name: hello\n  releaseName: web\n  valuesInline: {greeting: hello}\n',
      'charts/hello/Chart.yaml': 'apiVersion: v2\nname: hello\nversion: 0.1.0\n',
      'charts/hello/values.yaml': 'greeting: hi\n',
      'charts/hello/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
    });
    const env = { ...spreadEnv(), PATH: `${path.dirname(helmBinary())}${path.delimiter}${spreadEnv().PATH}` };
    const on = await runNode('dist/cli/index.js', ['render', root, '--kustomize-enable-helm'], env);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toContain('name: web-greeting');
    expect(on.stdout).toContain('greeting: hello');
    const off = await runNode('dist/cli/index.js', ['render', root], env);
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(
      /kustomization\.yaml: kustomize v\S+ build \. failed: .*must specify --enable-helm/s,
    );
  });

  test(
    "deploy builds an overlay's & image from the overlay's folder, pushes it and pins it by digest",
    needs('buildkit', 'registry'),
    async () => {
      const root = path.join(temp, 'build');
      const tree = steps()[0]!.tree;
      writeTree(root, {
        ...tree,
        'overlays/prod/kustomization.yaml': (tree['overlays/prod/kustomization.yaml'] as string).replace(
          '- name: registry.example/web\n  newTag: "2.0"',
          '- name: registry.example/web\n  newName: "&kweb"',
        ),
        'overlays/prod/Dockerfile':
          'ARG BASE=localhost:5000/spread/busybox:1\nFROM $BASE\nCOPY hello.txt /hello.txt\n',
        'overlays/prod/hello.txt': 'hello from the prod overlay\n',
      });
      const { ns } = await sides.newSide('spread', 'build');
      const registry = `${process.env.SPREAD_REGISTRY}/${ns}`;
      const r = await runNode(
        'dist/cli/index.js',
        ['deploy', path.join(root, 'overlays/prod'), CONTEXT, '-n', ns, '--registry', registry, '--no-wait'],
        spreadEnv(),
      );
      expect(r.code, r.stderr).toBe(0);
      const image = await kubectlRun([
        'get',
        'deployment',
        'prod-web',
        '-n',
        ns,
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      ]);
      expect(image.stdout).toMatch(
        new RegExp(`^${registry.replace(/[.]/g, '\\.')}/kweb:[^@]+@sha256:[0-9a-f]{64}$`),
      );
    },
  );

  test(
    "a & mark in an overlay's images: is built from the overlay, one in the base from the base",
    needs('buildkit', 'registry'),
    async () => {
      const root = path.join(temp, 'marks');
      const tree = steps()[0]!.tree;
      writeTree(root, {
        ...tree,
        'base/deployment.yaml': (tree['base/deployment.yaml'] as string).replace(
          'registry.example/web:1.0',
          '"&web"',
        ),
        'overlays/prod/kustomization.yaml': (tree['overlays/prod/kustomization.yaml'] as string).replace(
          '- name: registry.example/web\n  newTag: "2.0"',
          '- name: "&web"\n  newName: "&shop-web"',
        ),
      });
      const status = async (dir: string) => {
        const r = await runNode(
          'dist/cli/index.js',
          ['status', path.join(root, dir), '--output', 'json'],
          spreadEnv(),
        );
        expect(r.code, r.stderr).toBe(0);
        return JSON.stringify(JSON.parse(r.stdout));
      };
      expect(await status('overlays/prod')).toContain(
        '"image":{"reference":"&shop-web","build":{"context":"."}}',
      );
      expect(await status('overlays/staging')).toContain(
        '"image":{"reference":"&web","build":{"context":"../../base"}}',
      );
    },
  );
});
