// The supported Node.js versions: 20 and newer start; older ones get one line saying what to install.
import { expect, it } from 'vitest';
import { nodeVersionProblem } from '../../src/node-version.js';

it('accepts Node 20 and newer, refuses older ones with a sentence naming both versions', () => {
  for (const version of ['v20.0.0', 'v20.20.2', 'v22.15.0', 'v24.1.0']) expect(nodeVersionProblem(version)).toBeNull();
  for (const version of ['v18.19.0', 'v16.0.0', 'garbage']) {
    expect(nodeVersionProblem(version)).toMatch(new RegExp(`^Node.js 20 or newer is needed; this is ${version}`));
  }
  expect(nodeVersionProblem(process.version)).toBeNull();
});
