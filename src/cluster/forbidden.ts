// What to do about a 403 Forbidden: the RBAC authorizer's message names the user, the verb, the
// resource, its API group and the namespace it refused; this turns them into the Role (or
// ClusterRole) rule that would allow the request, the way `kubectl auth can-i` and `kubectl create
// role` spell them.

/** The parts of the RBAC authorizer's refusal (k8s.io/apiserver's forbidden message). */
export interface ForbiddenRequest {
  /** `User "ci"`, `ServiceAccount ci/deployer` (from `system:serviceaccount:ci:deployer`), or undefined when anonymous. */
  readonly subject: string | undefined;
  readonly verb: string;
  /** The resource, with its subresource after a slash: `deployments`, `deployments/scale`. */
  readonly resource: string;
  /** The API group, `''` for the core group. */
  readonly group: string;
  /** undefined at the cluster scope. */
  readonly namespace: string | undefined;
}

const REFUSAL =
  /(?:User "([^"]*)" )?cannot (\w+) resource "([^"]+)"(?: in API group "([^"]*)")?(?: in the namespace "([^"]+)"| at the cluster scope)/;

/** The request a forbidden message refuses; undefined when the message is not the RBAC authorizer's. */
export function parseForbidden(message: string): ForbiddenRequest | undefined {
  const m = REFUSAL.exec(message);
  if (!m) return undefined;
  const user = m[1];
  const sa = user ? /^system:serviceaccount:([^:]+):(.+)$/.exec(user) : null;
  return {
    subject: sa
      ? `ServiceAccount ${sa[1]}/${sa[2]}`
      : user && user !== 'system:anonymous'
        ? `User "${user}"`
        : undefined,
    verb: m[2]!,
    resource: m[3]!,
    group: m[4] ?? '',
    namespace: m[5],
  };
}

/**
 * The next step for a forbidden request: the rule that allows it, in which kind of role, and the
 * kubectl commands that create and bind it, e.g. `a Role in namespace shop with the rule
 * {apiGroups: ["apps"], resources: ["deployments"], verbs: ["patch"]}, bound to User "ci", allows it
 * (kubectl create role … && kubectl create rolebinding …)`. Undefined when the message is not the
 * RBAC authorizer's.
 */
export function forbiddenHint(message: string): string | undefined {
  const r = parseForbidden(message);
  if (!r) return undefined;
  const rule = `{apiGroups: [${JSON.stringify(r.group)}], resources: [${JSON.stringify(r.resource)}], verbs: [${JSON.stringify(r.verb)}]}`;
  const [resource, subresource] = r.resource.split('/');
  const flag = `--verb=${r.verb} --resource=${resource}${r.group ? `.${r.group}` : ''}${subresource ? `/${subresource}` : ''}`;
  const where = r.namespace ? `a Role in namespace ${r.namespace}` : 'a ClusterRole';
  const bound = r.subject ? `, bound to ${r.subject},` : '';
  const create = r.namespace
    ? `kubectl create role NAME ${flag} -n ${r.namespace}`
    : `kubectl create clusterrole NAME ${flag}`;
  const bind = r.subject ? ` and ${bindCommand(r)}` : '';
  return `${where} with the rule ${rule}${bound} allows it (${create}${bind})`;
}

function bindCommand(r: ForbiddenRequest): string {
  const sa = /^ServiceAccount (.+)$/.exec(r.subject ?? '');
  const who = sa
    ? `--serviceaccount=${sa[1]!.replace('/', ':')}`
    : `--user=${/"(.*)"/.exec(r.subject ?? '')?.[1]}`;
  return r.namespace
    ? `kubectl create rolebinding NAME --role=NAME ${who} -n ${r.namespace}`
    : `kubectl create clusterrolebinding NAME --clusterrole=NAME ${who}`;
}
