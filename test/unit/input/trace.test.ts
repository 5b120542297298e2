import { expect, test } from 'vitest';
import { deploymentOf } from '../../../src/deployment/index.js';
import { DirectoryInput, ManifestInput } from '../../../src/input/index.js';

const good = (name: string) => `test/fixtures/good/${name}`;

/** Every trace line of reading a fixture and building its Deployment. */
async function traceOf(fixture: string): Promise<string[]> {
  const lines: string[] = [];
  const trace = (m: string) => lines.push(m);
  const app = await new DirectoryInput(good(fixture), { trace }).entity();
  deploymentOf(app, { namespace: 'ns', trace });
  return lines;
}

/** One row a rule: the fixture, then trace lines that must all be there. */
test.each([
  [
    'rc-ctr',
    [
      'rc.yml: a ReplicationController file (rc.* layout)',
      'cache.ctr: a container file',
      'cache.ctr:1: container name defaulted to cache (from the file name cache.ctr)',
      'cache.ctr:1: Container cache attached to the pod template of ReplicationController shop (rc.yml:1)',
      'rc.yml:1: ReplicationController shop: selector defaulted to app=shop,tier=web (from the template labels)',
      'rc.yml:1: ReplicationController shop: namespace defaulted to ns',
    ],
  ],
  [
    'ctr-only',
    [
      'Web_App Service: no controller or pod beside the .ctr files: default Deployment web-app-service created (named after the directory Web_App Service)',
      'Web_App Service/main.ctr:1: Image &web:dev marked for building from Web_App Service/',
      'Web_App Service: Deployment web-app-service: selector and template labels defaulted to app=web-app-service',
    ],
  ],
  [
    'rc-pod',
    [
      'pod.yaml:1: Pod api-pod became the pod template of ReplicationController api (rc.yaml:1)',
      'sidecar.ctr:1: Container sidecar attached to the pod template of ReplicationController api (rc.yaml:1)',
    ],
  ],
  [
    'named-layout',
    [
      'api.deployment.yaml: a Deployment file named api (NAME.deployment.* layout)',
      'api.deployment.yaml:1: kind defaulted to Deployment (the file name says so)',
      'api.deployment.yaml:1: apiVersion defaulted to apps/v1',
      'api.deployment.yaml:1: metadata.name defaulted to api (from the file name api.deployment.yaml)',
    ],
  ],
  [
    'jobs',
    ['migrate/job.yaml:1: Job migrate: restartPolicy defaulted to Never (a Job pod may not use Always)'],
  ],
  [
    'nested',
    [
      '.hidden/: skipped (hidden folder)',
      'docs/README.md: ignored (not a file of the convention)',
      'backend/.k2e/svc.yaml:1: Service db attached to StatefulSet db (backend/statefulset.yaml:1)',
      '.k2e/ns.yaml:1: Namespace nested attached to Application nested',
      'backend/statefulset.yaml:1: StatefulSet db: template labels defaulted to app=db (from the selector)',
    ],
  ],
  [
    'objects-only',
    [
      '.k2e/README.md: ignored (not a .yaml, .yml or .json file)',
      '.k2e/a.yaml: 3 objects (from 2 documents, Lists flattened)',
    ],
  ],
  [
    'long-name',
    [
      expect.stringMatching(
        /^a{70}: no controller or pod beside the .ctr files: default Deployment a{54}-[0-9a-f]{8} created/,
      ),
    ],
  ],
])('%s', async (fixture, expected) => {
  expect(await traceOf(fixture)).toEqual(expect.arrayContaining(expected));
});

test('an Application name that is not a DNS label is traced with the label made of it', async () => {
  const lines: string[] = [];
  await new DirectoryInput(good('rc-ctr'), { name: 'My App', trace: (m) => lines.push(m) }).entity();
  expect(lines).toContain('Application my-app (from "My App", made a DNS-1123 label)');
});

test('an explicit value is not traced as a default', async () => {
  const lines = await traceOf('jobs');
  // nightly/cronjob.yaml sets its own restartPolicy.
  expect(lines.some((l) => l.startsWith('nightly/cronjob.yaml:1: CronJob nightly: restartPolicy'))).toBe(
    false,
  );
  expect(lines.filter((l) => l.includes('metadata.name defaulted'))).toEqual([]);
});

test('without a trace nothing changes: same entities, same objects', async () => {
  const traced = await new DirectoryInput(good('nested'), { trace: () => {} }).entity();
  const plain = await new DirectoryInput(good('nested')).entity();
  expect(deploymentOf(traced, { namespace: 'ns' }).objects()).toEqual(
    deploymentOf(plain, { namespace: 'ns' }).objects(),
  );
});

test('ManifestInput passes the trace to the entity stage', async () => {
  const lines: string[] = [];
  await new ManifestInput('test/fixtures/bad/../good/pod-only/pod.yaml', {
    trace: (m) => lines.push(m),
  }).entity();
  expect(lines).toContain('pod.yaml:1: Pod solo');
});
