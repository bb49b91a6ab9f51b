// GitHub Actions expressions evaluated by GitHub's own evaluator (npm @actions/expressions, from
// actions/languageservices), for tests/deploy/test_ci_action.py, which runs action.yml's steps as the
// runner does. One JSON request per line on stdin, one JSON answer per line on stdout:
//   {"expr": "inputs.comment == 'true'", "context": {...}, "workspace": "/w", "condition": true,
//    "status": "success"|"failure"|"cancelled"}
//   -> {"value": <the value, as JSON>, "text": "<the value as the runner writes it in a string>"}
//   or {"error": "..."}.
// "condition": an `if:`: as the runner does, an expression calling none of the status functions
// is evaluated as `success() && (expr)` (actions/runner, src/Runner.Worker/ExecutionContext.cs
// and the docs' "Status check functions").
// hashFiles(patterns...) is the runner's: it globs the patterns and hashes only files under
// GITHUB_WORKSPACE, ignoring any other match ("Ignore '<file>' since it is not under
// GITHUB_WORKSPACE." in actions/runner src/Misc/expressionFunc/hashFiles/src/hashFiles.ts): the
// SHA-256 of each file's SHA-256 in path order, or '' when no file under the workspace matched.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve, sep } from "node:path";
import { createInterface } from "node:readline";
import { Evaluator, Lexer, Parser, data } from "@actions/expressions";
import { truthy } from "@actions/expressions/result";

function globRegex(pattern) {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      out += pattern[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += pattern[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

function walk(folder, out) {
  let entries = [];
  try { entries = readdirSync(folder, { withFileTypes: true }); } catch { return out; }
  for (const e of entries) {
    const full = join(folder, e.name);
    if (e.isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

function hashFiles(workspace, patterns) {
  const regexes = patterns.map(p => globRegex(isAbsolute(p) ? p : resolve(workspace, p)));
  // Only files under the workspace are ever hashed: walking it is the same as globbing
  // anywhere and ignoring what is outside.
  const files = walk(workspace, []).filter(f => f.startsWith(workspace + sep) && regexes.some(r => r.test(f))).sort();
  if (files.length === 0) return "";
  const result = createHash("sha256");
  for (const f of files) {
    if (statSync(f).isDirectory()) continue;
    result.update(createHash("sha256").update(readFileSync(f)).digest());
  }
  return result.digest("hex");
}

const STATUS = ["always", "success", "failure", "cancelled"];

function evaluate(req) {
  const ctx = JSON.parse(JSON.stringify(req.context), data.reviver);
  const status = req.status || "success";
  const functions = new Map([
    ["always", { name: "always", minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(true) }],
    ["success", { name: "success", minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(status === "success") }],
    ["failure", { name: "failure", minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(status === "failure") }],
    ["cancelled", { name: "cancelled", minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(status === "cancelled") }],
    ["hashfiles", { name: "hashFiles", minArgs: 1, maxArgs: 255,
                    call: (...args) => new data.StringData(hashFiles(req.workspace, args.map(a => a.coerceString()))) }],
  ]);
  let expr = req.expr;
  if (req.condition && !STATUS.some(f => new RegExp(`\\b${f}\\s*\\(`, "i").test(expr))) expr = `success() && (${expr})`;
  const lexed = new Lexer(expr).lex();
  const infos = [...functions.values()].map(({ name, minArgs, maxArgs }) => ({ name, minArgs, maxArgs }));
  const tree = new Parser(lexed.tokens, Object.keys(req.context), infos).parse();
  const value = new Evaluator(tree, ctx, functions).evaluate();
  return { value: JSON.parse(JSON.stringify(value, data.replacer)), text: value.coerceString(), truthy: truthy(value) };
}

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  let answer;
  try { answer = evaluate(JSON.parse(line)); } catch (e) { answer = { error: String(e && e.message || e) }; }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
