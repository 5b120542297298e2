import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a,b,c,d,e,f,g,h}from"./chunk-IIZIUMCW.js";import"./chunk-G6AIIQG7.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";export{d as ACTION_ICON,e as countActions,h as formatReportText,g as imageAction,a as inputReport,b as notDeployedLine,f as objectRef,c as renderedLine};
