import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as m,b as f}from"./chunk-LIAT262M.js";import{X as n,da as a,ea as u,f as i,ka as y}from"./chunk-A6KAUQPH.js";import{b as s}from"./chunk-3S5QRH4N.js";import{d as p,f as l}from"./chunk-IWNH7NBR.js";async function S(g){let{kubeconfig:d,context:x,expectCluster:c,...e}=g;a(e.name);let t=i(d,x);u(e.namespace||t.namespace);let C=m(t,{logger:e.logger,maxSockets:e.concurrency}),o;try{o=await f(C,t)}catch(r){throw n(s(r,e.signal))}try{return c!==void 0&&await l(o.client,{server:p(t.kubeConfig),context:t.context},c,e.signal).catch(r=>{throw n(r)}),await y({...e,cluster:o})}finally{o.close()}}export{S as a};
