import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as c}from"./chunk-54VWUSXQ.js";import"./chunk-4FQ6ZFUG.js";import{U as a,V as b}from"./chunk-QMMIAFYS.js";import"./chunk-3S5QRH4N.js";import"./chunk-IOAYMB7V.js";import"./chunk-Z4S7DFYN.js";import"./chunk-FGUR7C5D.js";import"./chunk-4K2XNM64.js";import"./chunk-AZGANOMS.js";import"./chunk-4Q3ZWEJR.js";import"./chunk-IIZIUMCW.js";import"./chunk-G6AIIQG7.js";import"./chunk-GKVG7X67.js";import"./chunk-B4VZIB3B.js";import"./chunk-QEKHAW2K.js";import"./chunk-UUNNFWS4.js";import"./chunk-K2NIWSKE.js";import"./chunk-O6T52ZZ7.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{b as DeployError,c as deploy,a as failureTarget};
