import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as a}from"./chunk-3S5QRH4N.js";import{h as t}from"./chunk-AZGANOMS.js";import"./chunk-4Q3ZWEJR.js";import{i as o}from"./chunk-GKVG7X67.js";import"./chunk-B4VZIB3B.js";import"./chunk-QEKHAW2K.js";import"./chunk-UUNNFWS4.js";import"./chunk-K2NIWSKE.js";import"./chunk-O6T52ZZ7.js";import"./chunk-UYW747L7.js";import"./chunk-UGA2VPD4.js";async function p(e){let r=await o(e.path,{namespace:"default",charts:e.charts,kustomize:e.kustomize,logger:e.logger});try{return await t(r.application,r.objects,{...e.images,root:e.path},e.logger)}catch(i){throw a(i,e.images.signal)}}export{p as build};
