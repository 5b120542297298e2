import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b,c}from"./chunk-C2WXD6CW.js";import"./chunk-Y3VJMU5M.js";import"./chunk-POQP2YRA.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{a as capabilitiesOf,c as readDeployment,b as renderersOf};
