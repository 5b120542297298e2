import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{c as a}from"./chunk-2SWZXFTO.js";import{v as o}from"./chunk-6X6W34SE.js";function l(t,n){let e=o(t);if(e===void 0||e.environments.length===0)return[{}];let i=e.environments.filter(r=>!n||n==="all"||r.name===n);if(i.length===0)throw new Error(`environment ${n} is not declared in ${e.file} (declared: ${e.environments.map(r=>r.name).join(", ")})`);return i.map(r=>{if(r.preview!==void 0)return{environment:r.name,skipped:"a preview environment: one per pull request"};try{return{environment:r.name,target:a(t,r,{})}}catch(s){return{environment:r.name,error:s.message}}})}export{l as a};
