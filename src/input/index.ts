export * from '../base/source.js';
export * from '../decode/decode.js';
export { checkStringFields, resolvesToNonString } from '../decode/traps.js';
export * from './directory.js';
export type { Input } from './input.js';
export * from './manifest.js';
