// A newcomer's walk of one function through the source: how many files following it enters, and
// how often it comes back to a file it had left. Measures issue 40's acceptance for deploy(options).
// Usage: node scripts/walk.mjs [--root DIR] [--file src/core/deploy/index.ts] [--function deploy]
//   [--follow src/core/] [--leaves] [--returns] [--verbose]
//
// How it counts. The TypeScript compiler resolves every call (and `new`) in a function's body, in
// source order, including those inside its arrow functions, to the function or method declared in
// src/. The walk goes to each such declaration (depth first) and comes back to the caller when done.
// A function is read once: a second call to it is looked up in place (no move). Only functions in
// the --follow folders (default src/core/, the middle a deploy is made of) are read through. A call
// of a function elsewhere (engine/, base/, image/, …: leaves with their own tests and TSDoc) is read
// by its name and not followed; with --leaves, its file is entered (and left) too. Every change of the current file, going to
// a callee or coming back to the caller, is an entry; an entry into a file entered before is a
// re-entry. Types are not followed (a reader looks them up, but they are not the data flow).
import path from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const { values: args } = parseArgs({
  options: {
    root: { type: 'string', default: process.cwd() },
    file: { type: 'string', default: 'src/core/deploy/index.ts' },
    function: { type: 'string', default: 'deploy' },
    follow: { type: 'string', multiple: true, default: ['src/core/'] },
    leaves: { type: 'boolean', default: false },
    returns: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const root = path.resolve(args.root);
const rel = (file) => path.relative(root, file);

const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const program = ts.createProgram({
  rootNames: config.fileNames.filter((f) => rel(f).startsWith('src/')),
  options: config.options,
});
const checker = program.getTypeChecker();

const start = program.getSourceFile(path.join(root, args.file));
if (!start) throw new Error(`${args.file} is not in the program of ${root}`);
const entry = findFunction(start, args.function);
if (!entry) throw new Error(`no function ${args.function} in ${args.file}`);

/** The top-level function (or exported const arrow) `name` of `source`. */
function findFunction(source, name) {
  for (const s of source.statements) {
    if (ts.isFunctionDeclaration(s) && s.name?.text === name) return s;
    if (ts.isVariableStatement(s))
      for (const d of s.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer) return d.initializer;
  }
  return undefined;
}

/** The declaration in src/ a call expression calls, if any. */
function calleeOf(call) {
  let symbol = checker.getSymbolAtLocation(ts.isNewExpression(call) ? call.expression : call.expression);
  if (ts.isPropertyAccessExpression(call.expression))
    symbol = checker.getSymbolAtLocation(call.expression.name);
  if (!symbol) return undefined;
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  for (const d of symbol.declarations ?? []) {
    const file = d.getSourceFile().fileName;
    if (file.includes('node_modules') || !rel(file).startsWith('src/') || file.endsWith('.d.ts')) continue;
    // A class: its constructor is what `new` runs.
    if (ts.isClassDeclaration(d)) return d.members.find(ts.isConstructorDeclaration) ?? d;
    if (ts.isVariableDeclaration(d) && d.initializer) return d.initializer;
    if (ts.isFunctionLike(d)) return d;
  }
  return undefined;
}

/** The calls in a function's body, in source order, arrow functions included. */
function callsIn(fn) {
  const calls = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) calls.push(node);
    ts.forEachChild(node, visit);
  };
  if (fn.body) visit(fn.body);
  return calls;
}

const read = new Set();
const entered = new Map(); // file → entries
let current = rel(start.fileName);
entered.set(current, 1);
let entries = 1;
let reentries = 0;
const trail = [];
const follows = (file) => args.follow.some((f) => file.startsWith(f));

function moveTo(file, why, back = false) {
  if (file === current) return;
  current = file;
  if (back && !args.returns) return;
  entries++;
  const before = entered.get(file) ?? 0;
  if (before > 0) reentries++;
  entered.set(file, before + 1);
  if (args.verbose) trail.push(`${before > 0 ? 're-enter' : 'enter   '} ${file}  (${why})`);
}

function walk(fn) {
  read.add(fn);
  const here = rel(fn.getSourceFile().fileName);
  for (const call of callsIn(fn)) {
    const callee = calleeOf(call);
    if (!callee || read.has(callee)) continue;
    const there = rel(callee.getSourceFile().fileName);
    if (!follows(there) && !args.leaves) continue;
    const name = callee.name?.getText() ?? callee.parent?.name?.getText() ?? '(anonymous)';
    moveTo(there, `to ${name}`);
    if (follows(there)) walk(callee);
    else read.add(callee);
    moveTo(here, `back from ${name}`, true);
  }
}
walk(entry);

const files = [...entered.keys()];
const coreReentries = [...entered].filter(([f]) => f.startsWith('src/core/')).map(([f, n]) => [f, n - 1]);
const worst = coreReentries.sort((a, b) => b[1] - a[1]);
if (args.verbose) console.log(trail.join('\n'));
console.log(
  JSON.stringify(
    {
      from: `${args.file} ${args.function}()`,
      files: files.length,
      entries,
      reentries,
      functionsRead: [...read].filter((f) => follows(rel(f.getSourceFile().fileName))).length,
      coreFilesMostReentered: worst.slice(0, 5).map(([f, n]) => `${f}: ${n}`),
      filesEntered: files.sort(),
    },
    null,
    2,
  ),
);
