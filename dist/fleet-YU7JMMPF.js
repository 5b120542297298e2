import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b,c}from"./chunk-KFKBWD6I.js";import"./chunk-YOOILH77.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{c as formatFleetText,a as legChanges,b as rolloutSummary};
