import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{f as a,g as b,h as c,i as d,j as e,k as f,l as g,m as h,n as i}from"./chunk-RHL6FA4L.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";export{e as ACTION_ICON,f as countActions,d as environmentLine,i as formatReportText,h as imageAction,a as inputReport,b as notDeployedLine,g as objectRef,c as renderedLine};
