// Module hooks for Node 20: @actions/workflow-parser's dist imports its JSON schemas without an
// import attribute (`import schema from "./workflow-v1.0.min.json"`), which Node before 22 refuses
// (ERR_IMPORT_ASSERTION_TYPE_MISSING). Loaded by validate.mjs through module.register: a .json
// module of that package is loaded as JSON.
export async function load(url, context, nextLoad) {
  if (url.endsWith(".json") && url.includes("/@actions/workflow-parser/")) {
    return nextLoad(url, { ...context, importAttributes: { ...context.importAttributes, type: "json" } });
  }
  return nextLoad(url, context);
}
