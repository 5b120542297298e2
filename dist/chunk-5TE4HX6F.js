import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
var p={Pod:[],PodTemplate:["template"],ReplicationController:["spec","template"],ReplicaSet:["spec","template"],Deployment:["spec","template"],StatefulSet:["spec","template"],DaemonSet:["spec","template"],Job:["spec","template"],CronJob:["spec","jobTemplate","spec","template"]};function i(e){return Object.hasOwn(p,e)?p[e]:void 0}var a=["initContainers","containers","ephemeralContainers"];function c(e){let n=i(e);return n&&[...n,"spec"]}function d(e,n={}){let o=c(e.kind)??(n.customKinds?["spec","template","spec"]:void 0);if(!o)return;let t=e;for(let s of o)t=r(t)?t[s]:void 0;return r(t)?t:void 0}function r(e){return typeof e=="object"&&e!==null&&!Array.isArray(e)}export{p as a,i as b,a as c,c as d,d as e};
