// The inputs of the renderer benchmark (bench/renderers.mjs, issue 39): a Helm chart whose templates
// give `size` objects and a kustomize base with an overlay giving `size` objects, both a mix like
// bench/fixture.mjs's (per service a Deployment, Service, ConfigMap, Secret and ServiceAccount; shared
// ConfigMaps fill up to the size). Pure: each returns the files as { relative path: text }.

const KINDS = ['Deployment', 'Service', 'ConfigMap', 'Secret', 'ServiceAccount'];

/** The objects of an input of `size`: [{ kind, name, service? }]; `size` is at least 1. */
export function rendererModel(size) {
  const services = Math.floor(size / KINDS.length);
  const out = [];
  for (let s = 0; s < services; s++) {
    const service = `svc-${String(s).padStart(3, '0')}`;
    for (const kind of KINDS)
      out.push({ kind, name: kind === 'ConfigMap' ? `${service}-config` : service, service });
  }
  for (let i = out.length; i < size; i++) out.push({ kind: 'ConfigMap', name: `shared-${i}` });
  return out;
}

/**
 * A chart of `size` objects: the services and shared ConfigMaps are values, each kind a template that
 * ranges over them (as charts that deploy a list of components do), so Helm really templates.
 */
export function chartFiles(size) {
  const objects = rendererModel(size);
  const services = [...new Set(objects.filter((o) => o.service).map((o) => o.service))];
  const shared = objects.filter((o) => !o.service).map((o) => o.name);
  const values = [
    'image: registry.example/bench/app:1.0.0',
    'replicas: 1',
    `services:${services.length ? '' : ' []'}`,
    ...services.map((s, i) => `  - name: ${s}\n    port: ${8000 + i}`),
    `shared:${shared.length ? '' : ' []'}`,
    ...shared.map((n) => `  - ${n}`),
  ].join('\n');
  const each = (body) => `{{- range .Values.services }}\n---\n${body}{{- end }}\n`;
  const labels =
    '  labels:\n    app.kubernetes.io/name: {{ .name }}\n    app.kubernetes.io/instance: {{ $.Release.Name }}\n';
  return {
    'Chart.yaml': 'apiVersion: v2\nname: bench\nversion: 0.1.0\nappVersion: "1.0.0"\n',
    'values.yaml': `${values}\n`,
    'templates/deployments.yaml': each(
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .name }}\n${labels}spec:\n  replicas: {{ $.Values.replicas }}\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: {{ .name }}\n  template:\n    metadata:\n      labels:\n        app.kubernetes.io/name: {{ .name }}\n    spec:\n      serviceAccountName: {{ .name }}\n      containers:\n        - name: app\n          image: {{ $.Values.image }}\n          ports:\n            - containerPort: {{ .port }}\n          envFrom:\n            - configMapRef:\n                name: {{ .name }}-config\n            - secretRef:\n                name: {{ .name }}\n`,
    ),
    'templates/services.yaml': each(
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .name }}\n${labels}spec:\n  selector:\n    app.kubernetes.io/name: {{ .name }}\n  ports:\n    - name: http\n      port: 80\n      targetPort: {{ .port }}\n`,
    ),
    'templates/configmaps.yaml': `${each(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .name }}-config\n${labels}data:\n  PORT: {{ .port | quote }}\n  LOG_LEVEL: info\n`,
    )}{{- range .Values.shared }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ . }}\ndata:\n  key: {{ . | quote }}\n{{- end }}\n`,
    'templates/secrets.yaml': each(
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .name }}\n${labels}stringData:\n  token: {{ printf "token-%s" .name | quote }}\n`,
    ),
    'templates/serviceaccounts.yaml': each(
      `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ .name }}\n${labels}`,
    ),
  };
}

/** One object of the kustomize base, as plain YAML. */
function baseObject(o, i) {
  const meta = `metadata:\n  name: ${o.name}\n${o.service ? `  labels:\n    app.kubernetes.io/name: ${o.service}\n` : ''}`;
  switch (o.kind) {
    case 'Deployment':
      return `apiVersion: apps/v1\nkind: Deployment\n${meta}spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: ${o.service}\n  template:\n    metadata:\n      labels:\n        app.kubernetes.io/name: ${o.service}\n    spec:\n      serviceAccountName: ${o.service}\n      containers:\n        - name: app\n          image: registry.example/bench/app:1.0.0\n          envFrom:\n            - configMapRef:\n                name: ${o.service}-config\n`;
    case 'Service':
      return `apiVersion: v1\nkind: Service\n${meta}spec:\n  selector:\n    app.kubernetes.io/name: ${o.service}\n  ports:\n    - name: http\n      port: 80\n      targetPort: ${8000 + i}\n`;
    case 'Secret':
      return `apiVersion: v1\nkind: Secret\n${meta}stringData:\n  token: token-${o.name}\n`;
    case 'ServiceAccount':
      return `apiVersion: v1\nkind: ServiceAccount\n${meta}`;
    default:
      return `apiVersion: v1\nkind: ConfigMap\n${meta}data:\n  key: ${o.name}\n`;
  }
}

/**
 * A kustomize base (one file per service, one for the shared ConfigMaps) and an overlay `overlay/`
 * over it giving `size` objects: a namespace-free overlay with labels, an image tag, a strategic
 * merge patch on every Deployment and a ConfigMap patch, as a production overlay has.
 */
export function overlayFiles(size) {
  const objects = rendererModel(size);
  const files = {};
  const byFile = new Map();
  for (const [i, o] of objects.entries()) {
    const file = o.service ? `base/${o.service}.yaml` : 'base/shared.yaml';
    byFile.set(file, [...(byFile.get(file) ?? []), baseObject(o, Math.floor(i / KINDS.length))]);
  }
  for (const [file, docs] of byFile) files[file] = docs.join('---\n');
  const resources = [...byFile.keys()].map((f) => `  - ${f.slice('base/'.length)}`).join('\n');
  files['base/kustomization.yaml'] =
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources}\n`;
  const first = objects.find((o) => o.kind === 'ConfigMap');
  files['overlay/kustomization.yaml'] = [
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    '  - ../base',
    'labels:',
    '  - pairs:',
    '      environment: production',
    'images:',
    '  - name: registry.example/bench/app',
    '    newTag: 1.1.0',
    'patches:',
    '  - path: replicas.yaml',
    '    target:',
    '      kind: Deployment',
    ...(first ? ['  - path: config.yaml'] : []),
    '',
  ].join('\n');
  files['overlay/replicas.yaml'] =
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: any\nspec:\n  replicas: 2\n';
  if (first)
    files['overlay/config.yaml'] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${first.name}\ndata:\n  LOG_LEVEL: warn\n`;
  return files;
}

/** The issue's targets: spread's time ÷ the peer's, at most. */
export const RENDERER_TARGETS = {
  chartFirst: 0.5,
  chartNoop: 0.1,
  overlayFirst: 0.3,
  render: 1.2,
};

/** The median of numbers (the mean of the middle two for an even count); undefined for none. */
export function median(values) {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * One line of the verdict: spread's median ÷ the peer's against a target (`undefined`: no target),
 * e.g. `0.31 × (target ≤ 0.5 ×: met)`. Missing medians give `–`.
 */
export function verdict(spreadMs, peerMs, target) {
  if (spreadMs === undefined || peerMs === undefined || peerMs === 0) return '–';
  const r = spreadMs / peerMs;
  // Three places below 0.1, so a ratio just under a 0.1 target does not print as 0.10.
  const text = `${r.toFixed(r < 0.1 ? 3 : 2)} ×`;
  if (target === undefined) return text;
  return `${text} (target ≤ ${target} ×: ${r <= target ? 'met' : '**missed**'})`;
}

/**
 * The render target read three ways (issue 39: "spread's own time over helm template/kustomize build
 * alone ≤ 1.2 × theirs"): the raw ratio spread ÷ renderer; spread's added time over the renderer
 * (spread − renderer, ms); and the ratio without Node's own start, (spread − Node start) ÷ renderer,
 * Node's start measured as `spread --version` (the same bundle and Node options, no work). Medians in
 * ms; undefined parts when a median is missing or the renderer took no time.
 */
export function renderMeasures(spreadMs, peerMs, nodeStartMs) {
  if (spreadMs === undefined || peerMs === undefined || peerMs === 0) return undefined;
  return {
    ratio: spreadMs / peerMs,
    addedMs: spreadMs - peerMs,
    ...(nodeStartMs === undefined ? {} : { withoutNodeStart: (spreadMs - nodeStartMs) / peerMs }),
  };
}
