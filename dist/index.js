import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as o,b as e,c as i,d as r,e as t,f as a,g as n}from"./chunk-Z5HUWN3X.js";import"./chunk-Z4S7DFYN.js";import"./chunk-UGA2VPD4.js";import{fileURLToPath as l}from"node:url";e();i();var m=await o(l(import.meta.url));m!==void 0&&process.exit(m);a();n();r();var{runAction:p}=await t(()=>import("./spread.js"));await p();process.exit();
