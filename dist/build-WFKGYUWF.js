import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as t}from"./chunk-3S5QRH4N.js";import{o as a}from"./chunk-GDLX7QLP.js";import{a as o}from"./chunk-KWX7L26W.js";import"./chunk-7DEDBUHK.js";import"./chunk-BYZWDQF6.js";import"./chunk-UGA2VPD4.js";async function l(e){let r=await o(e.path,{namespace:"default",logger:e.logger});try{return await a(r.application,r.objects,{...e.images,root:e.path},e.logger)}catch(g){throw t(g,e.images.signal)}}export{l as build};
