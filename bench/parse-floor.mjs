// The no-op's parse floor (bench/bench.mjs, "extras"): a fresh Node process that only reads and parses
// every YAML/JSON file under a directory with the yaml library, with the options spread's decoder
// uses (src/decode/decode.ts), and exits. No spread code runs: the time a Node deploy tool that reads
// this directory with this library spends before it can do anything else.
//
//   node bench/parse-floor.mjs DIR
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: node bench/parse-floor.mjs DIR\n');
  process.exit(2);
}
let documents = 0;
const errors = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file);
    else if (/\.(ya?ml|json)$/.test(entry.name)) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'), { merge: true, uniqueKeys: true })) {
        for (const e of doc.errors) errors.push(`${file}: ${e.message.split('\n')[0]}`);
        doc.toJS({ maxAliasCount: 1000 });
        documents++;
      }
    }
  }
};
try {
  walk(root);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
// A floor measured on input spread would reject is no floor: the directory must be valid YAML.
if (errors.length > 0) {
  process.stderr.write(`${errors.join('\n')}\n`);
  process.exit(1);
}
if (documents === 0) {
  process.stderr.write(`no YAML documents under ${root}\n`);
  process.exit(1);
}
