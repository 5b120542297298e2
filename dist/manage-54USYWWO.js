import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b,c,d,e,f,g,h}from"./chunk-TCOMH72L.js";import"./chunk-53EPFDBB.js";import"./chunk-JF223BR6.js";import"./chunk-3S5QRH4N.js";import"./chunk-S66ESLHL.js";import"./chunk-Z4S7DFYN.js";import"./chunk-5MWTN2A7.js";import"./chunk-UN2GX2N4.js";import"./chunk-555HQSMK.js";import"./chunk-4Q3ZWEJR.js";import"./chunk-PAWWCLRJ.js";import"./chunk-G6AIIQG7.js";import"./chunk-RKCFXM5O.js";import"./chunk-VOL6Q4Y4.js";import"./chunk-T72ODADU.js";import"./chunk-UUNNFWS4.js";import"./chunk-K2NIWSKE.js";import"./chunk-O6T52ZZ7.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{a as NotFoundError,f as deletes,h as drift,c as history,e as list,d as rollback,g as status,b as statusExitCode};
