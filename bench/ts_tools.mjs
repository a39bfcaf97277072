// Drive the TypeScript pi's built-in tool factories (npm @mariozechner/pi-coding-agent) from the
// command line, for side-by-side checks and benchmarks.
//   node bench/ts_tools.mjs schema                      -> JSON {name: parameters schema}
//   node bench/ts_tools.mjs run CWD TOOL 'ARGS' [REPEAT] -> JSON {result|error, ms: [per-run ms]}
//   node bench/ts_tools.mjs batch < [{cwd, tool, args}, ...] -> JSON [{result|error, ms}, ...]
// The package is PI_TS_PACKAGE (its dist/index.js), else the one in $PI073_DIR/node_modules.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pkg =
  process.env.PI_TS_PACKAGE ??
  (process.env.PI073_DIR
    ? join(process.env.PI073_DIR, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "index.js")
    : undefined);
if (!pkg || !existsSync(pkg)) {
  console.error(
    `ts_tools: pi 0.73.1 not found${pkg ? ` at ${pkg}` : ""}: set PI073_DIR to a folder where ` +
      "`npm install @mariozechner/pi-coding-agent@0.73.1` ran (or PI_TS_PACKAGE to its dist/index.js)",
  );
  process.exit(2);
}
const pi = await import(pathToFileURL(pkg).href);

const factories = {
  read: pi.createReadTool,
  bash: pi.createBashTool,
  edit: pi.createEditTool,
  write: pi.createWriteTool,
  grep: pi.createGrepTool,
  find: pi.createFindTool,
  ls: pi.createLsTool,
};

async function runOnce(cwd, name, rawArgs, repeat = 1) {
  const tool = factories[name](cwd);
  let args = rawArgs;
  if (tool.prepareArguments) args = tool.prepareArguments(args);
  const ms = [];
  let result;
  let error;
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    try {
      result = await tool.execute("call", structuredClone(args), undefined, undefined, undefined);
      error = undefined;
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
      result = undefined;
    }
    ms.push(performance.now() - started);
  }
  return { result, error, ms };
}

const [command, ...rest] = process.argv.slice(2);
if (command === "schema") {
  const out = {};
  for (const [name, make] of Object.entries(factories)) out[name] = make(process.cwd()).parameters;
  process.stdout.write(JSON.stringify(out));
} else if (command === "run") {
  const [cwd, name, argsJson, repeatText] = rest;
  process.stdout.write(JSON.stringify(await runOnce(cwd, name, JSON.parse(argsJson), Number(repeatText ?? "1"))));
} else if (command === "batch") {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const out = [];
  for (const call of JSON.parse(Buffer.concat(chunks).toString("utf8"))) {
    out.push(await runOnce(call.cwd, call.tool, call.args, call.repeat ?? 1));
  }
  process.stdout.write(JSON.stringify(out));
} else {
  process.stderr.write("usage: ts_tools.mjs schema | run CWD TOOL ARGS_JSON [REPEAT] | batch < CALLS_JSON\n");
  process.exit(2);
}
