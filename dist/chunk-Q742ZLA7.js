import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as n}from"./chunk-2D5AUZ2F.js";var r=new RegExp(`\u27E6(${n.map(t=>t.key).join("|")})\u27E7`,"g");function y(t){return`\u27E6${t}\u27E7`}function p(t,e){return t.replace(r,(o,i)=>e(i))}function O(t,e){return JSON.parse(p(JSON.stringify(t),e))}export{y as a,p as b,O as c};
