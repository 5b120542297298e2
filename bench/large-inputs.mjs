// Large inputs for the benchmarks (issue 19), generated here and deterministic:
//
// - crdBundle: an operator bundle — a few CustomResourceDefinitions with deep OpenAPI v3 schemas
//   (nested objects and arrays of objects, long descriptions, enums, formats, x-kubernetes-*
//   markers), the shape controller-gen writes, filled to a size in bytes.
// - writeInstall: an install-like directory of 130 files in .k2e/ (CRDs, RBAC, ServiceAccounts,
//   ConfigMaps, Secrets, Services, Deployments, a PodDisruptionBudget, NetworkPolicies…), one or a
//   few objects per file, the way a rendered chart or a kustomize build split into files looks.
//
// Every CRD's group is a parameter, so that each deploy can own its CRDs (a CRD is cluster-scoped).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A small deterministic generator (a 32-bit LCG), so the same call writes the same bytes. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = (
  'the of a to field is specifies which resource name when if this that must be set by default ' +
  'value for in object list template pod container spec status condition reason message time ' +
  'selector label key operator values type port protocol path volume mount secret config map ' +
  'reference namespace cluster scope policy rule endpoint service account token certificate ' +
  'duration seconds replicas strategy rolling update maximum minimum number percentage string'
).split(' ');

function sentence(next, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(next() * WORDS.length)]);
  const text = out.join(' ');
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

/**
 * A `description:` line (or lines) the way controller-gen writes them: plain, single-quoted when
 * the text holds `: `, or a `|-` literal of several lines holding backticks, quotes and links.
 */
function description(next, pad) {
  const sentences = 1 + Math.floor(next() * 4);
  const text = Array.from({ length: sentences }, () => sentence(next, 8 + Math.floor(next() * 14)));
  const roll = next();
  if (roll < 0.45) return `${pad}description: ${text.join(' ')}`;
  if (roll < 0.6)
    return `${pad}description: '${text.join(' ')} More info: https://kubernetes.io/docs/concepts/'`;
  const lines = [
    ...text,
    `Defaults to \`${WORDS[Math.floor(next() * WORDS.length)]}\` when "${WORDS[Math.floor(next() * WORDS.length)]}" is unset.`,
    'More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/',
  ];
  return `${pad}description: |-\n${lines.map((l) => `${pad}  ${l}`).join('\n')}`;
}

/**
 * One schema node at `depth` as YAML lines indented by `indent` spaces; `budget.left` (bytes) is
 * spent as lines are written, and once it is spent every node is a leaf.
 */
function schema(next, depth, indent, lines, budget) {
  const pad = ' '.repeat(indent);
  const line = description(next, pad);
  budget.left -= line.length;
  const roll = budget.left > 0 ? next() : 1;
  lines.push(line);
  if (depth > 0 && roll < 0.5) {
    lines.push(`${pad}type: object`, `${pad}properties:`);
    const fields = 2 + Math.floor(next() * 5);
    const required = [];
    for (let i = 0; i < fields; i++) {
      const name = `${WORDS[Math.floor(next() * WORDS.length)]}${WORDS[Math.floor(next() * WORDS.length)].replace(/^./, (c) => c.toUpperCase())}${i}`;
      if (next() < 0.2) required.push(name);
      lines.push(`${pad}  ${name}:`);
      schema(next, depth - 1, indent + 4, lines, budget);
    }
    if (required.length > 0) lines.push(`${pad}required:`, ...required.map((r) => `${pad}- ${r}`));
    return;
  }
  if (depth > 0 && roll < 0.65) {
    lines.push(`${pad}type: array`, `${pad}items:`);
    schema(next, depth - 1, indent + 2, lines, budget);
    if (next() < 0.5) lines.push(`${pad}x-kubernetes-list-type: atomic`);
    return;
  }
  const leaf = next();
  if (leaf < 0.4) {
    lines.push(`${pad}type: string`);
    if (next() < 0.3) lines.push(`${pad}enum:`, `${pad}- Always`, `${pad}- IfNotPresent`, `${pad}- Never`);
    if (next() < 0.2) lines.push(`${pad}pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`);
  } else if (leaf < 0.6) {
    lines.push(`${pad}type: integer`, `${pad}format: int32`, `${pad}minimum: 0`);
  } else if (leaf < 0.7) {
    lines.push(`${pad}type: boolean`);
  } else if (leaf < 0.8) {
    lines.push(
      `${pad}anyOf:`,
      `${pad}- type: integer`,
      `${pad}- type: string`,
      `${pad}x-kubernetes-int-or-string: true`,
    );
  } else if (leaf < 0.9) {
    lines.push(`${pad}type: object`, `${pad}additionalProperties:`, `${pad}  type: string`);
  } else {
    lines.push(`${pad}type: object`, `${pad}x-kubernetes-preserve-unknown-fields: true`);
  }
}

/** The largest description budget of one property of spec (bytes), as real schemas' largest subtrees. */
const SUBTREE_BYTES = 60_000;

/** One CustomResourceDefinition of `kind` in `group`, its spec schema about `bytes` long. */
function crd(group, kind, bytes, seed) {
  const next = random(seed);
  const plural = `${kind.toLowerCase()}s`;
  const spec = [];
  // Deep schemas until the size is reached: each property of spec is a subtree of depth 8.
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const lines = [`                ${WORDS[i % WORDS.length]}Settings${i}:`];
    schema(next, 8, 18, lines, { left: Math.min(SUBTREE_BYTES, bytes - size) });
    const text = lines.join('\n');
    spec.push(text);
    size += text.length + 1;
  }
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.16.5
  name: ${plural}.${group}
spec:
  group: ${group}
  names:
    kind: ${kind}
    listKind: ${kind}List
    plural: ${plural}
    singular: ${kind.toLowerCase()}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        description: ${JSON.stringify(`${kind} is the Schema for the ${plural} API.`)}
        type: object
        properties:
          apiVersion:
            description: APIVersion defines the versioned schema of this representation of an object.
            type: string
          kind:
            description: Kind is a string value representing the REST resource this object represents.
            type: string
          metadata:
            type: object
          spec:
            description: ${JSON.stringify(`${kind}Spec defines the desired state of ${kind}.`)}
            type: object
            properties:
${spec.join('\n')}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
`;
}

const BUNDLE_KINDS = ['Alertmanager', 'Prometheus', 'ServiceMonitor', 'PodMonitor', 'ThanosRuler', 'Probe'];

/**
 * The text of an operator bundle: {@link BUNDLE_KINDS} as CRDs of `group`, multi-document YAML of
 * about `bytes` bytes (the largest CRD is half of it, as in real bundles).
 */
export function crdBundle({ bytes = 4_500_000, group = 'bench.example.com' } = {}) {
  const shares = [0.5, 0.2, 0.1, 0.08, 0.07, 0.05];
  return BUNDLE_KINDS.map((kind, i) => crd(group, kind, bytes * shares[i], 19 + i)).join('---\n');
}

/** Writes `dir/.k2e/crds.yaml` (see {@link crdBundle}); returns its path. */
export function writeCrdBundle(dir, options = {}) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, '.k2e'), { recursive: true });
  const file = path.join(dir, '.k2e', 'crds.yaml');
  writeFileSync(file, crdBundle(options));
  return file;
}

const COMPONENTS = [
  'controller',
  'webhook',
  'cainjector',
  'api',
  'worker',
  'scheduler',
  'gateway',
  'exporter',
];

/**
 * Writes an install-like directory: 130 files in `dir/.k2e/` (numbered, so read in install order),
 * about 250 objects. Returns the number of objects written.
 */
export function writeInstall(dir, { group = 'install.example.com' } = {}) {
  rmSync(dir, { recursive: true, force: true });
  const k2e = path.join(dir, '.k2e');
  mkdirSync(k2e, { recursive: true });
  const files = [];
  const add = (name, docs) => files.push({ name, docs });
  for (let i = 0; i < 10; i++) add(`crd-${i}.yaml`, [crd(group, `Thing${i}`, 12_000 + i * 3_000, 100 + i)]);
  for (const c of COMPONENTS) {
    add(`${c}-serviceaccount.yaml`, [serviceAccount(c)]);
    add(`${c}-clusterrole.yaml`, [clusterRole(c, group)]);
    add(`${c}-clusterrolebinding.yaml`, [clusterRoleBinding(c, group)]);
    add(`${c}-role.yaml`, [role(c), roleBinding(c)]);
    add(`${c}-config.yaml`, [configMap(c)]);
    add(`${c}-secret.yaml`, [secret(c)]);
    add(`${c}-service.yaml`, [service(c), service(`${c}-metrics`)]);
    add(`${c}-deployment.yaml`, [deployment(c)]);
    add(`${c}-pdb.yaml`, [pdb(c)]);
    add(`${c}-networkpolicy.yaml`, [networkPolicy(c)]);
    add(`${c}-instance.yaml`, [instance(c, group)]);
  }
  for (let i = 0; files.length < 130; i++) add(`dashboard-${i}.yaml`, [dashboard(i)]);
  let objects = 0;
  files.forEach((f, i) => {
    writeFileSync(path.join(k2e, `${String(i).padStart(3, '0')}-${f.name}`), f.docs.join('---\n'));
    objects += f.docs.length;
  });
  return objects;
}

const labels = (c) => `    app.kubernetes.io/name: install
    app.kubernetes.io/component: ${c}
    app.kubernetes.io/version: "1.16.2"`;

const serviceAccount = (c) => `apiVersion: v1
kind: ServiceAccount
metadata:
  name: install-${c}
  labels:
${labels(c)}
`;

const clusterRole = (c, group) => `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: install-${group}-${c}
  labels:
${labels(c)}
rules:
- apiGroups: ["${group}"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["secrets", "configmaps"]
  verbs: ["get", "list", "watch"]
`;

const clusterRoleBinding = (c, group) => `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: install-${group}-${c}
  labels:
${labels(c)}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: install-${group}-${c}
subjects:
- kind: ServiceAccount
  name: install-${c}
  namespace: install
`;

const role = (c) => `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: install-${c}
rules:
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update", "patch"]
`;

const roleBinding = (c) => `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: install-${c}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: install-${c}
subjects:
- kind: ServiceAccount
  name: install-${c}
`;

const configMap = (c) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: install-${c}
  labels:
${labels(c)}
data:
  log-level: info
  leader-election: "true"
  config.yaml: |
    apiVersion: config.install.example.com/v1
    kind: ${c[0].toUpperCase()}${c.slice(1)}Configuration
    leaderElection:
      leaseDuration: 60s
      renewDeadline: 40s
    metrics:
      bindAddress: ":9402"
`;

const secret = (c) => `apiVersion: v1
kind: Secret
metadata:
  name: install-${c}-tls
type: Opaque
stringData:
  token: "not-a-real-token-${c}"
`;

const service = (name) => `apiVersion: v1
kind: Service
metadata:
  name: install-${name}
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/name: install
    app.kubernetes.io/component: ${name.replace(/-metrics$/, '')}
  ports:
  - name: ${name.endsWith('-metrics') ? 'metrics' : 'https'}
    port: ${name.endsWith('-metrics') ? 9402 : 443}
    targetPort: ${name.endsWith('-metrics') ? 9402 : 10250}
`;

const deployment = (c) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: install-${c}
  labels:
${labels(c)}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: install
      app.kubernetes.io/component: ${c}
  template:
    metadata:
      labels:
${labels(c).replace(/^ {4}/gm, '        ')}
    spec:
      serviceAccountName: install-${c}
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      containers:
      - name: ${c}
        image: "registry.example.com/install/${c}:v1.16.2"
        imagePullPolicy: IfNotPresent
        args:
        - --v=2
        - --leader-election-namespace=$(POD_NAMESPACE)
        ports:
        - containerPort: 9402
          name: metrics
        env:
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        resources:
          requests:
            cpu: 10m
            memory: 32Mi
        securityContext:
          allowPrivilegeEscalation: false
          capabilities:
            drop: ["ALL"]
        livenessProbe:
          httpGet:
            path: /livez
            port: 9402
          initialDelaySeconds: 10
          periodSeconds: 10
`;

const pdb = (c) => `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: install-${c}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/component: ${c}
`;

const networkPolicy = (c) => `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: install-${c}
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/component: ${c}
  policyTypes: ["Ingress"]
  ingress:
  - ports:
    - port: 9402
      protocol: TCP
`;

const instance = (c, group) => `apiVersion: ${group}/v1
kind: Thing${COMPONENTS.indexOf(c)}
metadata:
  name: install-${c}
spec: {}
`;

const dashboard = (i) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: install-dashboard-${i}
  labels:
    grafana_dashboard: "1"
data:
  dashboard-${i}.json: |
    {"title": "Install ${i}", "panels": [${Array.from({ length: 12 }, (_, p) => `{"id": ${p}, "type": "timeseries", "targets": [{"expr": "rate(install_requests_total{component=\\"c${p}\\"}[5m])"}]}`).join(', ')}]}
`;
