// DNS-1123 labels as Kubernetes validates them, and the deterministic default names spread makes from
// directory and file names (a directory's default Deployment, an image's name).
import { createHash } from 'node:crypto';

/** RFC 1123 DNS label as Kubernetes validates it (k8s.io/apimachinery IsDNS1123Label): 1–63 chars. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Maximum length of a DNS-1123 label. */
export const DNS_LABEL_MAX = 63;

/** True when `name` is a valid DNS-1123 label (container names, Service names, entity defaults). */
export function isDnsLabel(name: string): boolean {
  return name.length <= DNS_LABEL_MAX && DNS_LABEL.test(name);
}

/**
 * Makes a DNS-1123 label of any name, deterministically (spread convention for default names taken
 * from directory and file names): lowercased; every run of characters other than `a-z0-9` becomes
 * one `-`; leading and trailing `-` trimmed; a name longer than 63 characters is cut and given a
 * `-` and 8 hex digits of the SHA-256 of the original name, so two long names that share a prefix
 * stay distinct. An empty result becomes `fallback`.
 */
export function toDnsLabel(name: string, fallback = 'app'): string {
  let label = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (label === '') label = fallback;
  if (label.length > DNS_LABEL_MAX) {
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
    label = `${label.slice(0, DNS_LABEL_MAX - hash.length - 1).replace(/-+$/, '')}-${hash}`;
  }
  return label;
}
