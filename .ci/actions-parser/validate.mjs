// Validate GitHub Actions files with GitHub's own schema parser (npm @actions/workflow-parser,
// from actions/languageservices): `node validate.mjs action:FILE workflow:FILE ...` prints
// `file: message` per error and exits 1 when there is any. Called by .ci/lint_actions.py.
import { readFile } from "node:fs/promises";
import { register } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

register("./json-hooks.mjs", import.meta.url);
const { NoOperationTraceWriter, parseWorkflow } = await import("@actions/workflow-parser");

// parseAction is not in the package's "exports" map: load its module by path.
const here = dirname(fileURLToPath(import.meta.url));
const { parseAction } = await import(pathToFileURL(join(here, "node_modules", "@actions", "workflow-parser", "dist", "actions", "index.js")).href);

const args = process.argv.slice(2);
if (args.length === 0) {
  console.error("usage: node validate.mjs action:action.yml workflow:ci.yml ...");
  process.exit(64);
}
let errors = 0;
for (const arg of args) {
  const [kind, ...rest] = arg.split(":");
  const name = rest.join(":");
  const content = await readFile(name, "utf8");
  const parse = kind === "action" ? parseAction : parseWorkflow;
  const result = parse({ name, content }, new NoOperationTraceWriter());
  for (const e of result.context.errors.getErrors()) {
    errors += 1;
    console.log(`${name}: ${e.message}`);
  }
  if (result.value === undefined && result.context.errors.getErrors().length === 0) {
    errors += 1;
    console.log(`${name}: not parsed`);
  }
}
console.log(`workflow-parser: ${args.length} file(s), ${errors} error(s)`);
process.exit(errors ? 1 : 0);
