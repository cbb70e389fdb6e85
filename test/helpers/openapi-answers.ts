// Every answer of the REST door that the test suite receives is checked against the OpenAPI description the server
// serves (test/helpers/app.ts checks every /api/v3 answer of its apps' fetch, and the test fails when one does not
// pass): its status must be documented for the operation called
// (or, for a path not described, be one the door gives any path), its body must match that status's schema, its
// Content-Type the documented media type, and the headers the description requires must be there, valid.
// OpenAPI 3.1 schemas are JSON Schema 2020-12, so Ajv's 2020 build validates them as they are.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { createDocs } from '../../src/rest/docs.js';
import { routes } from '../../src/rest/routes.js';

type Json = Record<string, any>;

export interface RestAnswer {
  method: string;
  /** Path and query string, as requested. */
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

const REST_PREFIX = '/api/v3';

/** Whether the REST door (or its docs) answers `pathname` (src/http/doors.ts). */
export const isRestPath = (pathname: string) => pathname === REST_PREFIX || pathname.startsWith(`${REST_PREFIX}/`);
/** What any path may get from the HTTP layer (src/http/doors.ts): limits, a database outage, the unexpected. */
const ANY_PATH = {
  413: 'PayloadTooLarge',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

const isDocsPage = (method: string, pathname: string, status: number) =>
  method === 'GET' &&
  status === 200 &&
  (pathname === `${REST_PREFIX}/openapi.json` ||
    pathname === `${REST_PREFIX}/docs` ||
    pathname.startsWith(`${REST_PREFIX}/docs/`));

/** The described paths `pathname` matches, as the router matches them (src/rest/router.ts). */
function matchingPaths(doc: Json, pathname: string): string[] {
  const segments = pathname.slice(REST_PREFIX.length).split('/').filter(Boolean);
  return Object.keys(doc.paths).filter((template) => {
    const pattern = template.split('/').filter(Boolean);
    return (
      pattern.length === segments.length &&
      pattern.every((part, index) => (part.startsWith('{') && part.endsWith('}')) || part === segments[index])
    );
  });
}

function resolve(doc: Json, node: Json): Json {
  const ref: unknown = node.$ref;
  if (typeof ref !== 'string') return node;
  const target = ref
    .slice(2)
    .split('/')
    .reduce<Json | undefined>((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  if (!target) throw new Error(`unresolvable $ref ${ref}`);
  return resolve(doc, target);
}

/** A validator per schema, compiled against the description's named schemas. */
class SchemaCheck {
  private readonly ajv = new Ajv2020({
    allErrors: true,
    strictTypes: false,
    strictRequired: false,
    formats: { 'date-time': (value: string) => !Number.isNaN(Date.parse(value)) },
  });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly defs: string;

  constructor(doc: Json) {
    this.defs = JSON.stringify(doc.components?.schemas ?? {});
  }

  problems(schema: Json, value: unknown): string[] {
    const text = JSON.stringify(schema);
    let validate = this.compiled.get(text);
    if (!validate) {
      // components/schemas become $defs of each compiled schema, so that their $refs resolve.
      const relinked = (json: string) => JSON.parse(json.replaceAll('"#/components/schemas/', '"#/$defs/')) as Json;
      validate = this.ajv.compile({ ...relinked(text), $defs: relinked(this.defs) });
      this.compiled.set(text, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }
}

export interface AnswerChecker {
  (answer: RestAnswer): string[];
  readonly doc: Json;
}

/** A checker for one description: the problems of an answer, none when the description allows it. */
export function answerChecker(doc: Json): AnswerChecker {
  const schemas = new SchemaCheck(doc);

  const checkHeaders = (response: Json, answer: RestAnswer): string[] =>
    Object.entries<Json>(response.headers ?? {}).flatMap(([name, node]) => {
      const header = resolve(doc, node);
      const value = answer.headers.get(name);
      if (value === null) return header.required ? [`header ${name} is missing`] : [];
      const parsed = header.schema?.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      return schemas.problems(header.schema ?? {}, parsed).map((problem) => `header ${name}: ${problem}`);
    });

  const checkBody = (response: Json, answer: RestAnswer): string[] => {
    const content = (response.content ?? {}) as Record<string, Json>;
    const type = answer.headers.get('content-type') ?? '';
    const media = Object.keys(content).find((documented) => type.split(';')[0]?.trim() === documented);
    if (Object.keys(content).length === 0) return answer.text === '' ? [] : ['a body where none is documented'];
    if (!media) return [`Content-Type ${type || '(none)'} is not one of ${Object.keys(content).join(', ')}`];
    let body: unknown = answer.text;
    if (media === 'application/json') {
      try {
        body = JSON.parse(answer.text);
      } catch {
        return ['the body is not JSON'];
      }
    }
    return schemas.problems(content[media]?.schema ?? {}, body);
  };

  const check = (answer: RestAnswer): string[] => {
    const { pathname } = new URL(answer.url, 'http://test');
    // As the router sees it: fetch upper-cases the standard method names (get → GET), not the others.
    const method = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'].includes(answer.method.toUpperCase())
      ? answer.method.toUpperCase()
      : answer.method;
    if (!isRestPath(pathname)) return [];
    if (isDocsPage(method, pathname, answer.status)) return [];
    // Nobody receives the answer to a request whose client went away (the access line says 499).
    if (answer.status === 499) return [];
    // A trailing slash is redirected to the path without it, as the legacy service did (docs/rest-api.md).
    if (answer.status === 307 && pathname.length > REST_PREFIX.length + 1 && pathname.endsWith('/')) {
      const location = answer.headers.get('location') ?? '';
      return location.split('?')[0] === pathname.replace(/\/+$/, '') ? [] : [`307 to ${location}`];
    }

    const paths = matchingPaths(doc, pathname);
    const methods = [...new Set(paths.flatMap((path) => Object.keys(doc.paths[path]).map((m) => m.toUpperCase())))];
    const operation = paths.map((path) => doc.paths[path][method.toLowerCase()]).find(Boolean) as Json | undefined;
    let response: Json | undefined;
    let where: string;
    if (operation) {
      where = `${method} ${paths.find((path) => doc.paths[path][method.toLowerCase()])}`;
      response = operation.responses[String(answer.status)];
    } else {
      // Not an operation: the router's 404 (no such path), the HTTP layer's answers, or the path's 405 (another
      // method), which each operation of the path must list.
      where = paths.length === 0 ? 'a path not described' : `${method} on a path answering ${methods.join(', ')}`;
      const shared: Record<number, string> = paths.length === 0 ? { ...ANY_PATH, 404: 'NotFound' } : { ...ANY_PATH };
      const name = shared[answer.status];
      if (name) response = doc.components.responses[name];
      else if (answer.status === 405 && paths.length > 0) {
        const listed = paths.flatMap((path) => Object.values<Json>(doc.paths[path]).map((op) => op.responses['405']));
        response = listed.every(Boolean) ? listed[0] : undefined;
      }
    }
    if (!response) return [`status ${answer.status} is not documented for ${where}`];
    response = resolve(doc, response);
    const problems = [...checkHeaders(response, answer), ...checkBody(response, answer)];
    if (answer.status === 405) {
      const allow = (answer.headers.get('allow') ?? '').split(', ').sort();
      if (allow.join() !== [...methods].sort().join())
        problems.push(`Allow is ${allow.join(', ')}, not ${methods.join(', ')}`);
    }
    return problems.map((problem) => `${where} ${answer.status}: ${problem}`);
  };
  return Object.assign(check, { doc });
}

let served: Promise<AnswerChecker> | undefined;

/** The checker for the description the server serves at /api/v3/openapi.json (the docs handler's own bytes). */
export function servedAnswerChecker(): Promise<AnswerChecker> {
  served ??= (async () => {
    const page = await createDocs(routes)(`${REST_PREFIX}/openapi.json`);
    if (!page) throw new Error('the docs handler serves no openapi.json');
    return answerChecker((await page.json()) as Json);
  })();
  return served;
}

/** Throws, naming every problem, when the answer is not what the description allows. */
export async function assertDocumentedAnswer(answer: RestAnswer): Promise<void> {
  const problems = (await servedAnswerChecker())(answer);
  if (problems.length === 0) return;
  throw new Error(
    `${answer.method} ${answer.url} answered ${answer.status} ${answer.text.slice(0, 300)}\n` +
      `which the OpenAPI description does not allow:\n- ${problems.join('\n- ')}`,
  );
}
