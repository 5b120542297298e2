import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{c as u,j as c}from"./chunk-P24LHCF2.js";import{d as s}from"./chunk-YKS2MO7D.js";import{b as p}from"./chunk-UGA2VPD4.js";var o=p(u(),1);function O(e,t={}){return e.objects().map(({object:r})=>l(t.showSecrets?r:m(r))).join(`---
`)}var a="<redacted>";function m(e){if(!s(e))return e;let t={...e};for(let r of["data","stringData"]){let i=e[r];i&&typeof i=="object"&&(t[r]=Object.fromEntries(Object.keys(i).map(f=>[f,a])))}return t}function l(e){let t=new o.Document(e,{version:"1.2"});return n(t.contents),t.toString({lineWidth:0,minContentWidth:0})}function n(e){if((0,o.isScalar)(e))typeof e.value=="string"&&c(e.value)&&(e.type="QUOTE_DOUBLE");else if((0,o.isMap)(e))for(let t of e.items)n(t.key),n(t.value);else if((0,o.isSeq)(e))for(let t of e.items)n(t)}export{O as a,a as b,m as c,l as d};
