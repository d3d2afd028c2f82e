/**
 * perpsim/client: a typed client of the venue's REST + WebSocket interface
 * (`../shared/spec/interface.md`), for perpsim and for the real venue alike.
 *
 * @example
 * const key = await ApiKey.generate();
 * const client = new Client({ baseUrl: 'http://127.0.0.1:8080', address, key });
 * await client.sim.registerApiKey(address, key.publicKey); // perpsim; on the venue: client.createApiKey(wallet, …)
 * await client.sim.deposit(address, '10000');
 * const ack = await client.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.5' });
 *
 * Nothing outside `client.sim` is perpsim-specific, and nothing here imports perpsim's engine,
 * gateway or simulator: the SDK runs in a browser (global fetch and WebSocket, @noble/ed25519
 * over WebCrypto, viem) and in Node 20 (where the `ws` package stands in for WebSocket).
 */
import { LocalOrderBook, type LocalOrderBookOptions } from './book.ts';
import { NETWORKS, type Network, type RequestSigner } from './keys.ts';
import { NanoClock, OrderSigner } from './orders.ts';
import { Http, RestClient, type RetryOptions } from './rest.ts';
import { SimControl } from './sim.ts';
import { normalizeAddress } from './sign.ts';
import type { Market } from './types.ts';
import { WsClient, type ReconnectOptions, type WebSocketConstructor } from './ws.ts';

export interface ClientOptions {
  /** The REST host without `/v1`, e.g. `https://api.testnet.arcus.xyz` or `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Default: the base URL with ws(s):// and `/v1/ws`. */
  wsUrl?: string;
  /** The master address calls act for, unless a call names another. */
  address?: string;
  /** Default subaccount (0). */
  accountIndex?: number;
  /** The API key that signs (an `ApiKey`, or any `RequestSigner`). */
  key?: RequestSigner;
  /** EIP-712 network of wallet signatures: a name or `{chainId, verifyingContract}` (default testnet, as perpsim). */
  network?: keyof typeof NETWORKS | Network;
  fetch?: typeof fetch;
  /** Retry 429s after Retry-After (off unless given). */
  retry?: RetryOptions;
  sleep?: (ms: number) => Promise<void>;
  /** Extra headers on every REST request. */
  headers?: Record<string, string>;
  WebSocket?: WebSocketConstructor;
  /** WebSocket reconnection back-off; `false` turns it off. */
  reconnect?: ReconnectOptions | false;
  /** perpsim's `--control-token`, for `client.sim`. */
  controlToken?: string;
  /** Default goodTilTime, days ahead (40). */
  goodTilDays?: number;
}

export class Client extends RestClient {
  readonly clock: NanoClock;
  readonly ws: WsClient;
  /** perpsim's control API. */
  readonly sim: SimControl;
  readonly key: RequestSigner | undefined;
  /** The default master address, lowercase. */
  readonly address: string | undefined;
  private marketList: Promise<Market[]> | undefined;

  constructor(options: ClientOptions) {
    const http = new Http({
      baseUrl: options.baseUrl,
      ...(options.fetch && { fetch: options.fetch }),
      ...(options.retry && { retry: options.retry }),
      ...(options.sleep && { sleep: options.sleep }),
      ...(options.headers && { headers: options.headers }),
    });
    const clock = new NanoClock();
    // The signer resolves markets through this client's cache, which exists once super() ran.
    let self: Client | undefined;
    const signer = new OrderSigner({
      key: options.key,
      address: options.address,
      accountIndex: options.accountIndex ?? 0,
      clock,
      market: (selector) => self!.market(selector),
      ...(options.goodTilDays !== undefined && { goodTilDays: options.goodTilDays }),
    });
    const network = typeof options.network === 'object' ? options.network : NETWORKS[options.network ?? 'testnet'];
    super({ http, signer, network });
    self = this;
    this.clock = clock;
    this.key = options.key;
    this.address = options.address === undefined ? undefined : normalizeAddress(options.address);
    this.sim = new SimControl(http, options.controlToken);
    this.ws = new WsClient({
      url: options.wsUrl ?? `${http.baseUrl.replace(/^http/, 'ws')}/v1/ws`,
      signer,
      ...(options.WebSocket && { WebSocket: options.WebSocket }),
      ...(options.reconnect !== undefined && { reconnect: options.reconnect }),
    });
  }

  /**
   * A market record by display name (case-insensitive) or id, from `GET /v1/markets` fetched once;
   * an unknown selector refetches once (a market listed since) before failing.
   */
  async market(selector: string | number): Promise<Market> {
    const find = (list: Market[]): Market | undefined => {
      const text = String(selector);
      return /^[0-9]+$/.test(text) ? list.find((m) => m.marketId === Number(text)) : list.find((m) => m.marketDisplayName.toUpperCase() === text.toUpperCase());
    };
    this.marketList ??= this.markets().then((reply) => reply.markets);
    const cached = find(await this.marketList);
    if (cached !== undefined) return cached;
    this.marketList = this.markets().then((reply) => reply.markets);
    const fresh = find(await this.marketList);
    if (fresh === undefined) throw new RangeError(`unknown market: ${String(selector)}`);
    return fresh;
  }

  /** Aligns the signing clock with the server's (`GET /v1/time`): timestamps and default expiries follow it. */
  async syncTime(): Promise<void> {
    this.clock.sync(BigInt((await this.time()).timeNs));
  }

  /** A local order book kept from l2OrderbookUpdates (connects the socket if needed). */
  async book(market: string, options: Omit<LocalOrderBookOptions, 'market'> = {}): Promise<LocalOrderBook> {
    const name = (await this.market(market)).marketDisplayName;
    return LocalOrderBook.open(this.ws, { ...options, market: name });
  }

  /** Closes the socket (no reconnection). */
  close(): Promise<void> {
    return this.ws.close();
  }
}

export { ApiError } from './errors.ts';
export { ApiKey, NETWORKS, rsv, signCreateApiKey, signRevokeApiKey, signTransfer, signWithdraw, type Network, type RequestSigner, type WalletAccount, type WalletSignature } from './keys.ts';
export { LocalOrderBook, applyDelta, bookView, createLocalBook, seedBook, type BookState, type BookView, type DeltaOutcome } from './book.ts';
export { NanoClock, type CancelOrderInput, type ModifyOrderInput, type OrderRef, type PlaceOrderInput, type Scope } from './orders.ts';
export { RestClient, type BookParams, type CandleParams, type FillFilters, type ListFilters, type ModifyItem, type OrderListFilters, type RetryOptions } from './rest.ts';
export { SimControl } from './sim.ts';
export { canonicalJson, cancelPayload, modifyPayload, placePayload, scheme2Message, withdrawPayload } from './sign.ts';
export { fromUnits, quantumsToUsd, toUnits, usdToQuantums } from './units.ts';
export { ConnectionClosedError, WsClient, type ChannelFrame, type SubscribeRequest, type Subscription, type WebSocketConstructor, type WebSocketLike } from './ws.ts';
export type * from './types.ts';
export { ACCOUNT_CHANNELS, GLOBAL_CHANNELS, MARKET_CHANNELS } from './types.ts';
