// An integration as the add/get paths show it: every field of its kind (secrets masked), `status` and `updatedAt`.
// Derived from the kind's declaration, like its routes.
import { z } from 'zod';
import { calendar, type IntegrationKind } from '../../domain/integrations.schema.js';
import { dateTime, maskedSecret } from './common.js';
import { meetingResponse } from './meetings.js';

function fieldResponse(field: IntegrationKind['fields'][string]): z.ZodType<string | null> {
  const value = (field.secret ? maskedSecret : z.string()).describe(field.description);
  // An optional field without a default is stored as null when omitted.
  return field.optional && field.default === undefined ? value.nullable() : value;
}

function build(kind: IntegrationKind) {
  return z
    .object({
      ...Object.fromEntries(Object.entries(kind.fields).map(([name, field]) => [name, fieldResponse(field)])),
      status: z.literal('connected'),
      updatedAt: dateTime,
    })
    .meta({ id: `${kind.label}Integration` });
}

const built = new Map<IntegrationKind, ReturnType<typeof build>>();

/** One schema per kind (components/schemas/<Label>Integration), however many routes answer it. */
export function integrationResponse(kind: IntegrationKind) {
  let schema = built.get(kind);
  if (!schema) built.set(kind, (schema = build(kind)));
  return schema;
}

/** GET /get_calendar_info: the calendar integration and the upcoming meetings, in time order. */
export const calendarInfoResponse = integrationResponse(calendar)
  .extend({ meetings: z.array(meetingResponse) })
  .meta({ id: 'CalendarInfo' });
