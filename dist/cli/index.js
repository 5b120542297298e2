#!/bin/sh
':' //; exec node --max-semi-space-size=16 "$0" "$@"
import { createRequire as __spreadCreateRequire } from 'node:module';
import { fileURLToPath as __spreadFileURLToPath } from 'node:url';
import { dirname as __spreadDirname } from 'node:path';
const __spreadRequire = __spreadCreateRequire(import.meta.url);
const __filename = __spreadFileURLToPath(import.meta.url);
const __dirname = __spreadDirname(__filename);
import{a as e,b as r,c as a,d as o}from"../chunk-XJRRWIGO.js";import"../chunk-UGA2VPD4.js";e();r();a();var{runCli:i}=await o(()=>import("../spread.js"));process.exitCode=await i(process.argv);
