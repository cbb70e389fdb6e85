// GRAPHQL_PREPARED_LANE=shadow (the test suite's mode; docs/graphql-internals.md "Prepared lane"): every request the prepared
// lane answers is answered through yoga as well, and the two answers must agree in status, headers (the request id
// aside, which the door adds later) and body bytes. A difference is thrown, so the test that sent the request fails
// with it; the lane's answer is what the client gets. Yoga's answer is executed on the reference schema, where every
// field has its resolver (src/graphql/schema/plain-fields.ts): the lane's plain fields are checked against their resolvers.
import { Response } from '../core/fetch-api.js';

/** What a response is compared by: status, headers by lowercase name, and the body's text. */
async function snapshot(response: Response): Promise<{ status: number; headers: Map<string, string>; body: string }> {
  const headers = new Map<string, string>();
  for (const [name, value] of response.headers) headers.set(name.toLowerCase(), value);
  return { status: response.status, headers, body: await response.text() };
}

export class LaneMismatch extends Error {}

export async function compareWithYoga(lane: Response, yoga: () => Promise<Response>): Promise<Response> {
  const ours = await snapshot(lane);
  const theirs = await snapshot(await yoga());
  const problems: string[] = [];
  if (ours.status !== theirs.status) problems.push(`status ${ours.status} against yoga's ${theirs.status}`);
  for (const name of new Set([...ours.headers.keys(), ...theirs.headers.keys()])) {
    if (ours.headers.get(name) !== theirs.headers.get(name)) {
      problems.push(`header ${name}: ${ours.headers.get(name)} against yoga's ${theirs.headers.get(name)}`);
    }
  }
  if (ours.body !== theirs.body)
    problems.push(`body ${ours.body.slice(0, 500)} against yoga's ${theirs.body.slice(0, 500)}`);
  if (problems.length > 0) throw new LaneMismatch(`The prepared lane answered differently: ${problems.join('; ')}`);
  return new Response(ours.status === 304 ? null : ours.body, { status: ours.status, headers: [...ours.headers] });
}
