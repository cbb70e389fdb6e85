// The page: a login form, then one @live query of the account's campaigns (sorted and filtered by the page's controls)
// and its calls per day by outcome, rendered as a table and a chart that follow every change the gateway pushes (no
// polling, no reload).
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { createGatewayClient } from './client.ts';
import { Dashboard, Login, type ResultOf, type VariablesOf } from './graphql.ts';

type Campaign = ResultOf<typeof Dashboard>['campaigns']['edges'][number]['node'];
type Bucket = ResultOf<typeof Dashboard>['callStats']['buckets'][number];

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

const API_URL = import.meta.env.VITE_API_URL ?? '';

const loginForm = document.querySelector<HTMLFormElement>('#login')!;
const loginError = document.querySelector<HTMLElement>('[data-testid="login-error"]')!;
const dashboard = document.querySelector<HTMLElement>('#dashboard')!;
const streamState = document.querySelector<HTMLElement>('#stream-state')!;
const rows = document.querySelector<HTMLTableSectionElement>('#dashboard tbody')!;
const sort = document.querySelector<HTMLSelectElement>('#sort')!;
const statusFilter = document.querySelector<HTMLSelectElement>('#status-filter')!;
const chartBox = document.querySelector<HTMLElement>('[data-testid="calls-chart"]')!;

/** The chart's series: each outcome a bar segment of its own colour, stacked per day. */
const OUTCOMES = [
  ['completed', 'Completed', '#137333'],
  ['noAnswer', 'No answer', '#b06000'],
  ['busy', 'Busy', '#f29900'],
  ['failed', 'Failed', '#b3261e'],
  ['canceled', 'Canceled', '#5f6368'],
  ['ongoing', 'Ongoing', '#1a73e8'],
] as const satisfies ReadonlyArray<readonly [keyof Bucket, string, string]>;

const chart = new Chart<'bar', number[], string>(document.querySelector<HTMLCanvasElement>('#calls-chart')!, {
  type: 'bar',
  data: {
    labels: [] as string[],
    datasets: OUTCOMES.map(([, label, colour]) => ({ label, data: [] as number[], backgroundColor: colour })),
  },
  options: {
    maintainAspectRatio: false,
    animation: false,
    scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
  },
});

/** Draws the days' calls by outcome; the box also carries each day's calls (what a test or a screen reader reads). */
function renderChart(buckets: Bucket[]): void {
  chart.data.labels = buckets.map((bucket) => bucket.localStart.slice(5, 10));
  OUTCOMES.forEach(([outcome], index) => {
    chart.data.datasets[index]!.data = buckets.map((bucket) => bucket[outcome]);
  });
  chart.update();
  chartBox.dataset.calls = JSON.stringify(buckets.map((bucket) => bucket.calls));
}

/** The last two weeks, today included, from local midnight to the next, in the browser's time zone. */
function lastTwoWeeks(): Pick<VariablesOf<typeof Dashboard>, 'from' | 'to' | 'timeZone'> {
  const now = new Date();
  const from = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 13);
  const to = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  return { from: from.toISOString(), to: to.toISOString(), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
}

let token: string | undefined;
let live: { unsubscribe(): void } | undefined;
/** What the stream last answered wrong, if anything: said when it ends. */
let lastError: string | undefined;

const client = createGatewayClient({
  apiUrl: API_URL,
  token: () => token,
  // The gateway ends the stream when the token expires or is revoked, and when it shuts down.
  onStreamEnd: (error) =>
    signOut(`The live query ended: ${lastError ?? (error ? String(error) : 'sign in again to follow it')}`),
});

const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const duration = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

function cell(row: HTMLTableRowElement, testId: string, text: string, className = ''): void {
  let td = row.querySelector<HTMLTableCellElement>(`[data-testid="${testId}"]`);
  if (!td) {
    td = row.insertCell();
    td.dataset.testid = testId;
  }
  // The class follows the value as the text does (a paused campaign's status is not drawn in the active colour).
  if (td.className !== className) td.className = className;
  if (td.textContent !== text) td.textContent = text;
}

/** Brings the table to `campaigns`, in their order, keeping the rows (and their elements) of campaigns still listed. */
function render(campaigns: Campaign[]): void {
  const existing = new Map([...rows.rows].map((row) => [row.dataset.campId, row]));
  for (const campaign of campaigns) {
    const row = existing.get(campaign.campId) ?? document.createElement('tr');
    existing.delete(campaign.campId);
    row.dataset.campId = campaign.campId;
    row.dataset.testid = `campaign-${campaign.campId}`;
    cell(row, 'title', campaign.title);
    cell(row, 'status', campaign.status, `status status-${campaign.status}`);
    cell(row, 'calls', String(campaign.metrics.totalNumCall), 'number');
    cell(row, 'call-time', duration(campaign.metrics.totalCallTime), 'number');
    cell(row, 'spent', money.format(campaign.metrics.totalSpent), 'number');
    rows.append(row); // moves it into place
  }
  for (const gone of existing.values()) gone.remove();
}

function follow(): void {
  live?.unsubscribe();
  streamState.textContent = 'Connecting…';
  lastError = undefined;
  const variables: VariablesOf<typeof Dashboard> = {
    orderBy: { field: sort.value as 'CREATED_AT', direction: sort.value === 'TITLE' ? 'ASC' : 'DESC' },
    // Several statuses at once ("not completed"): the list's filter.
    filter: statusFilter.value ? { statuses: statusFilter.value.split(',') as Array<'ACTIVE'> } : null,
    ...lastTwoWeeks(),
  };
  live = client.query(Dashboard, variables).subscribe((result) => {
    if (result.error) {
      lastError = result.error.message;
      streamState.textContent = lastError;
      return;
    }
    if (!result.data) return;
    render(result.data.campaigns.edges.map((edge) => edge.node));
    renderChart(result.data.callStats.buckets);
    streamState.textContent = `Live: updated ${new Date().toLocaleTimeString()}`;
  });
}

function signOut(message: string): void {
  live?.unsubscribe();
  live = undefined;
  token = undefined;
  dashboard.hidden = true;
  loginForm.hidden = false;
  loginError.textContent = message;
}

// A new order or filter is a new live query (the old one ends).
sort.addEventListener('change', () => token && follow());
statusFilter.addEventListener('change', () => token && follow());

loginForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(loginForm);
  loginError.textContent = '';
  const result = await client.mutation(Login, {
    email: String(form.get('email') ?? ''),
    password: String(form.get('password') ?? ''),
  });
  if (!result.data) {
    loginError.textContent = result.error?.graphQLErrors[0]?.message ?? result.error?.message ?? 'Login failed';
    return;
  }
  token = result.data.accountLogin.accessToken;
  loginForm.hidden = true;
  dashboard.hidden = false;
  follow();
});
