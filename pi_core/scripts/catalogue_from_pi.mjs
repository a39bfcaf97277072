// Writes src/pi_core/ai/catalogue.json — the Anthropic and OpenAI models the core knows without any
// provider plugin — from the catalogue of an installed TypeScript pi.
//
//   node scripts/catalogue_from_pi.mjs /path/to/node_modules/@earendil-works > src/pi_core/ai/catalogue.json
//
// Per model it keeps the facts: id, name, wire API, provider, base URL, reasoning flag, thinking
// levels, input kinds, costs, context window, max tokens, headers and compat settings.
const root = process.argv[2];
if (!root) throw new Error("usage: node catalogue_from_pi.mjs <dir holding pi-ai>");
const { builtinProviders } = await import(`${root}/pi-ai/dist/providers/all.js`);

const CORE = ["anthropic", "openai"];
const APIS = new Set(["anthropic-messages", "openai-completions", "openai-responses"]);
const catalogue = {};
for (const id of CORE) {
  const provider = builtinProviders().find((p) => p.id === id);
  if (!provider) throw new Error(`pi-ai has no provider ${id}`);
  const models = [];
  for (const m of provider.getModels()) {
    if (!APIS.has(m.api) || (m.type && m.type !== "chat")) continue;
    const entry = { id: m.id, name: m.name, api: m.api, provider: id, baseUrl: m.baseUrl ?? provider.baseUrl };
    entry.reasoning = Boolean(m.reasoning);
    if (m.thinkingLevelMap) entry.thinkingLevelMap = m.thinkingLevelMap;
    entry.input = m.input;
    entry.cost = m.cost ?? {};
    entry.contextWindow = m.contextWindow;
    entry.maxTokens = m.maxTokens;
    if (m.headers && Object.keys(m.headers).length) entry.headers = m.headers;
    const compat = { ...(m.compat ?? {}) };
    delete compat.allowedFallbackModels;
    if (Object.keys(compat).length) entry.compat = compat;
    models.push(entry);
  }
  catalogue[id] = models.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
// One model per line, so that a catalogue update reads as a diff of models.
const lines = ["{"];
CORE.forEach((id, i) => {
  lines.push(` ${JSON.stringify(id)}: [`);
  catalogue[id].forEach((m, j) => lines.push(`  ${JSON.stringify(m)}${j < catalogue[id].length - 1 ? "," : ""}`));
  lines.push(` ]${i < CORE.length - 1 ? "," : ""}`);
});
lines.push("}");
console.log(lines.join("\n"));
