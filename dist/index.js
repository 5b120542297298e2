import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as o,b as e,c as r,d as i,e as t,f as a}from"./chunk-BAX2C62K.js";import"./chunk-UGA2VPD4.js";import{fileURLToPath as m}from"node:url";e();r();var n=await o(m(import.meta.url));n!==void 0&&process.exit(n);a();i();var{runAction:l}=await t(()=>import("./spread.js"));await l();process.exit();
