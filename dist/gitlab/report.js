import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import"../chunk-UGA2VPD4.js";import{mkdirSync as b,readFileSync as U,writeFileSync as h}from"node:fs";import $ from"node:path";import _ from"node:path";var E=1e3;function y({report:e,error:r,failures:n},{env:t,links:s,formatPlan:o}){let i=e?.mode??(t.SPREAD_INPUT_MODE==="plan"?"plan":"deploy"),c=e?.context||t.SPREAD_INPUT_CONTEXT,l=e?.namespace||t.SPREAD_INPUT_NAMESPACE,p=[e?.deployment?`\`${d(e.deployment)}\``:`directory \`${d(t.SPREAD_INPUT_PATH||".")}\``,c?`context \`${d(c)}\``:"",l?`namespace \`${d(l)}\``:""].filter(Boolean),m=[`error: ${r}`,...n.filter(u=>u&&typeof u.message=="string"&&!r.includes(u.message)).map(u=>`  ${u.file?`${x(u.file,t)}${u.line?`:${u.line}`:""}: `:""}${u.severity==="warning"?"warning: ":""}${u.message}`)],f=[`### \u274C ${i==="plan"?"Plan":"Deploy"} failed: ${p.join(", ")}`,P(m.join(`
`))];return e&&o?f.push("#### What was applied before the failure",o(e,{...s,headingLevel:4}).trimEnd()):Object.keys(s).length>0&&f.push(`<sub>spread${s.sha?` \xB7 commit \`${s.sha.slice(0,7)}\``:""}${s.runUrl?` \xB7 [job](${s.runUrl})`:""}</sub>`),`${f.join(`

`)}
`}function S(e){let r=(e?.rollout??[]).map(n=>`| \`${d(`${String(n.kind).toLowerCase()}/${n.name}`)}\` | ${n.ready?"\u2705":"\u274C"} | ${String(n.message).replace(/\|/g,"\\|").replace(/\n/g," ")} | ${(Number(n.durationMs)/1e3).toFixed(1)}s |`);return r.length>0?`
#### Rollout

| Workload | Ready | Status | Time |
| --- | --- | --- | --- |
${r.join(`
`)}
`:""}function R({report:e,error:r},n,t){let s=e===void 0?n.SPREAD_INPUT_MODE==="plan"?"false":"":String(e.objects.some(i=>i.action!=="unchanged")),o={SPREAD_OUTCOME:r===void 0?"success":"failure",SPREAD_ERROR:r??"",SPREAD_DEPLOYMENT:e?.deployment??"",SPREAD_NAMESPACE:e?.namespace??n.SPREAD_INPUT_NAMESPACE??"",SPREAD_CONTEXT:e?.context??n.SPREAD_INPUT_CONTEXT??"",SPREAD_REVISION:e?.revision===void 0?"":String(e.revision),SPREAD_IMAGES:t(e?.images??[]),SPREAD_CHANGED:s,SPREAD_ENVIRONMENT_URL:n.SPREAD_ENVIRONMENT_URL||(typeof e?.url=="string"?e.url:"")};return`${Object.entries(o).map(([i,c])=>{let l=String(c).replace(/\s*[\r\n]+\s*/g," ");return`${i}=${l.length>E?`${l.slice(0,E-1)}\u2026`:l}`}).join(`
`)}
`}function x(e,r){return _.isAbsolute(e)?e:_.posix.join(r.SPREAD_INPUT_PATH||".",e)}function T(e){let r=e?.promotion;if(!r)return"";let n=`${d(r.from.environment)} revision ${r.from.revision}`,t=r.unchanged?`**${d(r.to)}** already runs ${n}: nothing changed`:`Promoted ${n} to **${d(r.to)}**`,s=r.images.map(o=>`| \`${d(o.mark)}\` | \`${d(o.reference)}\` |`);return`${t} \xB7 commit \`${d(r.commit.slice(0,12))}\` \xB7 nothing built

${s.length>0?`| Image | Digest |
| --- | --- |
${s.join(`
`)}

`:""}`}function P(e){let r=Math.max(0,...[...e.matchAll(/`+/g)].map(t=>t[0].length)),n="`".repeat(Math.max(3,r+1));return`${n}text
${e}
${n}`}function d(e){return String(e).replace(/`/g,"'").replace(/\|/g,"\\|")}async function w(e,r,n){let t=`${e.apiUrl}/projects/${encodeURIComponent(e.projectId)}/merge_requests/${e.mergeRequestIid}/notes`,s={"PRIVATE-TOKEN":e.token,"content-type":"application/json"},o=async(c,l,p)=>{let m=await fetch(l,{method:c,headers:s,...p?{body:JSON.stringify(p)}:{}});if(!m.ok)throw new Error(`${c} ${new URL(l).pathname}: HTTP ${m.status}`);return m.json()};for(let c=1;;c++){let l=await o("GET",`${t}?per_page=100&page=${c}&sort=asc`),p=l.find(m=>typeof m.body=="string"&&m.body.includes(n));if(p)return p.body!==r&&await o("PUT",`${t}/${p.id}`,{body:r}),`${p.id} updated`;if(l.length<100)break}return`${(await o("POST",t,{body:r})).id} created`}var M=1e6,A="usage: node dist/gitlab/report.js REPORT.json OUT_DIR [EXIT_STATUS]";function g(e){let r=s=>s.length>300?`${s.slice(0,299)}\u2026`:s,n=e instanceof Error?`${e.name}: ${e.message}`:String(e),t=String(e?.stack??"").split(`
`).filter(s=>/^\s+at /.test(s)).slice(0,20);return[...n.split(`
`).slice(0,20),...t].map(r).join(`
`)}async function I(e,r,n,t){b(r,{recursive:!0});let s=L(t),o=[],i=J(e,n,o),c=await Promise.all([import("../comment-HSIYPEJ4.js"),import("../cap-RVVK2BLW.js")]).then(([a,D])=>({...a,...D})).catch(a=>{o.push(`could not load spread's report formatters: ${g(a)}`)}),l={env:t,links:s,formatPlan:c?.formatPlanMarkdown},p;try{p=G(i,c,l)}catch(a){o.push(`could not format the report: ${g(a)}`),p=y({error:i.error??"the report could not be formatted",failures:[]},l)}o.length>0&&(p+=`
${P(o.map(a=>`spread report: ${a}`).join(`
`))}
`),h($.join(r,"plan.md"),p);let m="";try{m=S(i.report)}catch(a){o.push(`could not format the rollout: ${g(a)}`)}h($.join(r,"summary.md"),p+m);let f=a=>V(a,e,c),u;try{u=R(i,t,f)}catch(a){o.push(`could not write the dotenv report: ${g(a)}`),u=R({error:i.error??"the report could not be read"},t,f)}h($.join(r,"spread.env"),u),console.log(`spread: wrote ${["spread.env","plan.md","summary.md"].map(a=>$.join(r,a)).join(", ")}`);for(let a of o)console.error(`spread report: ${a}`);return c&&await C(i,c,t,s),o.length>0?1:0}function L(e){let r=e.CI_COMMIT_SHA,n=e.CI_PROJECT_URL&&r?`${e.CI_PROJECT_URL}/-/commit/${r}`:void 0;return{...e.CI_JOB_URL?{runUrl:e.CI_JOB_URL}:{},...r?{sha:r}:{},...n?{commitUrl:n}:{}}}async function C(e,r,n,t){let{report:s}=e;if(!(e.error!==void 0||s?.mode!=="plan")&&!(!n.CI_MERGE_REQUEST_IID||n.SPREAD_MR_NOTE==="false")){if(!n.SPREAD_GITLAB_TOKEN){console.log("spread: no SPREAD_GITLAB_TOKEN: the plan is not posted on the merge request");return}try{let o=await w({apiUrl:String(n.CI_API_V4_URL),projectId:String(n.CI_PROJECT_ID),mergeRequestIid:n.CI_MERGE_REQUEST_IID,token:n.SPREAD_GITLAB_TOKEN},r.renderPlanComment(s,{...t,limit:M}),r.planMarker(s));console.log(`spread: plan note ${o}`)}catch(o){console.log(`spread: WARNING: could not post the plan on the merge request: ${o.message}`)}}}function J(e,r,n){let t="";try{t=U(e,"utf8")}catch(i){i?.code!=="ENOENT"&&n.push(`could not read ${e}: ${i.message}`)}let s=r!==void 0&&r!==0;if(t.trim()==="")return s?{error:`spread exited with status ${r} before writing a report; its errors are in the job log`,failures:[]}:{error:`spread wrote no report to ${e}`,failures:[]};let o;try{o=JSON.parse(t)}catch(i){return{error:`spread's report ${e} is not JSON (${i.message})`,failures:[]}}return typeof o?.error=="string"?{error:o.error,failures:Array.isArray(o.failures)?o.failures:[],...N(o.report)?{report:o.report}:{}}:N(o)?s?{error:`spread exited with status ${r} after writing its report`,failures:[],report:o}:{report:o,failures:[]}:{error:`spread's report ${e} holds no deployment report`,failures:[]}}function N(e){return typeof e=="object"&&e!==null&&Array.isArray(e.objects)}function G(e,r,n){let{report:t,error:s}=e;if(s!==void 0)return y({...e,error:s},n);if(!t)throw new Error("no report");return r?T(t)+r.formatPlanMarkdown(t,n.links):`### ${t.mode==="plan"?"Plan":"Deploy"}: \`${d(t.deployment)}\` \u2192 context \`${d(t.context)}\`, namespace \`${d(t.namespace)}\`

The report could not be formatted; the whole report is in report.json.
`}function V(e,r,n){let t=JSON.stringify(e);return t.length<=E?t:n?n.capJsonArray(e,"images",{reportFile:r,reportFileName:`the artifact ${$.basename(r)}`,limitName:"a dotenv value's limit in GitLab",limitBytes:E}):"[]"}process.on("uncaughtException",e=>{process.stderr.write(`spread report: internal error: ${g(e)}
`),process.exit(1)});var[k,j,O]=process.argv.slice(2);(!k||!j)&&(console.error(A),process.exit(2));process.exitCode=await I(k,j,O===void 0?void 0:Number(O),process.env);
