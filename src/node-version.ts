// The Node.js versions the gateway supports (README "Quick start"): 22.22.2 or a later 22, 24.15 or a later 24, or 26
// and newer (CI runs the whole suite on the Node in .node-version). The runtime dependencies accept 22.15, but the
// development tools (StrykerJS's Babel, the MCP Inspector's prompts) ask for these patch releases, and `npm ci` refuses
// a Node they do not accept (.npmrc: engine-strict), so the project asks for them too: one range, package.json's
// `engines.node`, which scripts/check-node.mjs reads (a test checks that the two agree).
// Imported first by the entry points, so that an older Node stops with one line instead of an obscure error.
export const SUPPORTED_NODE = [
  { major: 22, minor: 22, patch: 2, laterMajors: false },
  { major: 24, minor: 15, patch: 0, laterMajors: false },
  { major: 26, minor: 0, patch: 0, laterMajors: true },
] as const;

type Line = (typeof SUPPORTED_NODE)[number];

const describe = (line: Line) =>
  `${line.major}.${line.minor}.${line.patch} or ${line.laterMajors ? 'newer' : `a later ${line.major}`}`;

/** The one step to a supported Node from a clone (scripts/pinned-node.sh; the same sentence as scripts/check-node.mjs). */
const SWITCH =
  "Run `source scripts/pinned-node.sh` in this shell (it brings the project's Node 24 from the npm registry), then the command again.";

/** Why this Node.js cannot run the gateway, or null when it can. */
export function nodeVersionProblem(version: string): string | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  const [major, minor, patch] = [Number(match?.[1]), Number(match?.[2]), Number(match?.[3])];
  const accepts = (line: Line) =>
    major === line.major
      ? minor > line.minor || (minor === line.minor && patch >= line.patch)
      : line.laterMajors && major > line.major;
  if (match && SUPPORTED_NODE.some(accepts)) return null;
  const lines = SUPPORTED_NODE.map(describe);
  return `Node.js ${lines.slice(0, -1).join(', ')}, or ${lines.at(-1)} is needed; this is ${version}. ${SWITCH}`;
}

const problem = nodeVersionProblem(process.version);
if (problem) {
  console.error(problem);
  process.exit(1);
}
