export * from './context.js';
export * from './credentials.js';
export * from './docker.js';
export * from './pin.js';
export * from './plan.js';
export * from './prepare.js';
export * from './reference.js';
export * from './registry.js';
