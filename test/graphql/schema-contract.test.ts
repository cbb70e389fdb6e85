// The published contract (docs/graphql.md, "Changing the schema"): graphql-inspector compares the schema the code
// builds with schema/released.graphql, the last released one; every breaking change must be declared, with a reason,
// in schema/breaking-changes.json, and every declaration must still be a real breaking change.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import {
  type ASTVisitor,
  buildASTSchema,
  buildSchema,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  Kind,
  parse,
  visit,
} from 'graphql';
import { expect, it } from 'vitest';
import { printSortedSchema } from '../../src/graphql/schema/schema.js';

const SCHEMA_DIR = join(import.meta.dirname, '../../schema');
const released = buildSchema(readFileSync(join(SCHEMA_DIR, 'released.graphql'), 'utf8'));
const declared = JSON.parse(readFileSync(join(SCHEMA_DIR, 'breaking-changes.json'), 'utf8')) as {
  changes: Array<{ change: string; reason: string }>;
};

/** The breaking changes from `before` to `after` that `declared` lacks, and the declared ones that are not (stale). */
async function contractProblems(before: GraphQLSchema, after: GraphQLSchema, declaredChanges: string[]) {
  const changes = await diff(before, after);
  const breaking = changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking).map((c) => c.message);
  return {
    undeclared: breaking.filter((message) => !declaredChanges.includes(message)),
    stale: declaredChanges.filter((message) => !breaking.includes(message)),
  };
}

const declaredChanges = declared.changes.map((d) => d.change);

it('every breaking change since the last release is declared with a reason, and no declaration is stale', async () => {
  const { undeclared, stale } = await contractProblems(released, buildSchema(printSortedSchema()), declaredChanges);
  expect(
    undeclared,
    'undeclared breaking changes: add a field and deprecate the old one, or declare it in schema/breaking-changes.json',
  ).toEqual([]);
  expect(stale, 'declared changes that are no longer breaking changes: remove them').toEqual([]);
  for (const { reason } of declared.changes) expect(reason.length).toBeGreaterThan(20);
});

/** The real schema, changed by `edit` (a graphql-js AST visitor). */
function editedSchema(edit: ASTVisitor): GraphQLSchema {
  return buildASTSchema(visit(parse(printSortedSchema()), edit) as DocumentNode);
}

it('the same check fails on the real schema with a field removed or an argument made required (so it can fail)', async () => {
  const withoutViewer = editedSchema({
    FieldDefinition: (node: FieldDefinitionNode) => (node.name.value === 'viewer' ? null : undefined),
  });
  expect((await contractProblems(released, withoutViewer, declaredChanges)).undeclared).toEqual([
    "Field 'viewer' was removed from object type 'Query'",
  ]);
  const requiredLanguage = editedSchema({
    FieldDefinition: (node: FieldDefinitionNode) =>
      node.name.value !== 'voices'
        ? undefined
        : {
            ...node,
            arguments: node.arguments?.map((arg) =>
              arg.type.kind === Kind.NON_NULL_TYPE
                ? arg
                : { ...arg, type: { kind: Kind.NON_NULL_TYPE, type: arg.type } },
            ),
          },
  });
  const { undeclared } = await contractProblems(released, requiredLanguage, declaredChanges);
  expect(undeclared).toHaveLength(1);
  expect(undeclared[0]).toMatch(/'language'.*'Query.voices'|Query.voices.*language/);
});

/**
 * Everything of `schema` a client can see without a description: types, fields (root fields included), arguments,
 * input fields and enum values, named `Type`, `Type.field`, `Type.field(arg)`, `Input.field` and `Enum.VALUE`.
 */
function undescribed(schema: GraphQLSchema): string[] {
  const BUILT_IN = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);
  const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__') && !BUILT_IN.has(t.name));
  const items = types.flatMap((type): Array<{ name: string; description?: string | null | undefined }> => [
    { name: type.name, description: type.description },
    ...(isObjectType(type) || isInterfaceType(type)
      ? Object.values(type.getFields()).flatMap((field) => [
          { name: `${type.name}.${field.name}`, description: field.description },
          ...field.args.map((arg) => ({
            name: `${type.name}.${field.name}(${arg.name})`,
            description: arg.description,
          })),
        ])
      : []),
    ...(isInputObjectType(type)
      ? Object.values(type.getFields()).map((field) => ({
          name: `${type.name}.${field.name}`,
          description: field.description,
        }))
      : []),
    ...(isEnumType(type)
      ? type.getValues().map((value) => ({ name: `${type.name}.${value.name}`, description: value.description }))
      : []),
  ]);
  return items.filter((item) => !item.description?.trim()).map((item) => item.name);
}

it('every type, field, argument, input field and enum value of the public schema has a description', () => {
  expect(undescribed(buildSchema(printSortedSchema()))).toEqual([]);
});

it('the description check sees every kind of undescribed item (so the test above can fail)', () => {
  const schema = buildSchema(`
    """Described.""" type Query { """Described.""" a(x: Int): Kind b: String }
    """Described.""" enum Kind { """Described.""" ONE TWO }
    input Filter { """Described.""" c: Int d: Int }
    """Described.""" type Mutation { """Described.""" e("""Described.""" f: Filter): Int }
  `);
  expect(undescribed(schema).sort()).toEqual(['Filter', 'Filter.d', 'Kind.TWO', 'Query.a(x)', 'Query.b'].sort());
});
