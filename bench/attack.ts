// What every attack of `npm run bench:isolation` is made of (bench/isolation.ts, bench/hostile-catalogue.ts): an
// attack phase, its outcome, a tally of answers, and loops that send requests back to back until a deadline.

/** The telephony auth token every bench account with telephony connected has (callbacks are signed with it). */
export const AUTH_TOKEN = 'bench-telephony-auth-token-0123456789';

/** What an attack phase tells: its own lines of the report, its 5xx answers, and what made it less than it claims. */
export interface AttackOutcome {
  report: string[];
  serverErrors: number;
  /** Why the attack was not the one it claims to be (streams not opened, nothing re-run): a strict run fails on any. */
  problems: string[];
  /**
   * The case's own judgements beyond the victim's p99, each failed one said in a line: another tenant's signed
   * callbacks refused with 429, the victim's login refused during a lockout attack, a registration from another address
   * refused. Judged like the ratio (a case listed in NOT_YET_JUDGED only shows them in a short run).
   */
  failures?: string[];
}

export interface Attack {
  /** Before the attack phase (not part of it): the @live case opens its streams here. */
  open(): Promise<void>;
  /** Attacks until `until` (ms since the epoch). */
  run(until: number): Promise<AttackOutcome>;
  /** After the phase: the @live case closes its streams. */
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A count per outcome, shown as `3× 200, 1× 429`. */
export class Tally extends Map<string, number> {
  note(outcome: string): void {
    this.set(outcome, (this.get(outcome) ?? 0) + 1);
  }
  override toString(): string {
    return [...this].map(([outcome, n]) => `${n}× ${outcome}`).join(', ');
  }
}

/** Answers by kind of request, and the report's table of them. */
export class Answers extends Map<string, Tally> {
  /** The start of the first answer of each kind and status that was not a 2xx (what the refusal said). */
  readonly samples = new Map<string, string>();
  /** Reads the answer to its end, noting its status (and the first of each refusal's text). */
  async read(kind: string, response: Response): Promise<void> {
    const key = `${kind}: ${response.status}`;
    if (response.status >= 300 && !this.samples.has(key)) {
      this.samples.set(key, (await response.text()).slice(0, 160).replace(/\s+/g, ' '));
    } else {
      await response.arrayBuffer();
    }
    this.note(kind, String(response.status));
  }
  note(kind: string, outcome: string): void {
    const tally = this.get(kind) ?? new Tally();
    tally.note(outcome);
    this.set(kind, tally);
  }
  /** 5xx answers over all kinds. */
  get serverErrors(): number {
    let n = 0;
    for (const tally of this.values()) for (const [outcome, count] of tally) if (outcome.startsWith('5')) n += count;
    return n;
  }
  /** Answers of these statuses over all kinds. */
  count(...statuses: string[]): number {
    let n = 0;
    for (const tally of this.values()) for (const status of statuses) n += tally.get(status) ?? 0;
    return n;
  }
  table(heading: string): string[] {
    return [
      `| ${heading} | answers |`,
      '|---|---|',
      ...[...this].map(([kind, tally]) => `| ${kind} | ${tally} |`),
      ...(this.samples.size ? ['', ...[...this.samples].map(([key, text]) => `- ${key} \`${text}\``)] : []),
    ];
  }
}

/** One request of an attack: its kind (the report's row), its path under the server's base URL and its fetch init. */
export type HostileRequest = [kind: string, path: string, init: RequestInit];

/**
 * `loops` loops, each sending the request `pick(i)` gives back to back until `until`, every answer read to its end and
 * noted by kind. With `waitOn429`, a loop refused for its rate waits a quarter of the Retry-After it was given (a
 * client at its full allowed rate); without, it goes on at once (a client that ignores it).
 */
export async function hammer(
  base: string,
  until: number,
  loops: number,
  pick: (i: number) => HostileRequest,
  answers: Answers,
  options: { waitOn429?: boolean } = {},
): Promise<void> {
  const loop = async (offset: number) => {
    for (let i = offset; Date.now() < until; i += loops) {
      const [kind, path, init] = pick(i);
      try {
        const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
        await answers.read(kind, response);
        if (response.status === 429 && options.waitOn429) {
          await sleep(Number(response.headers.get('retry-after') ?? 1) * 250);
        }
      } catch (error) {
        answers.note(kind, error instanceof Error ? error.name : 'error');
      }
    }
  };
  await Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
}

/** Calls `send(i)` every `intervalMs` until `until`, without waiting for one answer before the next; then for all. */
export async function paced(until: number, intervalMs: number, send: (i: number) => Promise<void>): Promise<void> {
  const inflight = new Set<Promise<void>>();
  const start = Date.now();
  for (let i = 0; start + i * intervalMs < until; i++) {
    await sleep(start + i * intervalMs - Date.now());
    const sent: Promise<void> = send(i).finally(() => inflight.delete(sent));
    inflight.add(sent);
  }
  await Promise.all(inflight);
}
