// The input stage's public face: the directory and manifest inputs, decoding with positions, the YAML
// trap checks, and the types the entity stage takes.
export * from '../base/source.js';
export * from '../decode/decode.js';
export { checkStringFields, resolvesToNonString } from '../decode/traps.js';
export * from './directory.js';
export type { Input } from './input.js';
export * from './manifest.js';
export type * from './render.js';
export { CHART_FILE, KUSTOMIZATION_FILES } from './rendered.js';
