import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{B as l,f as u,z as d}from"./chunk-O6T52ZZ7.js";import{readFileSync as m}from"node:fs";import{join as y}from"node:path";var o="spread.yaml";var p=["environments","health","drift"];function S(f){let n;try{n=m(y(f,o))}catch(t){if(t.code==="ENOENT")return{issues:[]};throw t}let e=new u,r=d(o,n);if(e.add(r.issues),r.issues.length>0)return{issues:e.issues};let[s,...i]=r.values;if(s===void 0)return{issues:[]};if(i.length>0&&e.error(i[0]?.source??{file:o,line:0},"holds more than one YAML document; the project file is one mapping"),!l(s.value))return e.error(s.source,"is not a mapping of sections (environments, health, drift)"),{issues:e.issues};let c={};for(let t of Object.keys(s.value)){let a=s.at([t]);if(t!=="$schema"){if(!p.includes(t)||a===void 0){e.error({file:o,line:s.lineAt([t])},`unknown section ${JSON.stringify(t)}: the project file holds ${p.join(", ")}`);continue}c[t]=a}}return e.hasErrors?{issues:e.issues}:{project:{file:o,document:s,sections:c},issues:e.issues}}export{o as a,S as b};
