import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b,c,d,e,f}from"./chunk-NIXWHDWJ.js";import"./chunk-YOOILH77.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{a as COMMENT_LIMIT_CHARS,c as formatPlanMarkdown,b as planMarker,e as renderDeployComment,d as renderPlanComment,f as renderPlanFailureComment};
