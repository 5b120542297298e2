import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as a}from"./chunk-3S5QRH4N.js";import{f as o}from"./chunk-SC5WVHFW.js";import"./chunk-TYYDEST6.js";import{h as t}from"./chunk-D2KKBQDG.js";import"./chunk-5TE4HX6F.js";import"./chunk-HQKAIB6E.js";import"./chunk-6X6W34SE.js";import"./chunk-IDPPW7CW.js";import"./chunk-RW24WL5Z.js";import"./chunk-UGA2VPD4.js";async function p(e){let r=await o(e.path,{namespace:"default",charts:e.charts,kustomize:e.kustomize,logger:e.logger});try{return await t(r.application,r.objects,{...e.images,root:e.path},e.logger)}catch(i){throw a(i,e.images.signal)}}export{p as build};
