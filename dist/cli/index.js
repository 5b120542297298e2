#!/usr/bin/env node
import { runCli } from '../spread.js';

process.exitCode = await runCli(process.argv);
