// The MCP door's tool definitions as clients see them, printed to schema/mcp-tools.json by `npm run schema`: a change
// to a tool shows in review beside the change of its operation or of the schema that caused it, and a test fails when
// the file and the code disagree (test/mcp/tool-definitions.test.ts).
import { schema } from '../graphql/schema/schema.js';
import { MCP_OPERATIONS } from './operations.js';
import { ACCOUNT_GET_TOOL } from './identity-tool.js';
import { TEXT_READ_TOOL } from './text-tool.js';
import { buildTools } from './tools.js';

export const MCP_TOOLS_FILE = 'schema/mcp-tools.json';

/** What tools/list answers (without the optional graphql tool), sorted by name: the operations' tools, text_read and account_get. */
export function mcpToolDefinitions() {
  return [
    ...[...buildTools(schema, MCP_OPERATIONS).values()].map(
      ({ name, title, description, inputSchema, outputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema,
        outputSchema,
        annotations,
      }),
    ),
    TEXT_READ_TOOL,
    ACCOUNT_GET_TOOL,
  ].sort((a, b) => a.name.localeCompare(b.name));
}

export function printMcpTools(): string {
  return `${JSON.stringify(mcpToolDefinitions(), null, 2)}\n`;
}
