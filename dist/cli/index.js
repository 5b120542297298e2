#!/bin/sh
':' //; MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}" exec node --max-semi-space-size=4 "$0" "$@"
import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{b as e,c as a,d as o,e as r,f as i,g as t}from"../chunk-Z5HUWN3X.js";import"../chunk-Z4S7DFYN.js";import"../chunk-UGA2VPD4.js";e();a();i();t();o();var{runCli:l}=await r(()=>import("../spread.js"));process.exitCode=await l(process.argv);
