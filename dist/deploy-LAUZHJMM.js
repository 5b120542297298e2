import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{K as a,R as b,S as c,U as d,X as e}from"./chunk-PBJOGXA6.js";import"./chunk-MRLV75CR.js";import"./chunk-3S5QRH4N.js";import"./chunk-Z4S7DFYN.js";import"./chunk-ML2B7CZP.js";import"./chunk-KREYPIIX.js";import"./chunk-ZXYCLSA5.js";import"./chunk-NRRNKNWF.js";import"./chunk-EIQCLMAO.js";import"./chunk-OP42G7QZ.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{c as DeployError,a as FIELD_MANAGER,e as deploy,d as failureDescription,b as failureTarget};
