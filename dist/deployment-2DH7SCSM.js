import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as d,b as g,c as h,d as i,e as j}from"./chunk-HJ7I37RK.js";import{D as k,E as l,F as n,G as q,H as s,I as u,J as v}from"./chunk-7H6SWVFJ.js";import{a as o,b as r,c as e,d as f,e as m,f as p,g as t,h as x,i as a,j as b,k as c}from"./chunk-YKS2MO7D.js";import"./chunk-UGA2VPD4.js";export{k as CLUSTER_SCOPED,n as Deployment,g as REDACTED,q as applyGroup,s as applyRank,v as deploymentOf,u as entityObjects,e as formatGroupKind,b as formatObject,a as formatObjectRef,r as groupKindOf,o as groupOf,c as identityProblem,l as isBuiltinClusterScoped,m as isCoreNamespace,f as isCoreSecret,p as isCrd,t as isGenerated,x as nameOf,h as redactSecret,d as render,i as renderObject,j as renderWithLibrary};
