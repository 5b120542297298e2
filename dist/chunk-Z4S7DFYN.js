import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import r from"node:v8";var t="--heap-growing-percent=50",e=!1;function n(){e=!0}function a(){return e?(r.setFlagsFromString(t),e=!1,!0):!1}export{n as a,a as b};
