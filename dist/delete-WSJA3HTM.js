import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b}from"./chunk-G7NYC65E.js";import"./chunk-EDQOBASI.js";import"./chunk-HA3ZFI2R.js";import"./chunk-JPCVUNAC.js";import"./chunk-3S5QRH4N.js";import"./chunk-AJEUW66F.js";import"./chunk-EDSEFYCV.js";import"./chunk-THTOIIYL.js";import"./chunk-5VECQTLG.js";import"./chunk-YKS2MO7D.js";import"./chunk-UGA2VPD4.js";export{a as deletes,b as keptNamespaceReason};
