// Writes src/pi_core/ai/compat_schema.json — the fields a models.json `compat` object may hold and
// the values each takes — from the provider compat schema of an installed pi-ai.
//
//   node scripts/compat_schema_from_pi.mjs /path/to/node_modules/@earendil-works > src/pi_core/ai/compat_schema.json
//
// Only the structure is kept (types, allowed values, nesting); descriptions and defaults are dropped.
const root = process.argv[2];
if (!root) throw new Error("usage: node compat_schema_from_pi.mjs <dir holding pi-ai>");
const { ProviderCompatSchema } = await import(`${root}/pi-ai/dist/providers/compat-schema.js`);
const DROP = new Set(["description", "default", "title", "examples", "markdownDescription"]);
const structure = (node) => {
  if (Array.isArray(node)) return node.map(structure);
  if (!node || typeof node !== "object") return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) if (!DROP.has(key)) out[key] = structure(value);
  return out;
};
const schema = structure(ProviderCompatSchema);
// One field per line, so that an update reads as a diff of fields.
const { properties, ...rest } = schema;
const fields = Object.entries(properties).map(([name, spec]) => `  ${JSON.stringify(name)}: ${JSON.stringify(spec)}`);
console.log(`{${JSON.stringify(rest).slice(1, -1)}, "properties": {\n${fields.join(",\n")}\n}}`);
