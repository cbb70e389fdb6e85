// The REST door is a table of prepared GraphQL operations: no SQL, no business rules of its own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type DocumentNode,
  getNamedType,
  type GraphQLNamedType,
  isEnumType,
  isInputObjectType,
  Kind,
  parse,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterEach, describe, expect, test } from 'vitest';
import { internalSchema } from '../../src/graphql/schema/schema.js';
import { routes } from '../../src/rest/routes.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

const REST_DIR = join(import.meta.dirname, '../../src/rest');

function restSourceFiles(dir = REST_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? restSourceFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('the route table', () => {
  test('every route is one named GraphQL operation', () => {
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const operations = parse(route.document).definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
      expect(operations, `${route.method} ${route.path}`).toHaveLength(1);
      expect(operations[0]?.name?.value, `${route.method} ${route.path}`).toMatch(/^Legacy/);
    }
  });

  test('every document runs the current schema: no deprecated mutation, field, argument or input field', () => {
    const deprecated: string[] = [];
    for (const route of routes) {
      const typeInfo = new TypeInfo(internalSchema);
      const note = (what: string) => deprecated.push(`${route.method} ${route.path}: ${what}`);
      visit(
        parse(route.document),
        visitWithTypeInfo(typeInfo, {
          Field: () => {
            const field = typeInfo.getFieldDef();
            if (field?.deprecationReason) note(`${typeInfo.getParentType()}.${field.name}`);
          },
          Argument: () => {
            const argument = typeInfo.getArgument();
            if (argument?.deprecationReason) note(`argument ${argument.name}`);
          },
          VariableDefinition: (node) => {
            // The variable's input type, and every input and enum type below it.
            const seen = new Set<string>();
            const walk = (type: GraphQLNamedType) => {
              if (seen.has(type.name)) return;
              seen.add(type.name);
              if (isEnumType(type)) {
                for (const value of type.getValues()) if (value.deprecationReason) note(`${type.name}.${value.name}`);
              }
              if (!isInputObjectType(type)) return;
              for (const field of Object.values(type.getFields())) {
                if (field.deprecationReason) note(`${type.name}.${field.name}`);
                walk(getNamedType(field.type));
              }
            };
            const type = typeFromAST(internalSchema, node.type);
            if (type) walk(getNamedType(type));
          },
        }),
      );
    }
    expect(deprecated).toEqual([]);
  });

  test('no REST module reaches the database or the domain services', () => {
    for (const file of restSourceFiles()) {
      const source = readFileSync(file, 'utf8');
      // Type-only imports carry no code; every other import is checked.
      const imports = [...source.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gms)].map((m) => m[1] ?? '');
      for (const path of imports) {
        expect(path, `${file} imports ${path}`).not.toMatch(/\/db\/|kysely|better-sqlite3|^pg$/);
        // Only the shared validation schemas may come from the domain.
        if (path.includes('/domain/')) expect(path, `${file} imports ${path}`).toMatch(/\.schema\.js$/);
      }
    }
  });
});

describe('each REST call runs its GraphQL operation', () => {
  let t: TestApp;
  afterEach(() => t.close());

  test('through the same enveloped pipeline as /graphql', async () => {
    const executed: string[] = [];
    const recorder: Plugin = {
      onExecute({ args }) {
        const operation = (args.document as DocumentNode).definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
        executed.push(operation && 'name' in operation ? (operation.name?.value ?? '') : '');
      },
    };
    t = await startApp({}, [recorder]);
    const { token } = await t.account();
    expect(executed).toEqual(['LegacySignUp', 'LegacyLogin']);

    executed.length = 0;
    await t.rest('POST', '/update_campaign', { token, body: { campId: 'c1', campaignModelData: campaignModelData() } });
    await t.rest('GET', '/get_campaigns', { token });
    await t.rest('GET', '/get_campaign?campId=c1', { token });
    await t.rest('GET', '/get_supported_voices', { token });
    expect(executed).toEqual(['LegacyUpdateCampaign', 'LegacyCampaigns', 'LegacyCampaign', 'LegacySupportedVoices']);
  });
});
