export * from './decode.js';
export * from './directory.js';
export type { Input } from './input.js';
export * from './manifest.js';
export * from './source.js';
export { checkStringFields, resolvesToNonString } from './traps.js';
