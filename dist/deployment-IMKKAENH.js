import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as g,b as h,c as i,d as j,e as k}from"./chunk-U3AUBM73.js";import{A as w,u as l,v as n,w as q,x as s,y as u,z as v}from"./chunk-TYYDEST6.js";import"./chunk-5TE4HX6F.js";import"./chunk-HQKAIB6E.js";import"./chunk-IDPPW7CW.js";import{a as o,b as r,c as e,d as f,e as m,f as p,g as t,h as x,i as a,j as b,k as c,l as d}from"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{l as CLUSTER_SCOPED,q as Deployment,h as REDACTED,s as applyGroup,u as applyRank,w as deploymentOf,v as entityObjects,e as formatGroupKind,c as formatObject,b as formatObjectRef,r as groupKindOf,o as groupOf,d as identityProblem,n as isBuiltinClusterScoped,m as isCoreNamespace,f as isCoreSecret,p as isCrd,x as isGenerated,a as nameOf,i as redactSecret,g as render,j as renderObject,k as renderWithLibrary,t as withoutManagedFields};
