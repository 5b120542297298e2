import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{d,e as v,h as y}from"./chunk-UR6GJCWQ.js";import"./chunk-NZ3S6LD3.js";import{b as u,c as f}from"./chunk-2SWZXFTO.js";import{h as p}from"./chunk-6X6W34SE.js";import"./chunk-IDPPW7CW.js";import{q as l}from"./chunk-YOOILH77.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";async function N(e,n,t,a){let r=u(e,p);if(d(n,t.context)||t.namespace)throw new Error("--environment all plans each environment in its own context and namespace: give no context or --namespace");let{deploy:c}=await import("./deploy-24DQXGNF.js"),s=await E(e,r,v(process.env),o=>c(a(o)));process.stdout.write(y(t.output==="json"?`${JSON.stringify({environments:s},null,2)}
`:$(s))),s.some(o=>o.error!==void 0)&&(process.exitCode=1)}async function E(e,n,t,a){let r=[];for(let i of n.environments){if(i.preview!==void 0&&t===void 0){r.push({environment:i.name,skipped:"a preview, and this run has no pull request"});continue}let c=i.clusters.length>1?i.clusters:[void 0];for(let s of c){let o,m={environment:i.name,...s?{cluster:s.name}:{}};try{o=f(e,i,{pullRequest:t},s),r.push({...m,...g(o),report:await a(o)})}catch(x){r.push({...m,...g(o),error:x.message})}}}return r}function g(e){return{...e?.context?{context:e.context}:{},...e?.namespace?{namespace:e.namespace}:{}}}function $(e){return e.map(n=>{let t=[n.context&&`context ${n.context}`,n.namespace&&`namespace ${n.namespace}`].filter(Boolean).join(", "),a=n.cluster!==void 0?`, cluster ${n.cluster}`:"",r=`== environment ${n.environment}${a}${t?` (${t})`:""} ==
`;return n.skipped!==void 0?`${r}not planned: ${n.skipped}
`:n.error!==void 0?`${r}error: ${n.error}
`:`${r}${n.report?l(n.report):""}`}).join(`
`)}export{N as planAll,E as planEach,$ as plansText};
