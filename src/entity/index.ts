export * from './build.js';
export * from './entity.js';
export * from './kinds.js';
export * from './names.js';
export * from './new-entity.js';
