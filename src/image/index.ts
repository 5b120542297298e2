// The image stage's public face: image references, builds through buildx, build contexts, registry
// credentials, pinning by digest, and the plan of which `&` images to build.
export * from '../base/reference.js';
export * from './build-cache.js';
export * from './buildx.js';
export { BuildError, failureDetail } from './buildx-output.js';
export * from './context.js';
export * from './credentials.js';
export * from './docker.js';
export * from './pin.js';
export * from './plan.js';
export * from './prepare.js';
export * from './registry.js';
