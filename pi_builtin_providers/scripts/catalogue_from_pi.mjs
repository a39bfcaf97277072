// Writes src/pi_builtin_providers/providers.json from the catalogue of an installed TypeScript pi.
//
//   node scripts/catalogue_from_pi.mjs /path/to/node_modules/@earendil-works > src/pi_builtin_providers/providers.json
//
// It keeps the facts (provider ids, names, base URLs, the environment variables that hold keys,
// default model ids, and per model: id, name, wire API, context window, max tokens, costs,
// reasoning and image flags, thinking levels, compat settings) of every provider whose models speak
// a wire API pi for Python implements, and adds the local servers, which pi reaches by base URL.
const root = process.argv[2];
if (!root) throw new Error("usage: node catalogue_from_pi.mjs <dir holding pi-ai and pi-coding-agent>");
const { builtinProviders } = await import(`${root}/pi-ai/dist/providers/all.js`);
const { defaultModelPerProvider } = await import(`${root}/pi-coding-agent/dist/core/model-resolver.js`);
const version = JSON.parse(
  (await import("node:fs")).readFileSync(`${root}/pi-coding-agent/package.json`, "utf8"),
).version;

const OURS = new Set([
  "anthropic-messages",
  "openai-completions",
  "openai-responses",
  "azure-openai-responses",
  "openai-codex-responses",
]);
// Wire APIs pi has its own clients for, served by these providers on an OpenAI-compatible endpoint too.
const REMAP = {
  "mistral:mistral-conversations": { api: "openai-completions", baseUrl: "https://api.mistral.ai/v1" },
  "google:google-generative-ai": {
    api: "openai-completions",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    compat: { supportsStore: false, supportsDeveloperRole: false, maxTokensField: "max_tokens" },
  },
};
const BASE_URLS = {
  // Azure OpenAI's v1 endpoint takes the resource name; AZURE_OPENAI_BASE_URL replaces it whole (a
  // bare URL of an Azure host gets the v1 path), and AZURE_OPENAI_DEPLOYMENT_NAME_MAP renames models
  // to deployments (pi-ai's api/azure-openai-config.js).
  azure: {
    baseUrl: "https://{AZURE_OPENAI_RESOURCE_NAME}.openai.azure.com/openai/v1",
    baseUrlEnv: "AZURE_OPENAI_BASE_URL",
    baseUrlEnvPath: "/openai/v1",
    baseUrlEnvHosts: [".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com"],
    modelNameMapEnv: "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
  },
};
// Providers whose keys are not API keys (OAuth, token exchange, cloud credentials).
const SKIP = new Set(["amazon-bedrock", "google-vertex", "radius", "typesafe"]);
// Providers with a login of their own (pi_builtin_providers registers the flow under this name).
const OAUTH = { "github-copilot": "github-copilot", "openai-codex": "openai-codex" };
const KEY_ENV = /(_API_KEY|_TOKEN)$/;

const order = Object.keys(defaultModelPerProvider);
const rank = (id) => (order.includes(id) ? order.indexOf(id) : order.length);
const providers = [];
for (const provider of builtinProviders().sort((a, b) => rank(a.id) - rank(b.id))) {
  if (SKIP.has(provider.id)) continue;
  const env = [];
  const auth = provider.auth?.apiKey;
  if (auth?.resolve) {
    const ctx = { env: async (name) => { env.push(name); return undefined; }, fileExists: async () => false, readFile: async () => undefined };
    await auth.resolve({ ctx, credential: undefined, signal: new AbortController().signal });
  }
  const models = [];
  for (const m of provider.getModels()) {
    const remap = REMAP[`${provider.id}:${m.api}`] ?? (OURS.has(m.api) ? {} : null);
    if (!remap || (m.type && m.type !== "chat")) continue;
    const entry = { id: m.id, name: m.name, api: remap.api ?? m.api };
    const baseUrl = remap.baseUrl ?? m.baseUrl;
    if (baseUrl) entry.baseUrl = baseUrl;
    entry.reasoning = Boolean(m.reasoning);
    if (m.thinkingLevelMap) entry.thinkingLevelMap = m.thinkingLevelMap;
    entry.input = m.input;
    // Prices per million tokens; "tiers" hold the rates for requests above N input tokens.
    entry.cost = m.cost ?? {};
    entry.contextWindow = m.contextWindow;
    entry.maxTokens = m.maxTokens;
    if (m.headers && Object.keys(m.headers).length) entry.headers = m.headers;
    const compat = { ...(m.compat ?? {}), ...(remap.compat ?? {}) };
    delete compat.allowedFallbackModels;
    if (Object.keys(compat).length) entry.compat = compat;
    models.push(entry);
  }
  if (!models.length) continue;
  const apis = {};
  for (const m of models) apis[m.api] = (apis[m.api] ?? 0) + 1;
  const api = Object.entries(apis).sort((a, b) => b[1] - a[1])[0][0];
  const urls = {};
  for (const m of models) if (m.baseUrl) urls[m.baseUrl] = (urls[m.baseUrl] ?? 0) + 1;
  const common = Object.entries(urls).sort((a, b) => b[1] - a[1])[0]?.[0];
  const baseUrl = BASE_URLS[provider.id]?.baseUrl ?? common ?? provider.baseUrl ?? "";
  for (const m of models) {
    if (m.api === api) delete m.api;
    if (m.baseUrl === baseUrl) delete m.baseUrl;
  }
  const def = { id: provider.id, name: provider.name, api, baseUrl };
  if (OAUTH[provider.id]) def.oauth = OAUTH[provider.id];
  const { baseUrl: _, ...urlExtras } = BASE_URLS[provider.id] ?? {};
  Object.assign(def, urlExtras);
  def.env = provider.id === "anthropic" ? env.filter((n) => n === "ANTHROPIC_OAUTH_TOKEN" || n === "ANTHROPIC_API_KEY") : env.filter((n) => KEY_ENV.test(n));
  const wanted = defaultModelPerProvider[provider.id];
  if (wanted && models.some((m) => m.id === wanted)) def.defaultModel = wanted;
  def.models = models;
  providers.push(def);
}
// Local servers: no catalogue (the model is whatever the server has loaded: --model NAME), and a
// stand-in key, which servers without authentication ignore (models.json apiKey sets a real one).
const local = { supportsStore: false, supportsDeveloperRole: false };
for (const [id, name, baseUrl] of [
  ["ollama", "Ollama", "http://localhost:11434/v1"],
  ["lm-studio", "LM Studio", "http://localhost:1234/v1"],
  ["llama.cpp", "llama.cpp", "http://localhost:8080/v1"],
  ["vllm", "vLLM", "http://localhost:8000/v1"],
]) {
  providers.push({ id, name, api: "openai-completions", baseUrl, apiKey: id, local: true, compat: local, models: [] });
}
// One model per line: small to load, and a catalogue update reads as a diff of models.
const lines = [`{"source": ${JSON.stringify(`@earendil-works/pi-coding-agent ${version}`)}, "providers": [`];
providers.forEach((provider, i) => {
  const { models, ...head } = provider;
  const body = models.map((m, j) => `  ${JSON.stringify(m)}${j < models.length - 1 ? "," : ""}`);
  const open = `${JSON.stringify(head).slice(0, -1)}, "models": [`;
  lines.push(models.length ? [open, ...body, `]}${i < providers.length - 1 ? "," : ""}`].join("\n") : `${open}]}${i < providers.length - 1 ? "," : ""}`);
});
lines.push("]}");
console.log(lines.join("\n"));
