import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b}from"./chunk-V2GC2ZY2.js";import"./chunk-TCJZSX32.js";import"./chunk-UMEIMS5W.js";import"./chunk-QORZ6NTS.js";import"./chunk-3S5QRH4N.js";import"./chunk-ONUOF5GF.js";import"./chunk-FSIDZJJB.js";import"./chunk-HYYVKKSZ.js";import"./chunk-7RQJR4WZ.js";import"./chunk-YKS2MO7D.js";import"./chunk-UGA2VPD4.js";export{a as deletes,b as keptNamespaceReason};
