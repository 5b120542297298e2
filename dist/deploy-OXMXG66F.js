import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as c}from"./chunk-WRKOZIH2.js";import"./chunk-RH4WMCYE.js";import{O as a,P as b}from"./chunk-IB5LONKL.js";import"./chunk-F27HGSWJ.js";import"./chunk-3S5QRH4N.js";import"./chunk-Z4S7DFYN.js";import"./chunk-T3C2S6JI.js";import"./chunk-7BMR6ZAR.js";import"./chunk-ZXYCLSA5.js";import"./chunk-C2WXD6CW.js";import"./chunk-Y3VJMU5M.js";import"./chunk-POQP2YRA.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{b as DeployError,c as deploy,a as failureTarget};
