// The Node.js versions the gateway supports (README "Quick start"): 22.15 or newer, and 24 (CI runs the whole suite on
// the Node in .node-version). 22.15 is the oldest Node that every dependency accepts (graphql-yoga's @whatwg-node
// packages declare it), and the embedded database (better-sqlite3 13, Node-API) needs 22 or newer.
// Imported first by the entry points, so that an older Node stops with one line instead of an obscure error.
export const MINIMUM_NODE = { major: 22, minor: 15 } as const;

const SUPPORTED = `Node.js ${MINIMUM_NODE.major}.${MINIMUM_NODE.minor} or newer (22 or 24 LTS)`;

/** The one step to a supported Node from a clone (scripts/pinned-node.sh; the same sentence as scripts/check-node.mjs). */
const SWITCH =
  "Run `source scripts/pinned-node.sh` in this shell (it brings the project's Node 24 from the npm registry), then the command again.";

/** Why this Node.js cannot run the gateway, or null when it can. */
export function nodeVersionProblem(version: string): string | null {
  const match = /^v?(\d+)\.(\d+)\./.exec(version);
  const major = Number(match?.[1]);
  const minor = Number(match?.[2]);
  if (match && (major > MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor >= MINIMUM_NODE.minor))) {
    return null;
  }
  return `${SUPPORTED} is needed; this is ${version}. ${SWITCH}`;
}

const problem = nodeVersionProblem(process.version);
if (problem) {
  console.error(problem);
  process.exit(1);
}
