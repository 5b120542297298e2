export * from '../base/kube-object.js';
export * from './deployment.js';
export * from './render.js';
export * from './scope.js';
