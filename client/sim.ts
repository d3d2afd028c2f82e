/**
 * perpsim's control API (`/sim/*`): the only perpsim-specific calls in the SDK, kept under
 * `client.sim` so that nothing else depends on them and the rest works against the real venue.
 *
 * Loopback callers only, unless perpsim runs with `--control-token` (give it as `controlToken`:
 * it is sent as `Authorization: Bearer <token>`). Refusals throw `ApiError` like any other.
 */
import type { Http } from './rest.ts';
import { canonicalJson, normalizeAddress, type Json } from './sign.ts';

export interface SimDepositReply {
  address: string;
  accountIndex: number;
  amount: string;
  netQuoteBalance: string;
  operationId: number;
}

export interface SimKeyReply {
  apiKey: string;
  address: string;
  allSubaccounts: boolean;
  accountIndex?: number;
  permissions: string[];
}

export interface SimClockReply {
  /** The simulated time, µs. */
  timeUs: number;
  mode: 'realtime' | 'accelerated' | 'virtual';
  speed: number;
}

export class SimControl {
  constructor(
    private readonly http: Http,
    private readonly controlToken?: string,
  ) {}

  private post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    return this.http.request<T>({ method: 'POST', path, body: canonicalJson(body as Json), headers: this.auth() });
  }

  private auth(): Record<string, string> {
    return this.controlToken === undefined ? {} : { authorization: `Bearer ${this.controlToken}` };
  }

  /** Credits `amount` USD (a decimal string) to a subaccount. */
  deposit(address: string, amount: string, accountIndex = 0): Promise<SimDepositReply> {
    return this.post('/sim/deposit', { address: normalizeAddress(address), accountIndex, amount });
  }

  /** Registers an API key without a wallet signature (every subaccount unless `accountIndex`). */
  registerApiKey(address: string, publicKey: string, options: { accountIndex?: number; permissions?: ('trade' | 'withdraw')[]; apiWalletName?: string } = {}): Promise<SimKeyReply> {
    return this.post('/sim/apiKeys', { address: normalizeAddress(address), publicKey, ...options });
  }

  /** Sets a market's oracle price. */
  setOracle(market: string | number, price: string): Promise<{ market: string; oraclePrice: string; markPrice: string }> {
    return this.post('/sim/oracle', { market, price });
  }

  /** Fixes the current hour's funding rate until it settles. */
  setFunding(market: string | number, rate1h: string): Promise<{ market: string; rate1h: string }> {
    return this.post('/sim/funding', { market, rate1h });
  }

  /** Liquidates a subaccount whatever its margin. */
  liquidate(address: string, accountIndex = 0): Promise<{ address: string; accountIndex: number; status: string }> {
    return this.post('/sim/liquidate', { address: normalizeAddress(address), accountIndex });
  }

  /** Halts a market (orders that would take liquidity are rejected) or lifts the halt. */
  halt(market: string | number, halted: boolean): Promise<{ market: string; halted: boolean }> {
    return this.post('/sim/halt', { market, halted });
  }

  clock(): Promise<SimClockReply> {
    return this.http.request({ method: 'GET', path: '/sim/clock', headers: this.auth() });
  }

  /** Moves a virtual clock forward; every timer due fires. */
  advanceClock(ms: number): Promise<SimClockReply> {
    return this.post('/sim/clock', { advanceMs: ms });
  }

  setClockMode(mode: SimClockReply['mode'], speed?: number): Promise<SimClockReply> {
    return this.post('/sim/clock', speed === undefined ? { mode } : { mode, speed });
  }

  /** Back to the configured initial state: keys, accounts, orders and history gone; the agents restart from their seed. */
  reset(): Promise<{ status: 'reset' }> {
    return this.http.request({ method: 'POST', path: '/sim/reset', headers: this.auth() });
  }

  /** Saves the whole state (not the clock) under `name` (1-64 of A-Za-z0-9_.-). */
  snapshot(name: string): Promise<{ name: string; status: 'saved' }> {
    return this.post('/sim/snapshot', { name });
  }

  /** The state becomes the image saved as `name`; an unknown name throws ApiError 404. */
  restore(name: string): Promise<{ name: string; status: 'restored' }> {
    return this.post('/sim/restore', { name });
  }
}
