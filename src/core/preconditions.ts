// Refusals whose cause another operation fixes, worded once: the domain raises them, and a door may name what fixes
// them in its own vocabulary (the MCP door names its tool: src/mcp/tool-results.ts).

/** Booking a meeting needs the calendar integration. */
export const CALENDAR_NOT_CONNECTED = 'Connect the calendar integration before booking meetings';
