import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{f as a,g as b,h as c,i as d,j as e,k as f,l as g,m as h,n as i,o as j,p as k,q as l}from"./chunk-YOOILH77.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{h as ACTION_ICON,i as countActions,d as environmentLine,e as failedStep,l as formatReportText,k as imageAction,a as inputReport,b as notDeployedLine,j as objectRef,c as renderedLine,f as rolledBack,g as skippedLine};
