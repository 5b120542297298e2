import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
var y=65536,u=t=>t.reportFileName??`${t.reportFile} (output report-file)`,p=t=>t.limitName??"a step output's limit in spread",s=t=>Buffer.byteLength(t,"utf8");function d(t,o){let e=o.limitBytes??65536;if(s(t)<=e)return t;let n=`

\u2026 truncated to ${m(e)} (${p(o)}); the whole report is in ${u(o)}`,l=Math.max(0,e-s(n)),r=Buffer.from(t,"utf8").subarray(0,l).toString("utf8").replace(/\uFFFD$/,""),a=r.lastIndexOf(`
`);return a>r.length*.9&&(r=r.slice(0,a)),`${r}${n}`}function $(t,o,e){let n=e.limitBytes??65536,l=JSON.stringify(t);if(s(l)<=n)return l;let r=i=>JSON.stringify({truncated:`${i} of ${t.length} ${o} not shown (${p(e)} is ${m(n)}); all of them are in ${u(e)}`,left:i,total:t.length,reportFile:e.reportFile}),a=2,f=0;for(let i of t){let c=s(JSON.stringify(i))+1;if(a+c+s(r(t.length-f-1))>n)break;a+=c,f++}return`[${[...t.slice(0,f).map(i=>JSON.stringify(i)),r(t.length-f)].join(",")}]`}function m(t){return t%1024===0?`${t/1024} KiB`:`${t} bytes`}export{y as a,d as b,$ as c};
