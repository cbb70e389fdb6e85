// The supported Node.js versions: 22.15 and newer start (22 and 24 LTS); older ones get one line saying what to install.
import { expect, it } from 'vitest';
import { nodeVersionProblem } from '../../src/node-version.js';

it('accepts Node 22.15 and newer, refuses older ones with a sentence naming both versions', () => {
  for (const version of ['v22.15.0', 'v22.23.3', 'v24.0.0', 'v24.21.0', 'v26.1.0']) {
    expect(nodeVersionProblem(version)).toBeNull();
  }
  for (const version of ['v22.14.0', 'v22.12.0', 'v20.20.2', 'v18.19.0', 'v16.0.0', 'garbage']) {
    expect(nodeVersionProblem(version)).toBe(
      `Node.js 22.15 or newer (22 or 24 LTS) is needed; this is ${version}. Install a supported version (see the README).`,
    );
  }
  expect(nodeVersionProblem(process.version)).toBeNull();
});
