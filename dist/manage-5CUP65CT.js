import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b,c,d,e,f,g}from"./chunk-DK3HXN2J.js";import"./chunk-PBJOGXA6.js";import"./chunk-MRLV75CR.js";import"./chunk-3S5QRH4N.js";import"./chunk-Z4S7DFYN.js";import"./chunk-ML2B7CZP.js";import"./chunk-KREYPIIX.js";import"./chunk-ZXYCLSA5.js";import"./chunk-NRRNKNWF.js";import"./chunk-EIQCLMAO.js";import"./chunk-OP42G7QZ.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{a as NotFoundError,c as history,e as list,f as lockFor,g as ref,d as rollback,b as withClient};
