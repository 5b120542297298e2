import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b as s}from"./chunk-RH4WMCYE.js";import{Q as c,W as p,X as l,_ as i,f as r}from"./chunk-IB5LONKL.js";import{b as n}from"./chunk-3S5QRH4N.js";async function k(y){let{kubeconfig:m,context:u,...e}=y;p(e.name);let o=r(m,u);l(e.namespace||o.namespace);let f=a(o,{logger:e.logger,maxSockets:e.concurrency}),t;try{t=await s(f,o)}catch(g){throw c(n(g,e.signal))}try{return await i({...e,cluster:t})}finally{t.close()}}export{k as a};
