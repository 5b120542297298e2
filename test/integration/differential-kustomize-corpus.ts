// The kustomize corpus of the differential test (differential-kustomize.itg.test.ts): a base with two
// overlays of our own, in successive states (edit, add, change an overlay patch, drop an object),
// each state a whole tree of files; and the broken states whose errors must name the overlay's file.

/** One state of a kustomization tree: path (POSIX, relative to the tree) → content. */
export type Tree = Readonly<Record<string, string>>;

const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 0
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ${image}
        envFrom:
        - configMapRef: {name: web-env}
        ports:
        - containerPort: 8080
`;

const service = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
`;

const settings = (level: string) => `# settings read by the web server
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-settings
data:
  log-level: ${level}
  retries: "3"
`;

const base = (resources: readonly string[], literal: string): Tree => ({
  'base/kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
${resources.map((r) => `- ${r}`).join('\n')}
labels:
- pairs: {app.kubernetes.io/part-of: shop}
configMapGenerator:
- name: web-env
  literals:
  - MODE=${literal}
`,
  'base/deployment.yaml': deployment('registry.example/web:1.0'),
  'base/service.yaml': service,
  'base/settings.yaml': settings('info'),
});

const prod = (replicas: number, extra: boolean): Tree => ({
  'overlays/prod/kustomization.yaml': `resources:
- ../../base
${extra ? '- extra.yaml\n' : ''}namePrefix: prod-
labels:
- pairs: {env: prod}
  includeSelectors: true
images:
- name: registry.example/web
  newTag: "2.0"
patches:
- path: replicas.yaml
secretGenerator:
- name: db
  literals: [password=not-a-real-one]
`,
  'overlays/prod/replicas.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
`,
  ...(extra
    ? {
        'overlays/prod/extra.yaml': `apiVersion: v1
kind: ServiceAccount
metadata:
  name: web-runner
`,
      }
    : {}),
});

const staging = (replicas: number): Tree => ({
  'overlays/staging/kustomization.yaml': `resources:
- ../../base
nameSuffix: -staging
commonAnnotations:
  team: shop
patches:
- target: {kind: Deployment, name: web}
  patch: |-
    - op: replace
      path: /spec/replicas
      value: ${replicas}
configMapGenerator:
- name: web-env
  behavior: merge
  literals: [MODE=staging]
`,
});

/** The overlays the tree holds, each deployed on its own as `kubectl apply -k` deploys it. */
export const OVERLAYS = ['overlays/prod', 'overlays/staging'] as const;

/** A step of the run: what changed, the whole tree after it, and what it drops from the prod overlay. */
export interface Step {
  readonly title: string;
  readonly tree: Tree;
  /** Objects (`Kind/name` as deployed from overlays/prod) the step drops: exactly they are pruned. */
  readonly drops?: readonly string[];
}

/** The successive states of the base with two overlays. */
export function steps(): Step[] {
  const all = ['deployment.yaml', 'service.yaml', 'settings.yaml'];
  return [
    { title: 'first deploy', tree: { ...base(all, 'one'), ...prod(2, false), ...staging(1) } },
    {
      title: 'edit: a generator literal (new hash suffix) and a value of the base',
      tree: {
        ...base(all, 'two'),
        'base/settings.yaml': settings('debug'),
        ...prod(2, false),
        ...staging(1),
      },
    },
    {
      title: 'add: an object of the prod overlay',
      tree: { ...base(all, 'two'), 'base/settings.yaml': settings('debug'), ...prod(2, true), ...staging(1) },
    },
    {
      title: 'change an overlay patch (replicas), in a patch file and an inline JSON patch',
      tree: { ...base(all, 'two'), 'base/settings.yaml': settings('debug'), ...prod(3, true), ...staging(2) },
    },
    {
      title: 'drop: the object of the prod overlay',
      tree: {
        ...base(all, 'two'),
        'base/settings.yaml': settings('debug'),
        ...prod(3, false),
        ...staging(2),
      },
      drops: ['ServiceAccount/prod-web-runner'],
    },
    {
      title: 'drop: the Service of the base',
      tree: {
        ...base(['deployment.yaml', 'settings.yaml'], 'two'),
        'base/settings.yaml': settings('debug'),
        ...prod(3, false),
        ...staging(2),
      },
      drops: ['Service/prod-web'],
    },
  ];
}

/** Broken states of the prod overlay: kubectl fails, spread fails naming `file` and writes nothing. */
export const BROKEN: readonly { readonly title: string; readonly tree: Tree; readonly file: string }[] = [
  {
    title: 'a patch file that is not YAML',
    tree: {
      ...base(['deployment.yaml'], 'one'),
      ...prod(2, false),
      'overlays/prod/replicas.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: [2\n',
    },
    file: 'overlays/prod/replicas.yaml',
  },
  {
    title: 'a patch whose target is not in the base',
    tree: {
      ...base(['deployment.yaml'], 'one'),
      ...prod(2, false),
      'overlays/prod/replicas.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 2\n',
    },
    file: 'overlays/prod/kustomization.yaml',
  },
];
