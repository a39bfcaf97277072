// Runs the TypeScript pi's prepareCompaction (+ serialization) on a session file and prints JSON.
// Usage: node prepare_compaction.mjs <pi-coding-agent dir> <session.jsonl> '[[keepRecentTokens, leafId], ...]'
// A query ["context", leafId] prints the context instead of a preparation;
// ["branch", [oldLeafId, targetId, tokenBudget]] the branch-summary selection.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [pkg, sessionFile, queries] = process.argv.slice(2);
const load = (rel) => import(pathToFileURL(join(pkg, "dist", rel)).href);
const { SessionManager } = await load("core/session-manager.js");
const { prepareCompaction, serializeConversation, collectEntriesForBranchSummary, prepareBranchEntries } =
  await load("core/compaction/index.js");
const { convertToLlm } = await load("core/messages.js");

const session = SessionManager.open(sessionFile, join(sessionFile, ".."));
function prepare(keep, leafId) {
  const branch = session.getBranch(leafId || undefined);
  const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: Number(keep) };
  const prep = prepareCompaction(branch, settings);
  if (!prep) return null;
  return {
    firstKeptEntryId: prep.firstKeptEntryId,
    isSplitTurn: prep.isSplitTurn,
    tokensBefore: prep.tokensBefore,
    previousSummary: prep.previousSummary ?? null,
    messagesToSummarize: serializeConversation(convertToLlm(prep.messagesToSummarize)),
    turnPrefixMessages: serializeConversation(convertToLlm(prep.turnPrefixMessages)),
    counts: [prep.messagesToSummarize.length, prep.turnPrefixMessages.length],
    read: [...prep.fileOps.read].sort(),
    written: [...prep.fileOps.written].sort(),
    edited: [...prep.fileOps.edited].sort(),
  };
}

// ["context", leafId]: the LLM messages of that leaf's context (roles + serialized text).
function context(leafId) {
  if (leafId) session.branch(leafId);
  const messages = convertToLlm(session.buildSessionContext().messages);
  return { roles: messages.map((m) => m.role), text: serializeConversation(messages) };
}

function branch([oldLeafId, targetId, budget]) {
  const { entries, commonAncestorId } = collectEntriesForBranchSummary(session, oldLeafId, targetId);
  const { messages, fileOps, totalTokens } = prepareBranchEntries(entries, budget);
  return {
    collected: entries.map((e) => e.id),
    commonAncestorId,
    text: serializeConversation(convertToLlm(messages)),
    count: messages.length,
    totalTokens,
    read: [...fileOps.read].sort(),
    written: [...fileOps.written].sort(),
    edited: [...fileOps.edited].sort(),
  };
}

const run = ([kind, arg]) => (kind === "context" ? context(arg) : kind === "branch" ? branch(arg) : prepare(kind, arg));
console.log(JSON.stringify(JSON.parse(queries).map(run)));
