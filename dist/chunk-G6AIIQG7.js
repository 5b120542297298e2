import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
function n(e,r=""){return e.op==="add"?`+ ${e.path}: ${e.after}`:e.op==="remove"?`- ${e.path}: ${e.before}`:e.lines?[`~ ${e.path}:`,...e.lines.map(t=>`${r}  ${t}`)].join(`
`):`~ ${e.path}: ${e.before} \u2192 ${e.after}`}export{n as a};
