export * from './deployment.js';
export * from './kube-object.js';
export * from './render.js';
export * from './scope.js';
