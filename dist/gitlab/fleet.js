import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as o,b as s}from"../chunk-FOZ2MYXV.js";import"../chunk-P2QYRPLQ.js";import"../chunk-NIXWHDWJ.js";import"../chunk-KFKBWD6I.js";import"../chunk-WOGUH7F4.js";import{c as e}from"../chunk-S4F4ROKN.js";import"../chunk-IDOWYCJ7.js";import"../chunk-HQKAIB6E.js";import"../chunk-2SWZXFTO.js";import"../chunk-6X6W34SE.js";import"../chunk-IDPPW7CW.js";import"../chunk-YOOILH77.js";import"../chunk-RW24WL5Z.js";import"../chunk-UGA2VPD4.js";process.on("uncaughtException",r=>{process.stderr.write(`spread fleet-report: internal error: ${e(r)}
`),process.exit(1)});var[t,c]=process.argv.slice(2);(!t||!c)&&(console.error(o),process.exit(2));try{process.exitCode=await s(t,c,process.env)}catch(r){console.error(`spread fleet-report: ${r.message}`),process.exitCode=1}
