import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{setTimeout as i}from"node:timers/promises";async function d(n,e){e?.throwIfAborted();try{await i(n,void 0,e?{signal:e}:void 0)}catch(r){throw e?.aborted?e.reason:r}}function s(n,e){if(!e?.aborted||!(n instanceof Error)||n.name!=="AbortError")return n;let r=e.reason;return r instanceof Error?new Error(r.message,{cause:n}):n}async function f(n,e){let r=Date.now()+e.timeoutMs,o=Math.max(e.intervalMs,e.maxIntervalMs??e.intervalMs);for(let t=e.intervalMs;;t=Math.min(t*2,o)){e.signal?.throwIfAborted();let a=await n();if(a!==void 0)return a;if(Date.now()>=r)return;await d(Math.min(t,Math.max(0,r-Date.now())),e.signal)}}export{d as a,s as b,f as c};
