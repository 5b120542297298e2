import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b}from"./chunk-GUZSFFLO.js";import"./chunk-PN7CT6IC.js";import"./chunk-OWPRAHSS.js";import"./chunk-3S5QRH4N.js";import"./chunk-Z4S7DFYN.js";import"./chunk-P6BA3TDO.js";import"./chunk-GDLX7QLP.js";import"./chunk-KWX7L26W.js";import"./chunk-7DEDBUHK.js";import"./chunk-BYZWDQF6.js";import"./chunk-UGA2VPD4.js";export{b as failureLines,a as locatedFailures};
