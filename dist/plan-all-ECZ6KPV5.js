import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{d,e as f,h as v}from"./chunk-X3GT3FEH.js";import"./chunk-W233KPRP.js";import{c as m,i as l,j as u}from"./chunk-FGUR7C5D.js";import"./chunk-4Q3ZWEJR.js";import{h as c}from"./chunk-IIZIUMCW.js";import"./chunk-G6AIIQG7.js";import"./chunk-UUNNFWS4.js";import"./chunk-O6T52ZZ7.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";async function N(r,e,t,i){let g=l(r,m);if(d(e,t.context)||t.namespace)throw new Error("--environment all plans each environment in its own context and namespace: give no context or --namespace");let{deploy:x}=await import("./deploy-YQYWIXX2.js"),p=f(process.env),o=[];for(let n of g.environments){if(n.preview!==void 0&&p===void 0){o.push({environment:n.name,skipped:"a preview, and this run has no pull request"});continue}let a;try{a=u(r,n,{pullRequest:p});let s=await x(i(a));o.push({...y(n.name,a),report:s})}catch(s){o.push({...y(n.name,a),error:s.message})}}process.stdout.write(v(t.output==="json"?`${JSON.stringify({environments:o},null,2)}
`:$(o))),o.some(n=>n.error!==void 0)&&(process.exitCode=1)}function y(r,e){return{environment:r,...e?.context?{context:e.context}:{},...e?.namespace?{namespace:e.namespace}:{}}}function $(r){return r.map(e=>{let t=[e.context&&`context ${e.context}`,e.namespace&&`namespace ${e.namespace}`].filter(Boolean).join(", "),i=`== environment ${e.environment}${t?` (${t})`:""} ==
`;return e.skipped!==void 0?`${i}not planned: ${e.skipped}
`:e.error!==void 0?`${i}error: ${e.error}
`:`${i}${e.report?c(e.report):""}`}).join(`
`)}export{N as planAll,$ as plansText};
