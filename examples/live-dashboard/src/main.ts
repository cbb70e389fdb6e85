// The page: a login form, then one @live query of the account's campaigns rendered as a table that follows every
// change the gateway pushes (no polling, no reload).
import { createGatewayClient } from './client.ts';
import { Dashboard, Login, type ResultOf } from './graphql.ts';

type Campaign = ResultOf<typeof Dashboard>['campaigns']['edges'][number]['node'];

const API_URL = import.meta.env.VITE_API_URL ?? '';

const loginForm = document.querySelector<HTMLFormElement>('#login')!;
const loginError = document.querySelector<HTMLElement>('[data-testid="login-error"]')!;
const dashboard = document.querySelector<HTMLElement>('#dashboard')!;
const streamState = document.querySelector<HTMLElement>('#stream-state')!;
const rows = document.querySelector<HTMLTableSectionElement>('#dashboard tbody')!;

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
  streamState.textContent = 'Connecting…';
  lastError = undefined;
  live = client.query(Dashboard, {}).subscribe((result) => {
    if (result.error) {
      lastError = result.error.message;
      streamState.textContent = lastError;
      return;
    }
    if (!result.data) return;
    render(result.data.campaigns.edges.map((edge) => edge.node));
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
