/**
 * The REST surface: one typed method per operation of interface.md "Endpoints" that perpsim
 * serves (the affiliate, notification, preferences, leaderboard and portfolio routes included),
 * plus `get` / `signedPost` / `signedGet` for any other route (the real venue's newer ones).
 *
 * Contract:
 * - Paths are relative to `baseUrl` (the host, without `/v1`). Account reads send `address`
 *   (and `accountIndex` when set) as query parameters; signed routes send the header triple
 *   X-API-Key / X-Timestamp / X-Signature and `?address=`.
 * - Bodies are written as canonical JSON (keys sorted, integers as plain digits): `timestamp`
 *   keeps its nanoseconds exactly, and a Scheme 2 body is byte for byte what was signed.
 * - Any status ≥ 400 throws `ApiError`; a single order write answered 200 REJECTED throws it
 *   too (status 200, rejectionReason, orderId). Batch rows come back as they are.
 * - With `retry` set, a 429 is sent again unchanged (the venue takes the replay slot only once
 *   a request passed its charge) after the `Retry-After` header's seconds (the body's
 *   retryAfterMs when the header is missing), up to `retry.attempts` times.
 */
import { apiErrorFromReply, throwIfRejected, type ApiError } from './errors.ts';
import { signCreateApiKey, signRevokeApiKey, signTransfer, signWithdraw, type Network, type WalletAccount } from './keys.ts';
import { type CancelOrderInput, type ModifyOrderInput, type OrderRef, type OrderSigner, type PlaceOrderInput, type Scope, type SignedBody } from './orders.ts';
import { canonicalJson, normalizeAddress, scheme2Action, scheme2Message, withdrawPayload, type Json } from './sign.ts';
import type {
  Account,
  AdjustMarginReply,
  ApiKeyRecord,
  BatchReply,
  Bbo,
  BookContents,
  CancelAllReply,
  Candle,
  CreateApiKeyReply,
  FeeTier,
  Fill,
  FundingPayment,
  FundingRate,
  Leverage,
  Market,
  Order,
  OrderAck,
  Position,
  PriceEntry,
  RateLimitSnapshot,
  RevokeApiKeyReply,
  ScheduleCancelReply,
  ServiceInfo,
  SetLeverageReply,
  Side,
  Trade,
  TransferReply,
  TransferUpdate,
  TpslGrouping,
  SubmitAck,
} from './types.ts';
import { usdToQuantums } from './units.ts';

export interface RetryOptions {
  /** Further attempts after the first 429 (default 3). */
  attempts?: number;
}

export interface HttpOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  /** Off unless given. */
  retry?: RetryOptions;
  /** How waits happen (tests observe the delays through it). */
  sleep?: (ms: number) => Promise<void>;
  /** Sent with every request (e.g. perpsim's X-Perpsim-Country). */
  headers?: Record<string, string>;
}

export type Query = Record<string, string | number | boolean | undefined>;

interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  query?: Query | undefined;
  /** Serialized body (canonical JSON). */
  body?: string | undefined;
  headers?: Record<string, string> | undefined;
}

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** fetch with the venue's error shape and the optional 429 retry. */
export class Http {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: HttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.sleep = options.sleep ?? defaultSleep;
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    const url = this.url(spec.path, spec.query);
    const headers: Record<string, string> = { ...this.options.headers, ...spec.headers };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    const attempts = this.options.retry === undefined ? 0 : (this.options.retry.attempts ?? 3);
    for (let attempt = 0; ; attempt++) {
      const response = await this.fetchImpl(url, { method: spec.method, headers, ...(spec.body === undefined ? {} : { body: spec.body }) });
      const text = await response.text();
      const body = text.length === 0 ? undefined : parse(text);
      if (response.status < 400) return body as T;
      const error = apiErrorFromReply(response.status, body, response.headers.get('retry-after'));
      if (response.status !== 429 || attempt >= attempts) throw error;
      await this.sleep(retryDelayMs(response.headers.get('retry-after'), error));
    }
  }

  url(path: string, query?: Query): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value));
    const search = params.toString();
    return `${this.baseUrl}${path}${search.length > 0 ? `?${search}` : ''}`;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { error: text };
  }
}

/** `Retry-After` is whole seconds (interface.md "Rate-limit error body"). */
export function retryDelayMs(header: string | null, error: ApiError): number {
  const seconds = header === null ? NaN : Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  return error.retryAfterMs ?? 1000;
}


// ---------------------------------------------------------------------------------------------
// Parameters

export interface ListFilters extends Scope {
  market?: string | number;
  /** Epoch µs, inclusive. */
  from?: number;
  to?: number;
  limit?: number;
}

export interface OrderListFilters extends ListFilters {
  status?: string;
  side?: Side;
}

export interface FillFilters extends ListFilters {
  role?: 'MAKER' | 'TAKER';
  side?: Side;
}

export interface BookParams {
  nLevels?: number;
  sigFigs?: number;
  roundStep?: 1 | 2 | 5;
}

export interface CandleParams {
  market: string | number;
  timeframe: string;
  /** Epoch µs (required by the venue). */
  to: number;
  from?: number;
  countback?: number;
}

export interface RegisterKeyOptions {
  apiWalletName: string;
  /** 0-9, or 255 for every subaccount (default 0). */
  accountIndex?: number;
  /** Epoch ms, 1-180 days ahead; the venue's default (14 days) when absent. */
  validUntil?: number;
  nonce?: string;
}

export interface ModifyItem {
  target: OrderRef;
  change: ModifyOrderInput;
}

export interface RestClientOptions {
  http: Http;
  signer: OrderSigner;
  network: Network;
}

// ---------------------------------------------------------------------------------------------

export class RestClient {
  private readonly http: Http;
  private readonly signer: OrderSigner;
  private readonly network: Network;

  constructor(options: RestClientOptions) {
    this.http = options.http;
    this.signer = options.signer;
    this.network = options.network;
  }

  // Generic routes ----------------------------------------------------------------------------

  /** A public GET of any path. */
  get<T>(path: string, query?: Query): Promise<T> {
    return this.http.request<T>({ method: 'GET', path, query });
  }

  /** A Scheme 2 POST of any path: `timestamp + action + canonical_json(body)`. */
  async signedPost<T>(path: string, body?: Record<string, unknown>, scope?: Scope): Promise<T> {
    const { address } = this.signer.scope(scope);
    const ts = this.signer.now();
    const json = body === undefined ? undefined : (body as Json);
    const signature = await this.signer.key.sign(scheme2Message(ts, scheme2Action(path), json));
    return this.http.request<T>({
      method: 'POST',
      path,
      query: { address },
      body: json === undefined ? undefined : canonicalJson(json),
      headers: this.signedHeaders(ts, signature),
    });
  }

  /** A signed GET (affiliate reads): `<ts><last path segment>`. */
  async signedGet<T>(path: string, query: Query = {}, scope?: Scope): Promise<T> {
    const { address } = this.signer.scope(scope);
    const ts = this.signer.now();
    const signature = await this.signer.key.sign(`${ts}${path.slice(path.lastIndexOf('/') + 1)}`);
    return this.http.request<T>({ method: 'GET', path, query: { address, ...query }, headers: this.signedHeaders(ts, signature) });
  }

  private signedHeaders(ts: bigint, signature: string): Record<string, string> {
    return { 'x-api-key': this.signer.key.publicKey, 'x-timestamp': ts.toString(), 'x-signature': signature };
  }

  private accountQuery(scope: Scope = {}, extra: Query = {}): Query {
    const { address } = this.signer.scope(scope);
    return { address, ...(scope.accountIndex !== undefined ? { accountIndex: scope.accountIndex } : {}), ...extra };
  }

  private listQuery(filters: ListFilters & { status?: string; side?: string; role?: string }): Query {
    const { address: _address, accountIndex: _accountIndex, ...rest } = filters;
    return this.accountQuery(filters, rest);
  }

  private post<T>(path: string, signed: SignedBody, ts: bigint, address: string): Promise<T> {
    return this.http.request<T>({ method: 'POST', path, query: { address }, body: canonicalJson(signed.body as Json), headers: this.signedHeaders(ts, signed.signature) });
  }

  // Public reads -------------------------------------------------------------------------------

  serviceInfo(): Promise<ServiceInfo> {
    return this.get('/');
  }

  health(): Promise<unknown> {
    return this.get('/health');
  }

  /** timeNs: unix ns, a JSON integer (a JS number keeps it to ~256 ns). */
  time(): Promise<{ timeNs: number }> {
    return this.get('/v1/time');
  }

  markets(filter: { market?: string | number } = {}): Promise<{ markets: Market[] }> {
    return this.get('/v1/markets', filter);
  }

  bbo(market: string | number): Promise<Bbo> {
    return this.get(`/v1/bbo/${encodeURIComponent(String(market))}`);
  }

  l2OrderBook(market: string | number, params: BookParams = {}): Promise<BookContents> {
    return this.get(`/v1/l2OrderBook/${encodeURIComponent(String(market))}`, { ...params });
  }

  mids(filter: { market?: string | number } = {}): Promise<{ mids: Record<string, string> }> {
    return this.get('/v1/mids', filter);
  }

  prices(filter: { market?: string | number } = {}): Promise<Record<string, PriceEntry>> {
    return this.get('/v1/prices', filter);
  }

  trades(filter: { market?: string | number; limit?: number; from?: number; to?: number } = {}): Promise<{ trades: Trade[] }> {
    return this.get('/v1/trades', filter);
  }

  trade(tradeId: string): Promise<Trade> {
    return this.get(`/v1/trade/${encodeURIComponent(tradeId)}`);
  }

  candles(params: CandleParams): Promise<{ candles: Candle[] }> {
    return this.get('/v1/candles', { ...params });
  }

  fundingRates(filter: { market?: string | number; from?: number; to?: number; limit?: number } = {}): Promise<{ fundingRates: FundingRate[] }> {
    return this.get('/v1/fundingRates', filter);
  }

  feeTiers(filter: Scope = {}): Promise<{ feeTiers: FeeTier[]; [field: string]: unknown }> {
    return this.get('/v1/feetiers', { ...filter });
  }

  compliance(filter: { address?: string } = {}): Promise<{ geo: Record<string, unknown>; address?: Record<string, unknown> }> {
    return this.get('/v1/compliance', filter);
  }

  apiMetaMarkets(filter: { market?: string | number } = {}): Promise<{ markets: Record<string, unknown>[] }> {
    return this.get('/v1/api-meta/markets', filter);
  }

  apiMetaOverview(): Promise<Record<string, Record<string, unknown>>> {
    return this.get('/v1/api-meta/overview');
  }

  apiMetaSpotOverview(): Promise<Record<string, unknown>> {
    return this.get('/v1/api-meta/spot/overview');
  }

  // Account reads (public, by address) ---------------------------------------------------------

  account(scope?: Scope): Promise<Account> {
    return this.get('/v1/account', this.accountQuery(scope));
  }

  positions(filter: Scope & { market?: string | number } = {}): Promise<{ positions: Record<string, Position>; total: number }> {
    return this.get('/v1/positions', this.listQuery(filter));
  }

  leverages(filter: Scope & { market?: string | number } = {}): Promise<{ address: string; accountIndex: number; leverages: Leverage[] }> {
    return this.get('/v1/leverages', this.listQuery(filter));
  }

  accountStats(scope?: Scope): Promise<Record<string, unknown>> {
    return this.get('/v1/account/stats', this.accountQuery(scope));
  }

  openOrders(filter: OrderListFilters = {}): Promise<{ orders: Order[]; total: number }> {
    return this.get('/v1/openOrders', this.listQuery(filter));
  }

  orders(filter: OrderListFilters = {}): Promise<{ orders: Order[]; total: number }> {
    return this.get('/v1/orders', this.listQuery(filter));
  }

  order(orderId: string, scope?: Scope): Promise<Order> {
    return this.get(`/v1/order/${encodeURIComponent(orderId)}`, this.accountQuery(scope));
  }

  fills(filter: FillFilters = {}): Promise<{ fills: Fill[]; total: number }> {
    return this.get('/v1/fills', this.listQuery(filter));
  }

  fill(tradeId: string, scope?: Scope): Promise<Fill> {
    return this.get(`/v1/fill/${encodeURIComponent(tradeId)}`, this.accountQuery(scope));
  }

  funding(filter: ListFilters = {}): Promise<{ fundingPayments: FundingPayment[]; total: number }> {
    return this.get('/v1/funding', this.listQuery(filter));
  }

  interest(filter: ListFilters = {}): Promise<{ interestPayments: { payment: string; time: number }[]; total?: number }> {
    return this.get('/v1/interest', this.listQuery(filter));
  }

  accountTransferUpdates(filter: ListFilters = {}): Promise<{ accountTransferUpdates: TransferUpdate[] }> {
    return this.get('/v1/accountTransferUpdates', this.listQuery(filter));
  }

  rateLimit(scope?: Scope): Promise<RateLimitSnapshot> {
    return this.get('/v1/rateLimit', this.accountQuery(scope));
  }

  /** Auth `key`: X-API-Key alone. */
  apiKeys(scope?: Scope): Promise<{ apiKeys: ApiKeyRecord[] }> {
    return this.http.request({ method: 'GET', path: '/v1/apiKeys', query: this.accountQuery(scope), headers: { 'x-api-key': this.signer.key.publicKey } });
  }

  // Order writes (Scheme 1) --------------------------------------------------------------------

  async placeOrder(input: PlaceOrderInput): Promise<OrderAck> {
    const ts = this.signer.now();
    const signed = await this.signer.place(input, ts);
    return throwIfRejected(await this.post<OrderAck>('/v1/placeOrder', signed, ts, signed.body.address as string));
  }

  async cancelOrder(input: CancelOrderInput): Promise<OrderAck> {
    const ts = this.signer.now();
    const signed = await this.signer.cancel(input, ts);
    return throwIfRejected(await this.post<OrderAck>('/v1/cancelOrder', signed, ts, signed.body.address as string));
  }

  async modifyOrder(target: OrderRef, change: ModifyOrderInput): Promise<OrderAck> {
    const ts = this.signer.now();
    const signed = await this.signer.modify(target, change, ts);
    return throwIfRejected(await this.post<OrderAck>('/v1/modifyOrder', signed, ts, signed.body.address as string));
  }

  batchPlaceOrders(orders: readonly PlaceOrderInput[], options: { grouping?: TpslGrouping } = {}): Promise<BatchReply> {
    return this.batch('/v1/batchPlaceOrders', 'orders', orders, (input, ts) => this.signer.place(input, ts), options.grouping === undefined ? {} : { grouping: options.grouping });
  }

  batchCancelOrders(cancels: readonly CancelOrderInput[]): Promise<BatchReply> {
    return this.batch('/v1/batchCancelOrders', 'cancels', cancels, (input, ts) => this.signer.cancel(input, ts));
  }

  batchModifyOrders(modifies: readonly ModifyItem[]): Promise<BatchReply> {
    return this.batch('/v1/batchModifyOrders', 'modifies', modifies, (item, ts) => this.signer.modify(item.target, item.change, ts));
  }

  /** Each element signed on its own over the shared timestamp; X-Signature is the first element's (unverified). */
  private async batch<I>(path: string, field: string, items: readonly I[], sign: (item: I, ts: bigint) => Promise<SignedBody>, extra: Record<string, unknown> = {}): Promise<BatchReply> {
    const ts = this.signer.now();
    const elements = await Promise.all(items.map((item) => sign(item, ts)));
    const first = elements[0];
    if (first === undefined) throw new RangeError('a batch needs 1-100 elements');
    const body = { [field]: elements.map(({ body: element, signature }) => ({ ...element, signature })), ...extra };
    return this.post<BatchReply>(path, { body, signature: first.signature }, ts, first.body.address as string);
  }

  // Scheme 2 writes ----------------------------------------------------------------------------

  async cancelAllOrders(options: Scope & { market?: string | number; validUntil?: number } = {}): Promise<CancelAllReply> {
    return this.signedPost('/v1/cancelAllOrders', await this.signer.accountBody(options, { validUntil: options.validUntil }), options);
  }

  /** Arms (time: epoch µs, 5 s to 5 min ahead), refreshes, or with `time` null / absent disarms. */
  async scheduleCancel(options: Scope & { time?: number | null; market?: string | number } = {}): Promise<ScheduleCancelReply> {
    return this.signedPost('/v1/scheduleCancel', await this.signer.accountBody(options, { time: options.time ?? undefined }), options);
  }

  /** 200 APPLIED; a 422 REJECTED (prior leverage kept) throws with rejectionReason. */
  async setLeverage(options: Scope & { market: string | number; leverage: number; isolated?: boolean }): Promise<SetLeverageReply> {
    return this.signedPost('/v1/setLeverage', await this.signer.accountBody(options, { leverage: options.leverage, isolated: options.isolated }), options);
  }

  /** `amount`: signed USD decimal; positive moves cross margin into the isolated position. */
  async adjustIsolatedMargin(options: Scope & { market: string | number; amount: string }): Promise<AdjustMarginReply> {
    return this.signedPost('/v1/adjustIsolatedMargin', await this.signer.accountBody(options, { amount: options.amount }), options);
  }

  // Affiliate program (interface.md "Referral"): signed writes answer 202 {status: "submitted"} --

  /** The caller's first referral code (1-32 of A-Z 0-9 _ -). */
  affiliateCreateCode(code: string, options: { kickbackBps?: number } = {}): Promise<SubmitAck> {
    return this.signedPost('/v1/affiliate/createCode', { address: this.wallet(), code, ...(options.kickbackBps !== undefined && { kickbackBps: options.kickbackBps }) });
  }

  /** Renames the caller's code (404 without one; 409 same, taken or retired). */
  affiliateModifyCode(code: string): Promise<SubmitAck> {
    return this.signedPost('/v1/affiliate/modifyCode', { address: this.wallet(), code });
  }

  /** Binds the caller to the referrer owning `code` (before its first fill). */
  affiliateRegister(code: string): Promise<SubmitAck> {
    return this.signedPost('/v1/affiliate/registerAffiliate', { address: this.wallet(), code });
  }

  /** Binds the caller to a referrer by an invite code (a bearer secret). */
  affiliateRedeemInvite(inviteCode: string): Promise<SubmitAck> {
    return this.signedPost('/v1/affiliate/redeemInvite', { address: this.wallet(), inviteCode });
  }

  /** The share of the T1 commission handed back to the caller's referees, in basis points. */
  affiliateKickback(kickbackBps: number): Promise<SubmitAck> {
    return this.signedPost('/v1/affiliate/kickback', { address: this.wallet(), kickbackBps });
  }

  /** Claims accrued rewards (all of them when `amountQuantums` is absent) into a subaccount. */
  affiliateClaim(options: { accountIndex?: number; amountQuantums?: string } = {}): Promise<SubmitAck & { claimId?: string }> {
    return this.signedPost('/v1/affiliate/claim', { address: this.wallet(), ...options });
  }

  affiliateInviteCodes(filter: { status?: 'ACTIVE' | 'REDEEMED'; limit?: number; offset?: number } = {}): Promise<{ inviteCodes: Record<string, unknown>[]; total: number }> {
    return this.signedGet('/v1/affiliate/inviteCodes', filter as Query);
  }

  affiliateInfo(): Promise<Record<string, unknown>> {
    return this.signedGet('/v1/affiliate/info');
  }

  affiliateCode(): Promise<Record<string, unknown>> {
    return this.signedGet('/v1/affiliate/code');
  }

  affiliateReferees(filter: { from?: number; to?: number; limit?: number } = {}): Promise<Record<string, unknown>> {
    return this.signedGet('/v1/affiliate/referees', filter as Query);
  }

  affiliateCommissions(filter: { from?: number; to?: number; limit?: number } = {}): Promise<Record<string, unknown>> {
    return this.signedGet('/v1/affiliate/commissions', filter as Query);
  }

  /** The caller's referrer binding: its code and discount, never the referrer's address. */
  affiliateMyReferrer(address: string = this.wallet()): Promise<Record<string, unknown>> {
    return this.get('/v1/affiliate/myReferrer', { address });
  }

  affiliateClaims(address: string = this.wallet()): Promise<Record<string, unknown>> {
    return this.get('/v1/affiliate/claims', { address });
  }

  affiliateClaimStatus(query: Query = {}): Promise<Record<string, unknown>> {
    return this.get('/v1/affiliate/claimStatus', { address: this.wallet(), ...query });
  }

  affiliateCodeAvailable(code: string): Promise<{ available: boolean; [field: string]: unknown }> {
    return this.get('/v1/affiliate/codeAvailable', { code });
  }

  /** Commission tiers sorted by level, and the flat T2/T3 rates. */
  commissionRates(): Promise<Record<string, unknown>> {
    return this.get('/v1/commissionrates');
  }

  // Notifications and preferences ---------------------------------------------------------------

  /** Registers (upserts) a push device token for the key's wallet; enrols it for notifications. */
  registerPushToken(token: string, platform?: 'ios' | 'android' | 'web'): Promise<{ token: string; platform: string | null; tokens: number }> {
    return this.signedPost('/v1/api-meta/notifications/tokens', { token, ...(platform !== undefined && { platform }) });
  }

  /** The inbox, newest first; page with `beforeNs` (the previous page's nextBeforeNs). */
  notifications(filter: { beforeNs?: string; limit?: number; address?: string } = {}): Promise<{ notifications: Record<string, unknown>[]; unseen: number; nextBeforeNs: string | null }> {
    return this.get('/v1/api-meta/notifications', { address: filter.address ?? this.wallet(), ...(filter.beforeNs !== undefined && { before_ns: filter.beforeNs }), ...(filter.limit !== undefined && { limit: filter.limit }) });
  }

  /** Marks notifications seen: exactly one of `all` (with `limit`) or `ids`; answers how many flipped. */
  markNotificationsSeen(target: { all: true; limit?: number } | { ids: { createdAtNs: string; notificationId: number }[] }): Promise<{ marked: number }> {
    const body = 'ids' in target ? { ids: target.ids.map((id) => ({ created_at_ns: id.createdAtNs, notification_id: id.notificationId })) } : { all: true, ...(target.limit !== undefined && { limit: target.limit }) };
    return this.signedPost('/v1/api-meta/notifications:markSeen', body);
  }

  userPreferences(address: string = this.wallet()): Promise<{ address: string; preferences: Record<string, unknown> }> {
    return this.get('/v1/api-meta/userPreferences', { address });
  }

  /** Merges `patch` into the wallet's preferences document (a key set to null is removed). */
  setUserPreferences(patch: Record<string, unknown>): Promise<{ address: string; preferences: Record<string, unknown> }> {
    return this.signedPost('/v1/api-meta/userPreferences', patch);
  }

  // Leaderboard and portfolio ---------------------------------------------------------------------

  leaderboard(filter: { sortBy?: 'volume' | 'pnl' | 'fees'; window?: 'all' | '30d' | '24h'; limit?: number } = {}): Promise<{ leaderboard?: Record<string, unknown>[]; [field: string]: unknown }> {
    return this.get('/v1/leaderboard', filter as Query);
  }

  portfolio(scope?: Scope): Promise<Record<string, unknown>> {
    return this.get('/v1/portfolio', this.accountQuery(scope));
  }

  private wallet(): string {
    return this.signer.scope({}).address;
  }

  // Keys, withdraw and transfer (wallet-signed, or the API key for withdraw) -------------------

  /** createApiKey: registers `publicKey` for the wallet's address with its EIP-712 signature. */
  async createApiKey(wallet: WalletAccount, publicKey: string, options: RegisterKeyOptions): Promise<CreateApiKeyReply> {
    const accountIndex = options.accountIndex ?? 0;
    // Without validUntil the venue checks the signature against 0 and applies its default.
    const signature = await signCreateApiKey(wallet, this.network, { apiWalletName: options.apiWalletName, publicKey, validUntil: BigInt(options.validUntil ?? 0), accountIndex, nonce: options.nonce });
    const body: Record<string, unknown> = { address: normalizeAddress(wallet.address), publicKey, apiWalletName: options.apiWalletName, signature, accountIndex };
    if (options.validUntil !== undefined) body.validUntil = options.validUntil;
    if (options.nonce !== undefined) body.nonce = options.nonce;
    return this.http.request({ method: 'POST', path: '/v1/createApiKey', body: canonicalJson(body as Json) });
  }

  async revokeApiKey(wallet: WalletAccount, publicKey: string, options: { apiWalletName: string; accountIndex?: number }): Promise<RevokeApiKeyReply> {
    const accountIndex = options.accountIndex ?? 0;
    const signature = await signRevokeApiKey(wallet, this.network, { apiWalletName: options.apiWalletName, publicKey, accountIndex });
    const body = { address: normalizeAddress(wallet.address), publicKey, apiWalletName: options.apiWalletName, signature, accountIndex };
    return this.http.request({ method: 'POST', path: '/v1/revokeApiKey', body: canonicalJson(body as Json) });
  }

  /**
   * Withdraw `amount` USD to the owning wallet: signed by `wallet` (EIP-712), or without one by
   * the client's API key (Scheme 1 op 5; the key needs the withdraw permission).
   */
  async withdraw(options: Scope & { amount: string; nonce?: string; wallet?: WalletAccount }): Promise<TransferReply> {
    const amount = usdToQuantums(options.amount);
    const nonce = options.nonce ?? this.signer.now().toString();
    if (options.wallet !== undefined) {
      const accountIndex = options.accountIndex ?? this.signer.accountIndex;
      const ethereumAddress = normalizeAddress(options.wallet.address);
      const signature = await signWithdraw(options.wallet, this.network, { ethereumAddress, accountIndex, amount, nonce });
      const body = { ethereumAddress, accountIndex, amount: amount.toString(), nonce, signature };
      return this.http.request({ method: 'POST', path: '/v1/withdraw', body: canonicalJson(body as Json) });
    }
    const { address, accountIndex } = this.signer.scope(options);
    const ts = this.signer.now();
    const signature = await this.signer.key.sign(withdrawPayload({ address, accountIndex, clientTimeNs: ts, nonce, amountQuantums: amount }));
    const body = { ethereumAddress: address, accountIndex, amount: amount.toString(), nonce };
    return this.http.request({ method: 'POST', path: '/v1/withdraw', body: canonicalJson(body), headers: this.signedHeaders(ts, signature) });
  }

  /** Move `amount` USD between two subaccounts of the wallet (EIP-712 Transfer). */
  async transfer(wallet: WalletAccount, options: { fromAccountIndex: number; toAccountIndex: number; amount: string; nonce?: string }): Promise<TransferReply> {
    const amount = usdToQuantums(options.amount);
    const nonce = options.nonce ?? this.signer.now().toString();
    const fields = { ethereumAddress: normalizeAddress(wallet.address), fromAccountIndex: options.fromAccountIndex, toAccountIndex: options.toAccountIndex, amount, nonce };
    const signature = await signTransfer(wallet, this.network, fields);
    const body = { ...fields, amount: amount.toString(), signature };
    return this.http.request({ method: 'POST', path: '/v1/transfer', body: canonicalJson(body as Json) });
  }
}

