// Legacy integration paths, derived from each kind's declaration (src/domain/integrations.schema.ts): their documents
// are built from the declared fields, so their results are typed from the declarations too (defineDeclaredRoute).
import {
  displayName,
  INTEGRATION_KINDS,
  type IntegrationKind,
  integrationInputSchema,
} from '../../domain/integrations.schema.js';
import { typeStem } from '../../graphql/schema/payloads.js';
import { connectMutationOf, disconnectMutationOf } from '../../graphql/schema/types/integrations.js';
import { doneBody } from '../responses/common.js';
import { integrationResponse } from '../responses/integrations.js';
import { defineDeclaredRoute, type RestRoute } from '../route.js';

/** A kind's GraphQL fields: a connected integration has been stored, so it has an `updatedAt`. */
export type IntegrationData = { [field: string]: unknown } & (
  { connected: true; updatedAt: string } | { connected: false; updatedAt: null }
);

type ViewerIntegrations = { viewer: { integrations: Record<string, IntegrationData> } };

/** The legacy body: every field (secrets masked), `status: "connected"` and `updatedAt`. */
export function legacyIntegration({ connected, updatedAt, ...fields }: IntegrationData) {
  return connected ? { ...fields, status: 'connected' as const, updatedAt } : null;
}

function routesOf(kind: IntegrationKind): RestRoute[] {
  const selection = `connected updatedAt ${Object.keys(kind.fields).join(' ')}`;
  // The kind's mutations and input, as the GraphQL layer names them (docs/graphql.md#mutations).
  const connect = connectMutationOf(kind);
  const disconnect = disconnectMutationOf(kind);
  const connectInput = `${typeStem(connect)}Input`;
  const routes: RestRoute[] = [];
  const inputSchema = integrationInputSchema(kind);
  const response = integrationResponse(kind);
  const removed = `${kind.displayName ?? kind.label} integration removed`;
  if (kind.rest.add) {
    routes.push(
      defineDeclaredRoute<
        Record<string, unknown>,
        undefined,
        Record<string, { integration: IntegrationData }>,
        typeof response
      >({
        method: 'POST',
        path: kind.rest.add,
        summary: `Connect (or replace) the ${displayName(kind)} integration`,
        tag: 'integrations',
        auth: true,
        document: `mutation LegacyConnect${kind.label}($input: ${connectInput}!) {
          ${connect}(input: $input) { integration { ${selection} } }
        }`,
        body: inputSchema,
        response,
        variables: ({ body }) => ({ input: body }),
        argLocs: { input: ['body'] },
        respond: (data) => legacyIntegration(data[connect]?.integration as IntegrationData),
      }),
    );
  }
  if (kind.rest.get) {
    routes.push(
      defineDeclaredRoute<undefined, undefined, ViewerIntegrations, typeof response>({
        method: 'GET',
        path: kind.rest.get,
        summary: `The ${displayName(kind)} integration, secrets masked`,
        tag: 'integrations',
        auth: true,
        document: `query LegacyGet${kind.label} { viewer { integrations { ${kind.kind} { ${selection} } } } }`,
        response,
        variables: () => ({}),
        respond: (data) => legacyIntegration(data.viewer.integrations[kind.kind] as IntegrationData),
        missing: kind.notConnected,
      }),
    );
  }
  if (kind.rest.remove) {
    routes.push(
      defineDeclaredRoute<
        undefined,
        undefined,
        Record<string, { integration: { connected: false } }>,
        ReturnType<typeof doneBody>
      >({
        method: 'DELETE',
        path: kind.rest.remove,
        summary: `Disconnect the ${displayName(kind)} integration and delete its stored credentials`,
        tag: 'integrations',
        auth: true,
        document: `mutation LegacyRemove${kind.label} { ${disconnect} { integration { connected } } }`,
        response: doneBody(removed),
        variables: () => ({}),
        respond: () => ({ detail: removed }),
      }),
    );
  }
  return routes;
}

export const integrationRoutes = INTEGRATION_KINDS.flatMap(routesOf);
