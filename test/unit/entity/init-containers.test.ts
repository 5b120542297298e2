import { describe, expect, test } from 'vitest';
import { deploymentOf, render } from '../../../src/deployment/index.js';
import type { Container, Controller } from '../../../src/entity/index.js';
import { pinImages } from '../../../src/image/pin.js';
import { planBuilds } from '../../../src/image/plan.js';
import { DirectoryInput } from '../../../src/input/index.js';

const fixture = 'test/fixtures/good/init-containers';

describe('init containers are Container entities', () => {
  test('each init container is an entity with its Image; & marks a build from the file directory', async () => {
    const app = await new DirectoryInput(fixture).entity();
    const deployment = app.entities[0] as Controller;
    expect(
      deployment.pod.initContainers.map((c) => [c.name, c.init, c.image.raw, c.image.build?.contextDir]),
    ).toEqual([
      ['migrate', true, '&migrate', '.'],
      ['wait-db', true, 'busybox:1.36', undefined],
    ]);
    expect(deployment.pod.containers.map((c) => [c.name, c.init])).toEqual([['app', false]]);
    expect(app.images().map((i) => i.raw)).toEqual(['&migrate', 'busybox:1.36', '&shop:dev']);
    const migrate = deployment.pod.initContainers[0] as Container;
    expect(migrate.describe()).toBe(
      'init Container migrate (deployment.yaml:9) in Deployment shop (deployment.yaml:3)',
    );
  });

  test('rendered in place, before the rest of the pod spec as written; containers after', async () => {
    const app = await new DirectoryInput(fixture).entity();
    const yaml = render(deploymentOf(app, { namespace: 'ns' }));
    expect(yaml).toContain(
      [
        '    spec:',
        '      initContainers:',
        '        - name: migrate',
        '          image: "&migrate"',
        '          args:',
        '            - --up',
        '        - name: wait-db',
        '          image: busybox:1.36',
        '      terminationGracePeriodSeconds: 5',
        '      containers:',
        '        - name: app',
        '          image: "&shop:dev"',
      ].join('\n'),
    );
  });

  test('the image stage plans and pins the init container build like a container build', async () => {
    const app = await new DirectoryInput(fixture).entity();
    const plan = planBuilds(app, { registry: 'localhost:5000/team-a', requireRegistry: true });
    expect(plan.issues).toEqual([]);
    expect(plan.builds.map((b) => [b.marks, b.contextDir])).toEqual([
      [['&migrate'], '.'],
      [['&shop:dev'], '.'],
    ]);
    const pinned = pinImages(
      deploymentOf(app, { namespace: 'ns' }).objects(),
      new Map([['&migrate', 'r/migrate@sha256:1']]),
    );
    const pinnedDeployment = pinned.find((o) => o.object.kind === 'Deployment');
    expect(pinnedDeployment).toBeDefined();
    const spec = (
      pinnedDeployment!.object.spec as { template: { spec: { initContainers: { image: string }[] } } }
    ).template.spec;
    expect(spec.initContainers[0]?.image).toBe('r/migrate@sha256:1');
  });
});
