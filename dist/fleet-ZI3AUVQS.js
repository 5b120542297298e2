import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as a,c as b,d as c}from"./chunk-KMSHZNNE.js";import"./chunk-NKFT37OS.js";import"./chunk-3EYA22KO.js";import"./chunk-U3AUBM73.js";import"./chunk-3S5QRH4N.js";import"./chunk-SC5WVHFW.js";import"./chunk-TYYDEST6.js";import"./chunk-Z4S7DFYN.js";import"./chunk-IBF2FPWI.js";import"./chunk-D2KKBQDG.js";import"./chunk-5TE4HX6F.js";import"./chunk-KFKBWD6I.js";import"./chunk-IDOWYCJ7.js";import"./chunk-HQKAIB6E.js";import"./chunk-2SWZXFTO.js";import"./chunk-6X6W34SE.js";import"./chunk-IDPPW7CW.js";import"./chunk-YOOILH77.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{c as deployFleet,b as fleetPlan,a as isFleet};
