// The deployment stage's public face: the object set (spread's Deployment, not the Kubernetes kind), its
// rendering and scopes, and the object types it is made of.
export * from '../base/kube-object.js';
export * from './deployment.js';
export * from './render.js';
export * from './scope.js';
