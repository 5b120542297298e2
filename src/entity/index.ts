export * from '../base/names.js';
export * from './build.js';
export * from './entity.js';
export * from './kinds.js';
export * from './new-entity.js';
