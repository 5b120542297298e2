import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as n}from"./chunk-HQKAIB6E.js";import{execFileSync as c}from"node:child_process";var o={commit:n.commit,runUrl:n.runUrl,time:n.deployedAt};function g(t,e){let r=t.GITHUB_SHA||t.CI_COMMIT_SHA||void 0;if(!r)try{r=c("git",["rev-parse","HEAD"],{cwd:e,stdio:["ignore","pipe","ignore"]}).toString().trim()}catch{r=void 0}let i;return t.GITHUB_RUN_ID&&t.GITHUB_REPOSITORY?i=`${t.GITHUB_SERVER_URL??"https://github.com"}/${t.GITHUB_REPOSITORY}/actions/runs/${t.GITHUB_RUN_ID}`:(t.CI_JOB_URL||t.CI_PIPELINE_URL)&&(i=t.CI_JOB_URL||t.CI_PIPELINE_URL),{...r?{commit:r}:{},...i?{runUrl:i}:{}}}function l(t,e){let r=i=>c("git",i,{cwd:t,stdio:["ignore","pipe","ignore"]}).toString();try{if(r(["rev-parse","--is-inside-work-tree"]).trim()==="true"){let i=r(["rev-parse","HEAD"]).trim(),m=r(["status","--porcelain","--",".",":(exclude).spread"]).split(`
`).filter(s=>s.trim()!=="");return{...i?{commit:i}:{},uncommitted:m}}}catch{}return{...e?{commit:e}:{},uncommitted:[]}}function I(t,e){return{...t.commit?{[o.commit]:t.commit}:{},...t.runUrl?{[o.runUrl]:t.runUrl}:{},[o.time]:e.toISOString()}}export{g as a,l as b,I as c};
