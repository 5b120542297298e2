// The errors of the Kubernetes API as spread's cluster layer raises them: a non-2xx answer with its
// metav1.Status, and a 401 that stayed one, which names the kubeconfig credential that was refused.

/**
 * A non-2xx answer from the API server. `status` is the metav1.Status of the body when there is one
 * (`reason` e.g. `NotFound`, `Conflict`, `Invalid`, `Forbidden`; `details.causes[]` per field).
 */
export class KubeApiError extends Error {
  readonly code: number;
  readonly status: KubeStatus | undefined;
  readonly request: string;
  constructor(code: number, request: string, status: KubeStatus | undefined, raw: string) {
    super(status?.message ?? (raw.trim() || `HTTP ${code}`));
    this.name = 'KubeApiError';
    this.code = code;
    this.status = status;
    this.request = request;
  }
  /** metav1.StatusReason, e.g. `NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, `Forbidden`. */
  get reason(): string | undefined {
    return this.status?.reason;
  }
}

/**
 * A 401 that a new credential did not cure (or that none could: a token or certificate of the file).
 * Its message names the kubeconfig user and context whose credential was refused and how to get a
 * new one, never the credential itself.
 */
export class UnauthorizedError extends KubeApiError {
  constructor(error: KubeApiError, hint: string) {
    super(401, error.request, error.status, error.message);
    this.name = 'UnauthorizedError';
    this.message = `${hint} (${error.request}: ${error.message || 'Unauthorized'})`;
  }
}

/** metav1.Status, the body of every API error. */
export interface KubeStatus {
  kind?: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}
