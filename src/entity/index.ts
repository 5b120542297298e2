// The entity stage's public face: the entity tree, its building from an input's files, the controller
// kinds, and the DNS-label names it defaults to.
export * from '../base/names.js';
export * from './build.js';
export * from './entity.js';
export * from './kinds.js';
export * from './new-entity.js';
