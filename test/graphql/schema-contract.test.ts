// The published contract (docs/graphql.md, "Changing the schema"): graphql-inspector compares the schema the code
// builds with schema/released.graphql, the last released one; every breaking change must be declared, with a reason,
// in schema/breaking-changes.json, and every declaration must still be a real breaking change.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import { expect, it } from 'vitest';
import { printSortedSchema } from '../../src/graphql/schema.js';

const SCHEMA_DIR = join(import.meta.dirname, '../../schema');
const released = buildSchema(readFileSync(join(SCHEMA_DIR, 'released.graphql'), 'utf8'));
const declared = JSON.parse(readFileSync(join(SCHEMA_DIR, 'breaking-changes.json'), 'utf8')) as {
  changes: Array<{ change: string; reason: string }>;
};

it('every breaking change since the last release is declared with a reason, and no declaration is stale', async () => {
  const changes = await diff(released, buildSchema(printSortedSchema()));
  const breaking = changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking).map((c) => c.message);
  const declaredChanges = declared.changes.map((d) => d.change);
  expect(
    breaking.filter((message) => !declaredChanges.includes(message)),
    'undeclared breaking changes: add a field and deprecate the old one, or declare it in schema/breaking-changes.json',
  ).toEqual([]);
  expect(
    declaredChanges.filter((message) => !breaking.includes(message)),
    'declared changes that are no longer breaking changes: remove them',
  ).toEqual([]);
  for (const { reason } of declared.changes) expect(reason.length).toBeGreaterThan(20);
});

it('the checker sees a removed field as breaking (so the test above can fail)', async () => {
  const before = buildSchema('type Query { a: String b: String }');
  const after = buildSchema('type Query { a: String }');
  const changes = await diff(before, after);
  expect(changes.map((c) => [c.criticality.level, c.message])).toEqual([
    [CriticalityLevel.Breaking, "Field 'b' was removed from object type 'Query'"],
  ]);
});

it('every type and every root field of the public schema has a description', () => {
  const built = buildSchema(printSortedSchema());
  const BUILT_IN = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);
  const types = Object.values(built.getTypeMap()).filter((t) => !t.name.startsWith('__') && !BUILT_IN.has(t.name));
  const roots = [built.getQueryType(), built.getMutationType(), built.getSubscriptionType()].flatMap((root) =>
    Object.values(root?.getFields() ?? {}).map((field) => ({
      name: `${root?.name}.${field.name}`,
      description: field.description,
    })),
  );
  const missing = [...types.map((t) => ({ name: t.name, description: t.description })), ...roots]
    .filter((item) => !item.description)
    .map((item) => item.name);
  expect(missing).toEqual([]);
});
