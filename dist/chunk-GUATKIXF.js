import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as i}from"./chunk-QEKHAW2K.js";import{n as a}from"./chunk-RW24WL5Z.js";function d(t){return t.repository?`${t.repository}, path ${t.path}`:t.path}function m(t,e){return(t.repository??"")===(e.repository??"")&&t.path===e.path}function u(t){return{...t.repository?{[i.repository]:t.repository}:{},[i.path]:t.path}}function c(t){let e=t?.[i.path];if(!e)return;let o=t[i.repository];return{...o?{repository:o}:{},path:e}}var l=new Set(["app","apps","chart","charts","config","deploy","deployment","deployments","helm","infra","k8s","kube","kubernetes","manifests","ops"]);function g(t){let e=t.path.split("/").filter(n=>n&&n!=="."),o=t.repository?.split("/").filter(Boolean).pop(),r=n=>a(n),p=e.pop();if(p===void 0)return r(o??"app");if(!l.has(r(p)))return r(p);let s=[...e].reverse().find(n=>!l.has(r(n)))??o;return r(s?`${s}-${p}`:p)}export{d as a,m as b,u as c,c as d,g as e};
