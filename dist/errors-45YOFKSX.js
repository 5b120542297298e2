import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b}from"./chunk-NTN4IY24.js";import"./chunk-MRSTQJDN.js";import"./chunk-YL2DFSDM.js";import"./chunk-3S5QRH4N.js";import"./chunk-XIPN2IJG.js";import"./chunk-4C4M6NFZ.js";import"./chunk-Z4S7DFYN.js";import"./chunk-IBF2FPWI.js";import"./chunk-6KOVEQMO.js";import"./chunk-5TE4HX6F.js";import"./chunk-Q742ZLA7.js";import"./chunk-2D5AUZ2F.js";import"./chunk-IDOWYCJ7.js";import"./chunk-HQKAIB6E.js";import"./chunk-CNDCBGRN.js";import"./chunk-ANTQZKMM.js";import"./chunk-7KGEGQ75.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{b as failureLines,a as locatedFailures};
