// The Node.js versions the gateway supports (README "Quick start"): 20 and newer; CI runs the whole suite on 20.
// Imported first by the entry points, so that an older Node stops with one line instead of an obscure error.
export const MINIMUM_NODE_MAJOR = 20;

/** Why this Node.js cannot run the gateway, or null when it can. */
export function nodeVersionProblem(version: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= MINIMUM_NODE_MAJOR) return null;
  return `Node.js ${MINIMUM_NODE_MAJOR} or newer is needed; this is ${version}. Install a supported version (see the README).`;
}

const problem = nodeVersionProblem(process.version);
if (problem) {
  console.error(problem);
  process.exit(1);
}
