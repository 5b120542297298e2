import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
var p={SIGINT:130,SIGTERM:143},u=1e3,t;function l(){return t}var f=new WeakSet;function a(n=[process.stdout,process.stderr]){for(let e of n)f.has(e)||(f.add(e),e.on("error",()=>{}))}function I(n){a();let e=new AbortController,o,s=0,i=r=>()=>{o===r&&Date.now()-s<u||(o&&process.exit(p[o]),o=r,s=Date.now(),n.error(`${r}: stopping; a second ${r} ends spread at once, without releasing its lock`),e.abort(new Error(`interrupted by ${r}`)))},d=i("SIGINT"),c=i("SIGTERM");return process.on("SIGINT",d),process.on("SIGTERM",c),t=e.signal,{signal:e.signal,exitCode:()=>o?p[o]:void 0,dispose(){process.off("SIGINT",d),process.off("SIGTERM",c),t===e.signal&&(t=void 0)}}}export{l as a,I as b};
