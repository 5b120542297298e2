import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{mkdirSync as c}from"node:fs";import a from"node:module";import{tmpdir as p}from"node:os";import d from"node:path";var n=24;function E(){Number(process.versions.node.split(".")[0])>=n||(process.stderr.write(`spread needs Node.js ${n} or newer; this is ${process.version} (${process.execPath}). Put Node ${n} first on PATH; in a checkout of spread, after npm ci, that is node_modules/.bin.
`),process.exit(1))}function s(e){let r=o=>o.length>300?`${o.slice(0,299)}\u2026`:o,t=e instanceof Error?`${e.name}: ${e.message}`:String(e),i=String(e?.stack??"").split(`
`).filter(o=>/^\s+at /.test(o)).slice(0,20);return[...t.split(`
`).slice(0,20),...i].map(r).join(`
`)}function x(){process.on("uncaughtException",e=>{process.stderr.write(`spread: internal error: ${s(e)}
`),process.exit(1)})}function $(e=process.env){if(!e.NODE_DISABLE_COMPILE_CACHE)try{let r=d.join(p(),"node-compile-cache");try{c(r)}catch(t){if(t?.code!=="EEXIST")throw t}a.enableCompileCache?.(r)}catch{}}async function k(e){try{return await e()}catch(r){process.stderr.write(`spread failed to load: ${s(r)}
`),process.exit(1)}}export{E as a,x as b,$ as c,k as d};
