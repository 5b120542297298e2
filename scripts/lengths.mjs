// The length rule of src/ (issue 17): no function over 80 lines and no file over 400 lines, unless a
// comment says why. A function's reason is in its leading comment (or its declaration's, for an arrow
// function in a `const`), a file's anywhere in it, worded "over 80 lines because …" / "over 400 lines
// because …". Functions are measured by the TypeScript compiler's own parse, nested ones each on their
// own, from the line of their first token to the line of their last. `npm run lint` runs this.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;
export const MAX_FILE_LINES = 400;

const FUNCTION_REASON = /over 80 lines because/i;
const FILE_REASON = /over 400 lines because/i;

/** The `.ts` files under `dir`, sorted. */
function sourceFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The text of the comments before `node` (JSDoc and line comments). */
function leadingComments(text, node) {
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  return ranges.map((r) => text.slice(r.pos, r.end)).join('\n');
}

/**
 * Whether the function, or what holds it, carries a reason to be long: an arrow function or function
 * expression takes the comment of its declaration (`const f = () => …`, `key: () => …`, a class
 * field) or of the statement whose call it is an argument of (`await group('…', async () => …)`).
 */
function justified(text, node) {
  const holders = [node];
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isVariableStatement(n) || ts.isExpressionStatement(n) || ts.isReturnStatement(n)) {
      holders.push(n);
      break;
    }
    const through =
      ts.isVariableDeclaration(n) ||
      ts.isVariableDeclarationList(n) ||
      ts.isPropertyAssignment(n) ||
      ts.isPropertyDeclaration(n) ||
      ts.isCallExpression(n) ||
      ts.isAwaitExpression(n) ||
      ts.isParenthesizedExpression(n);
    if (!through) break;
    holders.push(n);
  }
  return holders.some((h) => FUNCTION_REASON.test(leadingComments(text, h)));
}

/** What to call a function in a message: its name, or its declaration's, or `(anonymous)`. */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const p = node.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) && ts.isIdentifier(p.name))
    return p.name.text;
  return '(anonymous)';
}

/**
 * The length problems of one file: `{file, line, message}` for each function over
 * {@link MAX_FUNCTION_LINES} and the file over {@link MAX_FILE_LINES} lines, without a reason.
 */
export function lengthProblems(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const problems = [];
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  if (lines > MAX_FILE_LINES && !FILE_REASON.test(text))
    problems.push({
      file,
      line: 1,
      message: `${lines} lines, over ${MAX_FILE_LINES}, and no comment says why ("over 400 lines because …")`,
    });
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = lineOf(node.getStart(source));
      const length = lineOf(node.getEnd()) - start + 1;
      if (length > MAX_FUNCTION_LINES && !justified(text, node))
        problems.push({
          file,
          line: start,
          message: `function ${nameOf(node)} is ${length} lines, over ${MAX_FUNCTION_LINES}, and no comment says why ("over 80 lines because …")`,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(process.argv[2] ?? 'src');
  const problems = sourceFiles(root).flatMap((f) =>
    lengthProblems(path.relative(process.cwd(), f), readFileSync(f, 'utf8')),
  );
  for (const p of problems) console.error(`${p.file}:${p.line}: ${p.message}`);
  if (problems.length > 0) {
    console.error(`${problems.length} length problem${problems.length === 1 ? '' : 's'} in ${root}`);
    process.exit(1);
  }
  console.log(
    `no function over ${MAX_FUNCTION_LINES} lines and no file over ${MAX_FILE_LINES} lines without a reason`,
  );
}
