import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{d as a,e as b,f as c}from"./chunk-SC5WVHFW.js";import"./chunk-TYYDEST6.js";import"./chunk-5TE4HX6F.js";import"./chunk-HQKAIB6E.js";import"./chunk-6X6W34SE.js";import"./chunk-IDPPW7CW.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{a as capabilitiesOf,c as readDeployment,b as renderersOf};
