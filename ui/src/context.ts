/**
 * What every view shares: one SDK client (REST + one WebSocket) on this page's origin, the
 * market list, the simulated time, and calls to perpsim's control API under the control token
 * the user gave (kept for the browser tab in sessionStorage).
 */
import { ApiError, Client, type Market } from '../../client/index.ts';
import { CONSOLE_HEADER, type UiConfig } from '../../sim/ui/protocol.ts';
import { decimalsOf } from './format.ts';

const TOKEN_KEY = 'perpsim.controlToken';

export interface MarketDecimals {
  price: number;
  size: number;
}

/** A refusal of a /sim call: by the server, or by the page before sending (`local`). */
export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly local = false,
  ) {
    super(message);
    this.name = 'SimError';
  }
}

export class Console {
  readonly client: Client;
  /** How /sim treats this page (GET /ui/config.json). */
  readonly config: Promise<UiConfig>;
  private marketList: Promise<Market[]> | undefined;
  /** Server time (µs) at `syncedAt` (performance.now ms), from GET /v1/time. */
  private serverUs = 0;
  private syncedAt = 0;

  constructor(readonly origin: string) {
    this.config = fetch(`${origin}/ui/config.json`).then((r) => r.json() as Promise<UiConfig>);
    this.client = new Client({ baseUrl: origin, headers: { [CONSOLE_HEADER]: '1' }, reconnect: { initialDelayMs: 250, maxDelayMs: 5000 } });
  }

  get token(): string | undefined {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  }

  set token(value: string | undefined) {
    if (value === undefined || value === '') sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, value);
  }

  markets(refresh = false): Promise<Market[]> {
    if (refresh || this.marketList === undefined) {
      this.marketList = this.client.markets().then(
        (reply) => reply.markets,
        (error: unknown) => {
          this.marketList = undefined;
          throw error;
        },
      );
    }
    return this.marketList;
  }

  async market(name: string): Promise<Market | undefined> {
    return (await this.markets()).find((m) => m.marketDisplayName.toUpperCase() === name.toUpperCase());
  }

  /** Oracle and mark prices by market name now (GET /v1/prices; oraclePrices streams only changes). */
  async prices(): Promise<Map<string, { price: string; markPrice: string }>> {
    const reply = await this.client.prices();
    return new Map(Object.values(reply).map((p) => [p.marketDisplayName, { price: p.oraclePrice, markPrice: p.markPrice }]));
  }

  static decimals(market: Market | undefined): MarketDecimals {
    return { price: decimalsOf(market?.tickSize), size: decimalsOf(market?.stepSize) };
  }

  /** Simulated now in µs: the last GET /v1/time plus the wall time since (exact in real time); 0 before the first. */
  nowUs(): number {
    if (this.serverUs === 0) return 0;
    return this.serverUs + (performance.now() - this.syncedAt) * 1000;
  }

  async syncTime(): Promise<number> {
    const { timeNs } = await this.client.time();
    this.serverUs = Number(BigInt(timeNs) / 1000n);
    this.syncedAt = performance.now();
    return this.serverUs;
  }

  /**
   * A control API call (/sim/...): the token, when given, as `Authorization: Bearer`. A refusal
   * throws SimError with the status (401 without the right token, 403 from a non-loopback caller
   * when no token is configured), made here without a request when the config says so.
   */
  async sim<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    // Refused here what the server would refuse, so the page does not send requests bound to fail.
    const config = await this.config;
    if (config.controlToken && this.token === undefined) throw new SimError(401, 'this perpsim requires the control token (--control-token)', true);
    if (!config.controlToken && !config.loopback) throw new SimError(403, 'the control API answers loopback callers only (perpsim runs without --control-token)', true);
    const headers: Record<string, string> = {};
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.origin}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text.length === 0 ? null : JSON.parse(text);
    } catch {
      // A non-JSON reply is shown as text.
    }
    if (response.status >= 400) {
      const error = parsed !== null && typeof parsed === 'object' && 'error' in parsed ? String((parsed as { error: unknown }).error) : text;
      throw new SimError(response.status, error);
    }
    return parsed as T;
  }
}

/** A message for any failure of a call, for a status line. */
export function describe(error: unknown): string {
  if (error instanceof SimError) return error.status === 401 ? `refused (401): ${error.message} — enter the control token above` : `refused (${error.status}): ${error.message}`;
  if (error instanceof ApiError) return `${error.status}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
