import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as e}from"./chunk-AMFKOMWY.js";var p=e((a,r)=>{r.exports=__spreadRequire("assert")});var t=e((i,s)=>{s.exports=__spreadRequire("tls")});var d=e((o,_)=>{_.exports=__spreadRequire("string_decoder")});export{p as a,t as b,d as c};
