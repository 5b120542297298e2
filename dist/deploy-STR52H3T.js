import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{M as a,S as b,T as c,V as d,Y as e}from"./chunk-EC6HN34E.js";import"./chunk-MRLV75CR.js";import"./chunk-3S5QRH4N.js";import"./chunk-Z4S7DFYN.js";import"./chunk-72R2FTQI.js";import"./chunk-4AMQ5BBC.js";import"./chunk-ZXYCLSA5.js";import"./chunk-EVVHVAYX.js";import"./chunk-EIQCLMAO.js";import"./chunk-OP42G7QZ.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{c as DeployError,a as FIELD_MANAGER,e as deploy,d as failureDescription,b as failureTarget};
