import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as r,c as e,d as o}from"../chunk-S4F4ROKN.js";import"../chunk-UGA2VPD4.js";process.on("uncaughtException",c=>{process.stderr.write(`spread report: internal error: ${e(c)}
`),process.exit(1)});var[t,i,s]=process.argv.slice(2);(!t||!i)&&(console.error(r),process.exit(2));process.exitCode=await o(t,i,s===void 0?void 0:Number(s),process.env);
