import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b}from"./chunk-TRUGK7GY.js";import"./chunk-COLEJNON.js";import"./chunk-JHDSP7FV.js";import"./chunk-QLRDRG4F.js";import"./chunk-3S5QRH4N.js";import"./chunk-CLDN23PB.js";import"./chunk-FSIDZJJB.js";import"./chunk-RGCCB4CS.js";import"./chunk-XB7WDBWX.js";import"./chunk-YKS2MO7D.js";import"./chunk-UGA2VPD4.js";export{a as deletes,b as keptNamespaceReason};
