import * as core from '@actions/core';
import { describe, expect, test } from 'vitest';
import { addDeploySummary } from '../../../src/action/summary.js';
import { formatStatusText } from '../../../src/cli/status-text.js';
import { statusOf } from '../../../src/core/status.js';
import { deploymentOf } from '../../../src/deployment/index.js';
import { DirectoryInput, type RenderRequest } from '../../../src/input/index.js';
import { formatPlanMarkdown } from '../../../src/report/comment.js';
import {
  type DeployReport,
  formatReportText,
  inputReport,
  notDeployedLine,
  renderedLine,
} from '../../../src/report/report.js';

// The input's part of every report: the files not deployed (one line, always, not only under -v),
// the folders rendered and by which tool, and in `spread status` the input of each entity and object.

const fake = async (r: RenderRequest) => ({
  objects: [
    {
      value: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: r.dir.replaceAll('/', '-') } },
      source: { file: `${r.dir}/out.yaml`, line: 1 },
    },
  ],
  issues: [],
  tool: r.kind === 'helm' ? 'helm v3.0.0-fake' : 'kustomize v5.0.0-fake',
});

async function statusText(dir: string): Promise<string> {
  const application = await new DirectoryInput(dir, { renderers: { helm: fake, kustomize: fake } }).entity();
  const deployment = deploymentOf(application, { namespace: 'ns' });
  return formatStatusText(statusOf(application, deployment, { namespace: 'ns' }));
}

describe('the one line of files not deployed', () => {
  test.each([
    [[], undefined],
    [
      [{ file: 'docker-compose.yml', reason: 'no apiVersion or kind' }],
      'not deployed (no Kubernetes object): docker-compose.yml',
    ],
    [
      [
        { file: 'docker-compose.yml', reason: 'no apiVersion or kind' },
        { file: 'empty.yaml', reason: 'empty' },
      ],
      'not deployed (no Kubernetes object): docker-compose.yml, empty.yaml (empty)',
    ],
    [
      Array.from({ length: 12 }, (_, i) => ({ file: `f${i}.yaml`, reason: 'no apiVersion or kind' })),
      'not deployed (no Kubernetes object): f0.yaml, f1.yaml, f2.yaml, f3.yaml, f4.yaml, f5.yaml, f6.yaml, f7.yaml, f8.yaml, f9.yaml and 2 more',
    ],
  ])('%j', (files, expected) => {
    expect(notDeployedLine(files)).toBe(expected);
  });

  test('rendered folders are grouped by tool', () => {
    expect(
      renderedLine([
        { dir: 'overlays/prod', input: 'kustomize', tool: 'kustomize v5.7.1', objects: 3 },
        { dir: '.', input: 'helm', tool: 'helm v3.21.4', objects: 1 },
        { dir: 'overlays/dev', input: 'kustomize', tool: 'kustomize v5.7.1', objects: 3 },
      ]),
    ).toBe('rendered with kustomize v5.7.1: overlays/prod/, overlays/dev/; with helm v3.21.4: ./');
  });
});

describe('the plan and deploy report, and the job summary', () => {
  const base: DeployReport = {
    deployment: 'shop',
    namespace: 'ns',
    context: 'kind',
    mode: 'plan',
    objects: [],
    rollout: [],
    durationMs: 10,
  };

  test('the input of test/fixtures/plain/four: the compose file is named, in text and in the summary', async () => {
    const application = await new DirectoryInput('test/fixtures/plain/four').entity();
    const report = { ...base, ...inputReport(application) };
    expect(report.notDeployed).toEqual([{ file: 'docker-compose.yml', reason: 'no apiVersion or kind' }]);
    expect(formatReportText(report)).toContain(
      '\n  not deployed (no Kubernetes object): docker-compose.yml\n',
    );
    addDeploySummary(core.summary, report);
    const summary = core.summary.stringify();
    core.summary.emptyBuffer();
    expect(summary).toContain('<p>not deployed (no Kubernetes object): docker-compose.yml</p>');
  });

  test('the pull-request comment names them too, with or without changes', async () => {
    const application = await new DirectoryInput('test/fixtures/plain/four').entity();
    const report = { ...base, ...inputReport(application) };
    const line = '`not deployed (no Kubernetes object): docker-compose.yml`';
    expect(formatPlanMarkdown(report)).toContain(`\n\n${line}\n`);
    const changed = {
      ...report,
      objects: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'shop',
          action: 'create' as const,
          source: 'configmap.yaml:1',
        },
      ],
    };
    expect(formatPlanMarkdown(changed)).toContain(`\n\n${line}\n`);
    expect(formatPlanMarkdown(base)).not.toContain('not deployed');
  });

  test('a convention directory adds nothing to the report', async () => {
    const application = await new DirectoryInput('examples/mattermost').entity();
    expect(inputReport(application)).toEqual({});
    expect(formatReportText({ ...base, ...inputReport(application) })).not.toContain('not deployed');
  });
});

describe('spread status names the input of each entity and object', () => {
  test('a mixed Application: convention, chart and overlay, each marked', async () => {
    expect(await statusText('test/fixtures/rendered/mixed')).toBe(
      [
        'Application mixed  (namespace ns, not compared with a cluster)',
        '├─ Deployment web  web/deployment.yaml:1  [convention]',
        '│  ├─ Pod template  web/deployment.yaml:7',
        '│  │  └─ Container web  web/deployment.yaml:9',
        '│  │     └─ Image &web  web/deployment.yaml:10  (build from web/)',
        '│  └─ Service web  web/.k2e/svc.yaml:1  [convention]',
        '├─ ConfigMap chart  chart/out.yaml:1  [helm]',
        '└─ ConfigMap config-overlays-prod  config/overlays/prod/out.yaml:1  [kustomize]',
        'rendered with helm v3.0.0-fake: chart/; with kustomize v5.0.0-fake: config/overlays/prod/',
        '4 objects (give --context to compare them with a cluster)',
        '',
      ].join('\n'),
    );
  });

  test('a plain folder: the convention controller, the manifests and the line of files not deployed', async () => {
    expect(await statusText('test/fixtures/plain/four')).toBe(
      [
        'Application four  (namespace ns, not compared with a cluster)',
        '└─ Deployment shop  deployment.yaml:1  [convention]',
        '   ├─ Pod template  deployment.yaml:10',
        '   │  └─ Container shop  deployment.yaml:15',
        '   │     └─ Image nginx:1.27  deployment.yaml:16',
        '   ├─ ConfigMap shop  configmap.yaml:1  [manifests]',
        '   ├─ Service shop  service.yaml:1  [manifests]',
        '   └─ Ingress shop  ingress.yaml:1  [manifests]',
        'not deployed (no Kubernetes object): docker-compose.yml',
        '4 objects (give --context to compare them with a cluster)',
        '',
      ].join('\n'),
    );
  });

  test('JSON: input only where it is not the convention', async () => {
    const application = await new DirectoryInput('test/fixtures/plain/kinds').entity();
    const report = statusOf(application, deploymentOf(application, { namespace: 'ns' }), { namespace: 'ns' });
    expect(report.root.children.map((c) => `${c.type} ${c.name} ${c.input}`)).toEqual([
      'Deployment web manifests',
      'Job worker manifests',
    ]);
    expect(report.notDeployed?.map((f) => f.file)).toEqual([
      'config.template.json',
      'empty.yaml',
      'package.json',
      'tasks.yaml',
      'worker/values.yaml',
    ]);
  });
});
