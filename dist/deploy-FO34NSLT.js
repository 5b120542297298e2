import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{J as a,P as b,R as c,S as d}from"./chunk-S5AP2OHT.js";import"./chunk-HJ7I37RK.js";import"./chunk-3S5QRH4N.js";import"./chunk-CLDN23PB.js";import"./chunk-FSIDZJJB.js";import"./chunk-KN2K5PFD.js";import"./chunk-7H6SWVFJ.js";import"./chunk-YKS2MO7D.js";import"./chunk-UGA2VPD4.js";export{b as DeployError,a as FIELD_MANAGER,d as deploy,c as failureDescription};
