// The layers of src/, bottom to top (docs/contributing.md, "Layers"). A module imports only from its
// own folder and from layers below it; folders that share a layer (the three front ends) import nothing
// of each other.
// `npm run lint` runs this through dependency-cruiser; type-only imports count as imports.
const LAYERS = [
  { name: 'base', paths: ['src/base/', 'src/version\\.ts$'] },
  { name: 'decode', paths: ['src/decode/'] },
  { name: 'project', paths: ['src/project/'] },
  { name: 'entity', paths: ['src/entity/'] },
  { name: 'input', paths: ['src/input/'] },
  { name: 'deployment', paths: ['src/deployment/'] },
  { name: 'image', paths: ['src/image/'] },
  { name: 'cluster', paths: ['src/cluster/'] },
  { name: 'engine', paths: ['src/engine/'] },
  { name: 'report', paths: ['src/report/'] },
  { name: 'core', paths: ['src/core/'] },
  { name: 'frontend', paths: ['src/frontend/'] },
  { name: 'action', paths: ['src/action/'], peers: ['cli', 'gitlab'] },
  { name: 'cli', paths: ['src/cli/'], peers: ['action', 'gitlab'] },
  { name: 'gitlab', paths: ['src/gitlab/'], peers: ['action', 'cli'] },
  { name: 'bin', paths: ['src/bin/', 'src/entry\\.ts$'] },
];

const pattern = (paths) => `^(${paths.join('|')})`;
const pathsOf = (names) => LAYERS.filter((l) => names.includes(l.name)).flatMap((l) => l.paths);

const upward = LAYERS.flatMap((layer, i) => {
  const above = LAYERS.slice(i + 1).filter((l) => !(layer.peers ?? []).includes(l.name));
  const forbidden = [...above.flatMap((l) => l.paths), ...pathsOf(layer.peers ?? [])];
  if (forbidden.length === 0) return [];
  return [
    {
      name: `layer-${layer.name}`,
      comment: `${layer.name} imports only from the layers below it: ${LAYERS.slice(0, i)
        .map((l) => l.name)
        .join(', ')}${i === 0 ? '(none: base imports nothing from src/)' : ''}`,
      severity: 'error',
      from: { path: pattern(layer.paths) },
      to: { path: pattern(forbidden) },
    },
  ];
});

// Sub-layers inside engine/, bottom to top, by the same rule. The planner is a dry run of the
// applier: it sends apply's requests (apply/ssa.ts) with dryRun=All, reads apply's errors, Secret
// storage and CRD order, so plan sits above apply. The applier takes only the plan's result and
// options, and those types and the field-ownership rules both follow live in shared/ below both:
// apply importing plan would make the two folders a circle again. wait/ is not listed yet: apply/crd.ts
// uses its informer while wait/ reads apply's AppliedObject (untangled with the cluster port, issue 40).
const ENGINE = [
  { name: 'shared', paths: ['src/engine/shared/', 'src/engine/kube-api\\.ts$'] },
  { name: 'status', paths: ['src/engine/status/'] },
  { name: 'apply', paths: ['src/engine/apply/'] },
  { name: 'plan', paths: ['src/engine/plan/'] },
  { name: 'inventory', paths: ['src/engine/inventory/'] },
];

const engineUpward = ENGINE.flatMap((layer, i) => {
  const above = ENGINE.slice(i + 1);
  if (above.length === 0) return [];
  return [
    {
      name: `engine-${layer.name}`,
      comment: `engine/${layer.name} imports no engine/ sub-layer above it (${above.map((l) => l.name).join(', ')}); see ENGINE in .dependency-cruiser.mjs`,
      severity: 'error',
      from: { path: pattern(layer.paths) },
      to: { path: pattern(above.flatMap((l) => l.paths)) },
    },
  ];
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...upward,
    ...engineUpward,
    {
      name: 'in-a-layer',
      comment:
        'every module of src/ belongs to a layer (add a new folder to LAYERS in .dependency-cruiser.mjs)',
      severity: 'error',
      from: { path: '^src/', pathNot: pattern(LAYERS.flatMap((l) => l.paths)) },
      to: {},
    },
    {
      name: 'to-a-layer',
      comment:
        'an import of a module of src/ outside every layer (add its folder to LAYERS in .dependency-cruiser.mjs)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: pattern(LAYERS.flatMap((l) => l.paths)) },
    },
    {
      name: 'no-import-cycle',
      comment: 'modules (and so folders) import each other in a circle',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'actions-toolkit-in-action',
      comment: 'only the Action front end talks to the runner (@actions/*)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/action/' },
      to: { path: '@actions/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that resolves to no file',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
