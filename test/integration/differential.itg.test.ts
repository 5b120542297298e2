// The differential test: the corpus (differential-corpus.ts) through `kubectl apply --server-side`
// (ApplySet prune, field manager `kubectl`) into one namespace and through `spread deploy` (the CLI,
// dist/cli/index.js, as a user runs it) into another; after each state the stored objects are compared
// field by field, and the exit codes must agree. Cases are batched: one state of the run holds the
// current state of every case, and each disagreement is reported by case and object.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  APPLYSET,
  differences,
  differentialSides,
  exitDisagreement,
  kubectlApply,
  kubectlRun,
  type Run,
  type Side,
  type Stored,
  spreadDeploy,
  stored,
  storedDisagreements,
} from './differential-compare.js';
import {
  type Case,
  corpus,
  type FileContent,
  INTENDED,
  PROBE_CRD,
  PROBE_GROUP,
  plainFolderStates,
  type State,
} from './differential-corpus.js';
import { helmBinaries } from './env.js';
import { copyDir, ROOT, runNode } from './helpers.js';

const exec = promisify(execFile);

/**
 * The good fixtures (test/fixtures/good) that are not run, and why: the kubectl and the spread side
 * share one cluster, so fixed cluster-scoped objects would be fought over.
 */
const FIXTURES_NOT_RUN: Readonly<Record<string, string>> = {
  nested: 'creates the Namespace "nested" (cluster-scoped, one name for both tools)',
  'objects-only': 'creates the Namespace "team-a" and the ClusterRole "reader" (cluster-scoped)',
  'ctr-only':
    'its image "&web:dev" is built, which needs the image stage (test/integration/image.itg.test.ts)',
  'init-containers': 'its init container image is built (&), which needs the image stage',
};

function writeState(root: string, state: State): void {
  const objects = path.join(root, '.k2e');
  rmSync(objects, { recursive: true, force: true });
  mkdirSync(objects, { recursive: true });
  for (const [file, content] of Object.entries(state))
    writeFileSync(path.join(objects, file), content as FileContent);
}

async function apply(side: Side): Promise<Run> {
  if (side.tool === 'kubectl') return kubectlApply(side.ns, ['-f', path.join(side.root, '.k2e')]);
  return spreadDeploy(side.root, side.ns);
}

/** The case an object or file belongs to: the longest case id its name starts with. */
function caseOf(cases: readonly Case[], name: string): Case | undefined {
  let best: Case | undefined;
  for (const c of cases)
    if (
      (name === c.id || name.startsWith(`${c.id}-`) || name.startsWith(`${c.id}.`)) &&
      (!best || c.id.length > best.id.length)
    )
      best = c;
  return best;
}

const all = corpus();
const fixtures = readdirSync(path.join(ROOT, 'test/fixtures/good'))
  .sort()
  .map((name) => ({ name, skip: FIXTURES_NOT_RUN[name] }));
const checkOf = (c: Case) => (c.intended ? INTENDED[c.intended]?.check : undefined);
/** The cluster's minor (SPREAD_KUBE_VERSION, which .cluster/env sets), for differences of some minors only. */
const minor = Number((process.env.SPREAD_KUBE_VERSION ?? 'v1.34').replace(/^v/, '').split('.')[1]);
/** Whether intended difference `key` is expected on this cluster's minor. */
const appliesHere = (key: string) => {
  const below = INTENDED[key]?.belowMinor;
  return below === undefined || minor < below;
};
/** Cases both tools apply: compared by what they store. */
const succeeding = all.filter(
  (c) => !c.fails && checkOf(c) !== 'spread-refuses' && checkOf(c) !== 'spread-accepts',
);
/** Cases kubectl or spread refuses: compared by exit code and message, one at a time. */
const refusing = all.filter((c) => !succeeding.includes(c));
const sides = differentialSides('diff');
const temp = sides.temp;

/** Both sides of a run, each folder named as the ApplySet (spread names the deployment from it). */
async function newSides(label: string): Promise<[Side, Side]> {
  return [
    await sides.newSide('kubectl', label, path.join(temp, `${label}-k`, APPLYSET)),
    await sides.newSide('spread', label, path.join(temp, `${label}-s`, APPLYSET)),
  ];
}

/**
 * One state of an input a tool renders, on both sides: kubectl applies what the renderer printed
 * (`rendered`, written to objects.yaml), spread deploys the input itself (`deploy`: the folder and its
 * flags). The exit codes when either failed, else what each stored and how they differ.
 */
async function renderedState(
  k: Side,
  s: Side,
  rendered: string,
  deploy: readonly string[],
  label: string,
): Promise<{ failed?: string; kubectl: Stored; spread: Stored; disagreements: string[] }> {
  mkdirSync(k.root, { recursive: true });
  writeFileSync(path.join(k.root, 'objects.yaml'), rendered);
  const rk = await kubectlApply(k.ns, ['-f', path.join(k.root, 'objects.yaml')]);
  const [dir, ...flags] = deploy;
  const rs = await spreadDeploy(dir!, s.ns, flags);
  const failed = exitDisagreement(label, rk, rs);
  if (failed) return { failed, kubectl: new Map(), spread: new Map(), disagreements: [] };
  const [sk, ss] = [await stored(k), await stored(s)];
  return { kubectl: sk, spread: ss, disagreements: storedDisagreements(sk, ss, label) };
}

beforeAll(async () => {
  const crd = path.join(temp, 'crd.yaml');
  writeFileSync(crd, PROBE_CRD);
  // A run just before deleted it: wait until it is gone (at once when there is none).
  await kubectlRun(['wait', '--for=delete', '--timeout=120s', `crd/probes.${PROBE_GROUP}`]);
  const r = await kubectlRun(['apply', '--server-side', '-f', crd]);
  if (r.code !== 0) throw new Error(`the Probe CRD: ${r.stderr}`);
  await kubectlRun(['wait', '--for=condition=Established', '--timeout=60s', `crd/probes.${PROBE_GROUP}`]);
});

afterAll(async () => {
  await sides.cleanUp();
  await kubectlRun(['delete', 'crd', `probes.${PROBE_GROUP}`, '--wait=false', '--ignore-not-found']);
});

describe('Differential: spread deploy stores what kubectl apply --server-side stores', () => {
  test('the corpus holds at least 200 case states, and every intended difference is shown by a case', () => {
    const states = all.reduce((n, c) => n + c.states.length, 0);
    console.info(
      `differential corpus: ${all.length} cases, ${states} states (${succeeding.length} succeeding, ${refusing.length} refused)`,
    );
    expect(states).toBeGreaterThanOrEqual(200);
    for (const f of fixtures.filter((f) => f.skip)) console.info(`good fixture ${f.name} not run: ${f.skip}`);
    for (const key of Object.keys(INTENDED))
      expect([key, all.some((c) => c.intended === key) || key === 'invalid-writes-nothing']).toEqual([
        key,
        true,
      ]);
  });

  test('succeeding cases, state by state: both exit 0 and store the same objects', async () => {
    const [k, s] = await newSides('ok');
    const steps = Math.max(...succeeding.map((c) => c.states.length));
    const disagreements: string[] = [];
    const shown = new Set<string>();
    for (let step = 0; step < steps; step++) {
      const state: Record<string, FileContent> = {};
      for (const c of succeeding) Object.assign(state, c.states[Math.min(step, c.states.length - 1)]);
      writeState(k.root, state);
      writeState(s.root, state);
      const [rk, rs] = [await apply(k), await apply(s)];
      const failed = exitDisagreement(`state ${step + 1}`, rk, rs);
      if (failed) {
        disagreements.push(failed);
        break;
      }
      const [sk, ss] = [await stored(k), await stored(s)];
      // Every case holds at least one object: a state that stored fewer compared nothing.
      expect(sk.size).toBeGreaterThanOrEqual(succeeding.length);
      for (const key of new Set([...sk.keys(), ...ss.keys()])) {
        const name = key.slice(key.indexOf('/') + 1);
        const c = caseOf(succeeding, name);
        const label = `state ${step + 1}, case ${c?.id ?? '?'} (${c?.title ?? '?'}), ${key}`;
        const a = sk.get(key);
        const b = ss.get(key);
        if (!a || !b) {
          disagreements.push(`${label}: stored by ${a ? 'kubectl' : 'spread'} only`);
          continue;
        }
        const diff = differences(a, b);
        if (diff.length === 0) continue;
        if (c?.intended && INTENDED[c.intended]?.check === 'stored-differs' && appliesHere(c.intended)) {
          shown.add(c.intended);
          continue;
        }
        disagreements.push(`${label}: ${diff.join('; ')}`);
      }
    }
    expect(disagreements).toEqual([]);
    for (const c of succeeding.filter((c) => c.intended && appliesHere(c.intended)))
      expect([c.id, shown.has(c.intended!)]).toEqual([c.id, true]);
  });

  test('refused cases: where kubectl fails spread fails naming the file and line, and writes nothing; intended differences happen', async () => {
    const [k, s] = await newSides('bad');
    const disagreements: string[] = [];
    // One case at a time: kubectl applies the valid objects of a failing directory and spread none,
    // so cases sharing a state would hide each other.
    for (const c of refusing) {
      writeState(k.root, c.states[0]!);
      writeState(s.root, c.states[0]!);
      const [rk, rs] = [await apply(k), await apply(s)];
      const files = Object.keys(c.states[0]!);
      const label = `case ${c.id} (${c.title})`;
      const check = checkOf(c);
      if (check === 'spread-refuses' && rk.code !== 0)
        disagreements.push(`${label}: intended "${c.intended}", but kubectl failed too: ${rk.stderr.trim()}`);
      if (check !== 'spread-refuses' && rk.code === 0) disagreements.push(`${label}: kubectl succeeded`);
      if (check === 'kubectl-partial' && !/serverside-applied/.test(rk.stdout))
        disagreements.push(
          `${label}: intended "${c.intended}", but kubectl applied nothing: ${rk.stdout.trim()}`,
        );
      if (check === 'spread-accepts') {
        if (rs.code !== 0)
          disagreements.push(`${label}: intended "${c.intended}", but spread failed: ${rs.stderr.trim()}`);
        continue;
      }
      // spread names the file and line: `.k2e/f.yaml:3: message`, or `(.k2e/f.yaml:3): message` for
      // the server's answer to the dry run; a file it cannot read as text, the file alone.
      const at = (line: string) =>
        files.some((f) => new RegExp(`\\.k2e/${f.replace(/\./g, '\\.')}${line}[:)]`).test(rs.stderr));
      if (rs.code === 0)
        disagreements.push(`${label}: kubectl failed (${rk.stderr.trim()}), spread succeeded`);
      else if (!at(':[1-9][0-9]*') && !(at('') && /UTF|text file/.test(rs.stderr)))
        disagreements.push(
          `${label}: spread failed without naming ${files.join(', ')} and a line: ${rs.stderr.trim()}`,
        );
    }
    const accepted = refusing.filter((c) => checkOf(c) === 'spread-accepts');
    const left = [...(await stored(s)).keys()].filter(
      (key) => !caseOf(accepted, key.slice(key.indexOf('/') + 1)),
    );
    if (left.length > 0) disagreements.push(`spread wrote ${left.join(', ')} for refused input`);
    expect(disagreements).toEqual([]);
  });

  test('a plain manifest folder, state by state: spread deploy DIR stores what kubectl apply -f DIR -R stores', async () => {
    const [k, s] = await newSides('plain');
    const disagreements: string[] = [];
    const states = plainFolderStates();
    for (const [step, state] of states.entries()) {
      for (const side of [k, s]) {
        rmSync(side.root, { recursive: true, force: true });
        for (const [file, content] of Object.entries(state)) {
          mkdirSync(path.dirname(path.join(side.root, file)), { recursive: true });
          writeFileSync(path.join(side.root, file), content);
        }
      }
      const rk = await kubectlApply(k.ns, ['-f', k.root, '-R']);
      const rs = await apply(s);
      expect([step, rk.code, rk.code ? rk.stderr : '', rs.code, rs.code ? rs.stderr : '']).toEqual([
        step,
        0,
        '',
        0,
        '',
      ]);
      const [sk, ss] = [await stored(k), await stored(s)];
      // Every object of the state is stored: none of the files was skipped by either tool.
      expect([step, [...ss.keys()].sort()]).toEqual([step, [...sk.keys()].sort()]);
      expect(ss.size).toBeGreaterThanOrEqual(5);
      for (const key of new Set([...sk.keys(), ...ss.keys()])) {
        const a = sk.get(key);
        const b = ss.get(key);
        if (a && b) for (const d of differences(a, b)) disagreements.push(`state ${step + 1}, ${key} ${d}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  test.each(fixtures.filter((f) => !f.skip))(
    'good fixture $name: spread deploy stores what kubectl stores of its rendered objects',
    async ({ name }) => {
      const [k, s] = await newSides(`fx-${name}`.slice(0, 20));
      const dir = path.join(ROOT, 'test/fixtures/good', name);
      const rendered = await runNode('dist/cli/index.js', ['render', dir, '-n', k.ns, '--show-secrets']);
      expect(rendered.code).toBe(0);
      const state = await renderedState(k, s, rendered.stdout, [dir], name);
      expect(state.failed).toBeUndefined();
      expect(state.kubectl.size).toBeGreaterThan(0);
      expect(state.disagreements).toEqual([]);
    },
  );
});

/**
 * A chart's successive states, each a change to the chart folder and the values files given: the
 * fixture chart test/fixtures/helm/shop without crds/ (a cluster-scoped CRD both sides would fight
 * over; test/integration/helm.itg.test.ts deploys it) and without the templates that need it.
 */
const HELM_STATES: readonly {
  readonly title: string;
  readonly values: string;
  readonly change?: (dir: string) => void;
}[] = [
  { title: 'values-staging.yaml', values: 'values-staging.yaml' },
  { title: 'a value changed (values-prod.yaml)', values: 'values-prod.yaml' },
  {
    title: 'a template added',
    values: 'values-prod.yaml',
    change: (dir) =>
      writeFileSync(
        path.join(dir, 'templates/extra.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
      ),
  },
  {
    title: 'a template dropped',
    values: 'values-prod.yaml',
    change: (dir) => rmSync(path.join(dir, 'templates/service.yaml')),
  },
];

describe('Differential: a Helm chart, helm template | kubectl apply --server-side against spread deploy', () => {
  test('state by state, both store the same objects (hooks left out on both sides: helm template --no-hooks)', async () => {
    const helm = helmBinaries().helm4;
    const [k, s] = await newSides('helm');
    const chart = copyDir(path.join(ROOT, 'test/fixtures/helm/shop'), APPLYSET);
    // spread runs a chart's hooks in their phases (docs/phases.md; helm.itg.test.ts tests them), where
    // `helm template --no-hooks | kubectl apply` has none: the hook templates leave spread's side too.
    const hooks = ['templates/migrate.yaml', 'templates/smoke.yaml'];
    for (const f of ['crds', 'templates/widget.yaml', 'templates/capabilities.yaml', ...hooks])
      rmSync(path.join(chart, f), { recursive: true });
    const disagreements: string[] = [];
    let counted = 0;
    for (const [step, state] of HELM_STATES.entries()) {
      state.change?.(chart);
      const values = path.join(chart, state.values);
      const { stdout } = await exec(
        helm,
        [
          'template',
          APPLYSET,
          chart,
          '--namespace',
          k.ns,
          '--include-crds',
          '--no-hooks',
          '--values',
          values,
        ],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      const label = `state ${step + 1} (${state.title})`;
      const deploy = [chart, '--helm', helm, '--helm-values', state.values];
      const {
        failed,
        kubectl,
        spread: ss,
        disagreements: found,
      } = await renderedState(k, s, stdout, deploy, label);
      if (failed) {
        disagreements.push(failed);
        break;
      }
      counted += kubectl.size;
      disagreements.push(...found);
      if (step === HELM_STATES.length - 1) expect(ss.has('Service/differential-web')).toBe(false);
      if (step === 2) expect(ss.has('ConfigMap/differential-extra')).toBe(true);
    }
    expect(disagreements).toEqual([]);
    expect(counted).toBeGreaterThanOrEqual(HELM_STATES.length * 2);
  });
});
