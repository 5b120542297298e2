import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{P as c,j as i,l as s}from"./chunk-3EYA22KO.js";function g(e){return(o,r)=>e.debug(`API ${o} ${r}`)}function x(e,o){return new i(e.kubeConfig,{onRequest:g(o.logger),...o.maxSockets!==void 0?{maxSockets:o.maxSockets}:{}})}async function b(e,o,{explain:r=!0}={}){try{let n=await s.load(e).catch(t=>{throw r?new Error(`cannot use the API server ${e.server.origin} of context ${o.context}: ${c(t)}`):t});return{api:e,client:e,discovery:n,context:o.context,namespace:o.namespace,close:()=>e.close()}}catch(n){throw e.close(),n}}export{x as a,b};
