import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b}from"./chunk-5NBLG7JQ.js";import"./chunk-EC37CS2J.js";import"./chunk-C2JXEQSC.js";import"./chunk-3S5QRH4N.js";import"./chunk-ONUOF5GF.js";import"./chunk-FSIDZJJB.js";import"./chunk-Q4UR5L7K.js";import"./chunk-5H3UY7G4.js";import"./chunk-YKS2MO7D.js";import"./chunk-UGA2VPD4.js";export{b as failureLines,a as locatedFailures};
