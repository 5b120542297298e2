import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as c}from"./chunk-7NJPACFD.js";import"./chunk-LMQEG257.js";import{Z as a,_ as b}from"./chunk-GELP7QHO.js";import"./chunk-HVRSIUWC.js";import"./chunk-3S5QRH4N.js";import"./chunk-AECWTMDD.js";import"./chunk-X4A36CNY.js";import"./chunk-Z4S7DFYN.js";import"./chunk-IBF2FPWI.js";import"./chunk-SM25HVRI.js";import"./chunk-5TE4HX6F.js";import"./chunk-IDOWYCJ7.js";import"./chunk-HQKAIB6E.js";import"./chunk-BAZWKUHK.js";import"./chunk-36PVVWJT.js";import"./chunk-ANTQZKMM.js";import"./chunk-YOOILH77.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{b as DeployError,c as deploy,a as failureTarget};
