// The fault tests' workload: a mixed spread directory (Deployments, Services, ConfigMaps, Secrets, a
// CRD and its custom resources, one `&` image) of a given size, written anew for each round. Each
// round changes a third of the objects (the annotation faults.spread.test/v and what it stands for),
// drops one ConfigMap and one custom resource (the next deploy prunes them) and brings back the two
// dropped the round before, so every deploy creates, updates and prunes.
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The annotation every object of the workload carries: the round of the object's last change. */
export const MARK = 'faults.spread.test/v';

/** One object of a round's directory, as the checker finds it in the cluster. */
export interface ExpectedObject {
  /** `kubectl get` resource, e.g. `configmap`, `widgets.<group>`. */
  readonly resource: string;
  readonly kind: string;
  readonly name: string;
  /** Cluster-scoped (the CRD). */
  readonly cluster?: boolean;
  /** The value of {@link MARK} the directory gives it. */
  readonly mark: string;
  /** For a Secret: the value of its key `token` (checked in the cluster, searched for in every log). */
  readonly secret?: string;
}

/** Object counts of a workload of `size` objects (at least 20). */
export interface WorkloadShape {
  readonly deployments: number;
  readonly services: number;
  readonly configMaps: number;
  readonly secrets: number;
  readonly widgets: number;
}

/** 10 % Deployments (one of them built from `&faults-web`), 10 % Services, 40 % ConfigMaps, 15 % Secrets, a CRD, the rest custom resources. */
export function shape(size: number): WorkloadShape {
  if (size < 20) throw new Error(`a workload needs at least 20 objects, got ${size}`);
  const deployments = Math.round(size * 0.1);
  const services = Math.round(size * 0.1);
  const configMaps = Math.round(size * 0.4);
  const secrets = Math.round(size * 0.15);
  return {
    deployments,
    services,
    configMaps,
    secrets,
    widgets: size - deployments - services - configMaps - secrets - 1,
  };
}

/** Options of {@link writeRound}. */
export interface RoundOptions {
  /** The directory to (re)write; its base name is the deployment's default name. */
  readonly dir: string;
  readonly size: number;
  readonly round: number;
  /** Makes the Secret values of this run unique (and so searchable in logs). */
  readonly seed: string;
  /** API group of the workload's CRD (unique per namespace: a CRD is cluster-scoped). */
  readonly group: string;
  /** FROM of the `&` image's Dockerfile. */
  readonly baseImage: string;
  /** Change the `&` image's build context in this round (a build and a push happen). */
  readonly rebuild: boolean;
}

/** What a written round holds. */
export interface Round {
  readonly objects: readonly ExpectedObject[];
  /** Objects of the previous round that this one dropped (to be pruned by a successful deploy). */
  readonly dropped: readonly ExpectedObject[];
  /** Every Secret value of this round. */
  readonly secrets: readonly string[];
}

/** The round at which object `i` last changed, at round `r` (a third of the objects change per round). */
function markOf(i: number, r: number): string {
  const back = (((r - i) % 3) + 3) % 3;
  return String(Math.max(0, r - back));
}

function secretValue(seed: string, i: number, mark: string): string {
  return `sv${createHash('sha256').update(`${seed}/${i}/${mark}`).digest('hex').slice(0, 30)}`;
}

/** The objects of round `r` (without writing anything). */
export function roundObjects(options: Omit<RoundOptions, 'dir' | 'baseImage' | 'rebuild'>): Round {
  const { size, round: r, seed, group } = options;
  const s = shape(size);
  const objects: ExpectedObject[] = [];
  const all = (round: number): ExpectedObject[] => {
    const list: ExpectedObject[] = [];
    list.push({
      resource: 'crd',
      kind: 'CustomResourceDefinition',
      name: `widgets.${group}`,
      cluster: true,
      mark: '0',
    });
    list.push({ resource: 'deployment', kind: 'Deployment', name: 'web', mark: '0' });
    for (let i = 1; i < s.deployments; i++)
      list.push({ resource: 'deployment', kind: 'Deployment', name: `dep-${i}`, mark: markOf(i, round) });
    for (let i = 0; i < s.services; i++)
      list.push({ resource: 'service', kind: 'Service', name: `svc-${i}`, mark: markOf(i, round) });
    // One slot more than present: the slot of the round is the one dropped.
    for (let i = 0; i <= s.configMaps; i++)
      if (i !== round % (s.configMaps + 1))
        list.push({ resource: 'configmap', kind: 'ConfigMap', name: `cm-${i}`, mark: markOf(i, round) });
    for (let i = 0; i < s.secrets; i++) {
      const mark = markOf(i, round);
      list.push({
        resource: 'secret',
        kind: 'Secret',
        name: `sec-${i}`,
        mark,
        secret: secretValue(seed, i, mark),
      });
    }
    for (let i = 0; i <= s.widgets; i++)
      if (i !== round % (s.widgets + 1))
        list.push({ resource: `widgets.${group}`, kind: 'Widget', name: `w-${i}`, mark: markOf(i, round) });
    return list;
  };
  objects.push(...all(r));
  const names = new Set(objects.map((o) => `${o.kind}/${o.name}`));
  const dropped = r > 0 ? all(r - 1).filter((o) => !names.has(`${o.kind}/${o.name}`)) : [];
  return { objects, dropped, secrets: objects.flatMap((o) => (o.secret ? [o.secret] : [])) };
}

const yamlDoc = (o: unknown) => `---\n${JSON.stringify(o)}\n`;

/** Writes round `r` of the workload into `dir` (replacing what was there) and returns its objects. */
export function writeRound(options: RoundOptions): Round {
  const round = roundObjects(options);
  const { dir, group } = options;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, '.k2e'), { recursive: true });
  mkdirSync(path.join(dir, 'web'), { recursive: true });
  const meta = (o: ExpectedObject) => ({ name: o.name, annotations: { [MARK]: o.mark } });
  const docs: string[] = [];
  for (const o of round.objects) {
    switch (o.kind) {
      case 'CustomResourceDefinition':
        docs.push(
          yamlDoc({
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            metadata: meta(o),
            spec: {
              group,
              names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
              scope: 'Namespaced',
              versions: [
                {
                  name: 'v1',
                  served: true,
                  storage: true,
                  schema: {
                    openAPIV3Schema: {
                      type: 'object',
                      properties: {
                        spec: {
                          type: 'object',
                          properties: { size: { type: 'integer' }, color: { type: 'string' } },
                        },
                      },
                    },
                  },
                },
              ],
            },
          }),
        );
        break;
      case 'Deployment':
        if (o.name === 'web') break;
        docs.push(
          yamlDoc({
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: meta(o),
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: o.name } },
              template: {
                metadata: { labels: { app: o.name } },
                spec: {
                  containers: [
                    {
                      name: 'main',
                      image: 'spread.local/busybox:1',
                      env: [{ name: 'ROUND', value: o.mark }],
                    },
                  ],
                },
              },
            },
          }),
        );
        break;
      case 'Service':
        docs.push(
          yamlDoc({
            apiVersion: 'v1',
            kind: 'Service',
            metadata: meta(o),
            spec: {
              selector: { app: 'web' },
              ports: [{ port: 80 + (Number(o.mark) % 100), targetPort: 8080 }],
            },
          }),
        );
        break;
      case 'ConfigMap':
        docs.push(
          yamlDoc({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(o), data: { round: o.mark } }),
        );
        break;
      case 'Secret':
        docs.push(
          yamlDoc({
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: meta(o),
            type: 'Opaque',
            stringData: { token: o.secret },
          }),
        );
        break;
      case 'Widget':
        docs.push(
          yamlDoc({
            apiVersion: `${group}/v1`,
            kind: 'Widget',
            metadata: meta(o),
            spec: { size: Number(o.mark), color: `c${o.mark}` },
          }),
        );
        break;
    }
  }
  writeFileSync(path.join(dir, '.k2e', 'objects.yaml'), docs.join(''));
  writeFileSync(
    path.join(dir, 'web', 'deployment.yaml'),
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: web',
      `  annotations: {${JSON.stringify(MARK)}: "0"}`,
      'spec:',
      '  replicas: 1',
      '  selector: {matchLabels: {app: web}}',
      '  template:',
      '    metadata: {labels: {app: web}}',
      '    spec:',
      '      containers:',
      '        - name: web',
      '          image: "&faults-web"',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'web', 'Dockerfile'),
    // A step of 2 s and a 4 MiB layer: a fault at the first build step lands in the build, one at the
    // export in the push.
    `FROM ${options.baseImage}\nCOPY build.txt /build.txt\nRUN sleep 2 && dd if=/dev/urandom of=/blob bs=1M count=4 2>/dev/null\n`,
  );
  // The group (one per class run) in the context: no image that an earlier class, or an earlier run
  // of the fault tests on the same cluster, pushed for the same round is reused, so each one builds.
  writeFileSync(
    path.join(dir, 'web', 'build.txt'),
    options.rebuild ? `${options.group} round ${options.round}\n` : 'fixed\n',
  );
  return round;
}
