import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import r from"node:v8";var t="--heap-growing-percent=50",e;function i(n=t){e=n}function d(){return e===void 0?!1:(r.setFlagsFromString(e),e=void 0,!0)}export{i as a,d as b};
