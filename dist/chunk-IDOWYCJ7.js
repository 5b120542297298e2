import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as r}from"./chunk-HQKAIB6E.js";import{n as a}from"./chunk-RW24WL5Z.js";function f(e){return e.repository?`${e.repository}, path ${e.path}`:e.path}function d(e,n){return(e.repository??"")===(n.repository??"")&&e.path===n.path}function c(e){return{...e.repository?{[r.repository]:e.repository}:{},[r.path]:e.path,...e.environment?{[r.environment]:e.environment}:{}}}function u(e){let n=e?.[r.path];if(!n)return;let i=e[r.repository],t=e[r.environment];return{...i?{repository:i}:{},path:n,...t?{environment:t}:{}}}var l=new Set(["app","apps","chart","charts","config","deploy","deployment","deployments","helm","infra","k8s","kube","kubernetes","manifests","ops"]);function g(e){let n=e.path.split("/").filter(o=>o&&o!=="."),i=e.repository?.split("/").filter(Boolean).pop(),t=o=>a(o),p=n.pop();if(p===void 0)return t(i??"app");if(!l.has(t(p)))return t(p);let s=[...n].reverse().find(o=>!l.has(t(o)))??i;return t(s?`${s}-${p}`:p)}export{f as a,d as b,c,u as d,g as e};
