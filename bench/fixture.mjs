// The deploy benchmark's input (bench/bench.mjs): a directory in spread layout of exactly `size`
// objects, a realistic mix — per service a subdirectory with a controller (deployment.yaml and two
// .ctr files) and a .k2e/ holding its Service, ConfigMap, Secret, ServiceAccount and a custom
// resource; the top .k2e/ holds the CustomResourceDefinition and ConfigMaps that fill up to `size`.
//
// Every object has an index (the CRD is 0). Two variations of the same directory drive the redeploy
// steps: `changed` changes every object whose index ends in 3 (10 %: a ConfigMap or Secret value, a
// Deployment's image, a Service's port name, a label, a custom resource's spec), `pruned` also drops
// every object whose index ends in 7 (10 %). The CRD's group is a parameter, so that every run owns
// a CRD of its own (a CRD is cluster-scoped; two ApplySets must not share one). Deterministic.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const PER_SERVICE = 6;

/** The objects of a directory of `size`: [{index, kind, name, service?}], index order. */
export function model(size) {
  const services = Math.floor((size - 1) / PER_SERVICE);
  const out = [{ index: 0, kind: 'CustomResourceDefinition', name: 'widgets' }];
  const kinds = ['Deployment', 'Service', 'ConfigMap', 'Secret', 'ServiceAccount', 'Widget'];
  for (let s = 0; s < services; s++) {
    const service = `svc-${String(s).padStart(4, '0')}`;
    for (const [k, kind] of kinds.entries()) {
      const name = kind === 'ConfigMap' ? `${service}-config` : service;
      out.push({ index: 1 + s * PER_SERVICE + k, kind, name, service });
    }
  }
  for (let i = out.length; i < size; i++) out.push({ index: i, kind: 'ConfigMap', name: `shared-${i}` });
  return out;
}

/**
 * Writes the directory. `variant`: `initial`, `changed` (10 % changed) or `pruned` (changed, and
 * 10 % more removed). Returns the objects written ({@link model} entries).
 */
export function generate(dir, size, { group, variant = 'initial' }) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, '.k2e'), { recursive: true });
  const changed = (o) => variant !== 'initial' && o.index % 10 === 3;
  const kept = model(size).filter((o) => !(variant === 'pruned' && o.index % 10 === 7));
  const byService = new Map();
  const shared = [];
  for (const o of kept) {
    if (o.service) byService.set(o.service, [...(byService.get(o.service) ?? []), o]);
    else if (o.kind === 'ConfigMap') shared.push(o);
  }
  writeFileSync(path.join(dir, '.k2e', 'crd.yaml'), crd(group));
  writeFileSync(
    path.join(dir, '.k2e', 'shared.yaml'),
    shared.map((o) => configMap(o.name, 6, changed(o))).join('---\n') || '# none\n',
  );
  let i = 0;
  for (const [service, objects] of byService) {
    const sub = path.join(dir, service);
    mkdirSync(path.join(sub, '.k2e'), { recursive: true });
    const docs = { service: [], config: [], rbac: [], widget: [] };
    for (const o of objects) {
      const c = changed(o);
      if (o.kind === 'Deployment') {
        writeFileSync(path.join(sub, 'deployment.yaml'), deployment(service, i));
        writeFileSync(path.join(sub, 'app.ctr'), container(service, i, c));
        writeFileSync(path.join(sub, 'proxy.ctr'), proxy());
      } else if (o.kind === 'Service') docs.service.push(serviceObject(service, c));
      else if (o.kind === 'ConfigMap') docs.config.push(configMap(o.name, 12, c));
      else if (o.kind === 'Secret') docs.config.push(secret(service, c));
      else if (o.kind === 'ServiceAccount') docs.rbac.push(serviceAccount(service, c));
      else if (o.kind === 'Widget') docs.widget.push(widget(service, i, group, c));
    }
    for (const [file, list] of Object.entries(docs))
      if (list.length > 0) writeFileSync(path.join(sub, '.k2e', `${file}.yaml`), list.join('---\n'));
    i++;
  }
  return kept;
}

function deployment(name, i) {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels:
    app: ${name}
    tier: "${i % 2 ? 'web' : 'worker'}"
  annotations:
    team: platform
spec:
  replicas: 1
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      serviceAccountName: ${name}
      terminationGracePeriodSeconds: 20
      volumes:
        - name: config
          configMap:
            name: ${name}-config
`;
}

function container(name, i, changed) {
  return `name: app
image: "registry.example.com/team/${name}:1.${i % 10}.${changed ? 1 : 0}"
ports:
  - name: http
    containerPort: 8080
env:
  - name: LOG_LEVEL
    value: info
  - name: PORT
    value: "8080"
  - name: DB_PASSWORD
    valueFrom:
      secretKeyRef:
        name: ${name}
        key: password
args: ["--config", "/etc/${name}/config.yaml"]
resources:
  requests:
    cpu: 100m
    memory: 128Mi
  limits:
    memory: 256Mi
readinessProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 5
volumeMounts:
  - name: config
    mountPath: /etc/${name}
`;
}

function proxy() {
  return `image: envoyproxy/envoy:v1.31.0
ports:
  - containerPort: 9901
resources:
  requests:
    cpu: 50m
    memory: 64Mi
`;
}

function serviceObject(name, changed) {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector:
    app: ${name}
  ports:
    - name: ${changed ? 'web' : 'http'}
      port: 80
      targetPort: http
`;
}

function configMap(name, keys, changed) {
  const data = Array.from(
    { length: keys },
    (_, k) => `  key-${k}: "value ${k}${changed && k === 0 ? ' (changed)' : ''} of ${name}"`,
  ).join('\n');
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
${data}
  config.yaml: |
    server:
      port: 8080
      name: ${name}
`;
}

function secret(name, changed) {
  return `apiVersion: v1
kind: Secret
metadata:
  name: ${name}
type: Opaque
stringData:
  password: "not-a-real-password-${name}${changed ? '-2' : ''}"
`;
}

function serviceAccount(name, changed) {
  return `apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${name}
  labels:
    rotation: "${changed ? 2 : 1}"
`;
}

function widget(name, i, group, changed) {
  return `apiVersion: ${group}/v1
kind: Widget
metadata:
  name: ${name}
spec:
  size: ${changed ? 9 : i % 5}
  color: "${i % 2 ? 'blue' : 'green'}"
`;
}

function crd(group) {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names:
    kind: Widget
    plural: widgets
    singular: widget
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-preserve-unknown-fields: true
`;
}
