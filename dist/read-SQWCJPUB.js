import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{g as a,h as b,i as c}from"./chunk-GKVG7X67.js";import"./chunk-B4VZIB3B.js";import"./chunk-QEKHAW2K.js";import"./chunk-UUNNFWS4.js";import"./chunk-K2NIWSKE.js";import"./chunk-O6T52ZZ7.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{a as capabilitiesOf,c as readDeployment,b as renderersOf};
