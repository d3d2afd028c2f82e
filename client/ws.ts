/**
 * The WebSocket surface: channel subscriptions with typed payloads, RPC post/get correlated by
 * id, and reconnection with back-off that restores every subscription.
 *
 * Contract (interface.md "WebSocket RPC", "Events", "Sequencing"; supplement §9):
 * - Subscribe / unsubscribe are answered in order, each by one `subscribed` / `unsubscribed`
 *   frame or one error frame without an id, so they are matched first-in first-out. A
 *   subscription's frames are routed by the identity the server echoes (channel, id, accountIndex,
 *   market, sigFigs, roundStep); one connection holds one subscription per identity.
 * - RPC messages carry a numeric id, unique among the calls in flight; the reply echoes it.
 *   A reply with `status` ≥ 400, `type: "error"` or an `error` rejects with `ApiError`.
 * - Order writes sign exactly as on REST (`orders.ts`): the body is the `payload`, the
 *   signature and timestamp go in the envelope (`apiKey`, `timestamp`, `signature`); batches
 *   carry only apiKey and timestamp outside, each element its own signature. Scheme 2 methods
 *   sign the request `type` as the action.
 * - When the socket closes without `close()` (the server sends 1001 before a restart; a network
 *   drop gives 1006), calls in flight reject with `ConnectionClosedError` (their outcome is
 *   unknown), and the client reconnects after `initialDelayMs`, doubling up to `maxDelayMs`, and
 *   subscribes again to everything: each subscription receives a fresh `subscribed` frame with
 *   `resubscribed: true`, a new baseline (nothing continues across a reconnect).
 * - Node 20 has no global WebSocket: without a `WebSocket` option the `ws` package is loaded;
 *   a browser's own WebSocket is used where it exists.
 */
import { apiErrorFromRpc, throwIfRejected } from './errors.ts';
import type { CancelOrderInput, ModifyOrderInput, OrderRef, OrderSigner, PlaceOrderInput, Scope, SignedBody } from './orders.ts';
import type { ModifyItem } from './rest.ts';
import { canonicalJson, scheme2Message, type Json } from './sign.ts';
import type { AdjustMarginReply, BatchReply, CancelAllReply, ChannelContents, ChannelName, OrderAck, ScheduleCancelReply, SetLeverageReply } from './types.ts';

/** The members the client uses; the browser's WebSocket and the `ws` package both have them. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

const OPEN = 1;

export class ConnectionClosedError extends Error {
  constructor(readonly code: number) {
    super(`the connection closed (code ${code}) before the reply arrived`);
    this.name = 'ConnectionClosedError';
  }
}

export interface ReconnectOptions {
  /** Default 250 ms. */
  initialDelayMs?: number;
  /** Default 10 s. */
  maxDelayMs?: number;
}

export interface WsOptions {
  /** `ws(s)://host/v1/ws`. */
  url: string;
  WebSocket?: WebSocketConstructor;
  /** Off with `false`; on by default. */
  reconnect?: ReconnectOptions | false;
  /** Signs RPC order writes (and Scheme 2 methods). */
  signer?: OrderSigner;
  /** How long an RPC may wait for its reply (default 30 s). */
  rpcTimeoutMs?: number;
}

export interface SubscribeRequest<C extends ChannelName = ChannelName> {
  channel: C;
  /** Market display name (or id) on market channels, `<market>/<timeframe>` for candles, the address on account channels. */
  id?: string;
  accountIndex?: number;
  /** Narrows positions / orders / userFills to one market. */
  market?: string;
  nLevels?: number;
  sigFigs?: number;
  roundStep?: 1 | 2 | 5;
  nFills?: number;
  /** false: no snapshot in the subscribed frame. */
  snapshot?: boolean;
}

export interface ChannelFrame<C extends ChannelName = ChannelName> {
  type: 'subscribed' | 'channel_data';
  channel: C;
  id?: string;
  accountIndex?: number;
  market?: string;
  sigFigs?: number;
  roundStep?: number;
  contents: ChannelContents[C];
  /** On the subscribed frame sent again after a reconnect or `resubscribe()`. */
  resubscribed?: boolean;
}

export type FrameHandler<C extends ChannelName> = (frame: ChannelFrame<C>) => void;

export interface Subscription<C extends ChannelName = ChannelName> {
  readonly request: SubscribeRequest<C>;
  /** The first subscribed frame (its contents are the snapshot, when the channel has one). */
  readonly subscribed: ChannelFrame<C>;
  /** Unsubscribe and subscribe again, back to back: the next subscribed frame is a new baseline. */
  resubscribe(): void;
  unsubscribe(): Promise<void>;
}

interface ActiveSubscription {
  request: SubscribeRequest;
  handler: (frame: ChannelFrame) => void;
  /** The server's identity of it, known once subscribed. */
  key: string | undefined;
  closed: boolean;
}

interface Control {
  kind: 'subscribe' | 'unsubscribe';
  sub: ActiveSubscription;
  /** The subscription's first subscribe: its caller is still waiting. */
  first: boolean;
  resolve(frame: ChannelFrame): void;
  reject(error: Error): void;
}

interface PendingCall {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

type Listener = (event: { type: 'open' | 'close' | 'degraded' | 'error'; code?: number; reason?: string; detail?: unknown }) => void;

function identity(frame: Record<string, unknown>): string {
  return [frame.channel, frame.id ?? '', frame.accountIndex ?? '', frame.market ?? '', frame.sigFigs ?? '', frame.roundStep ?? ''].join('|');
}

async function defaultWebSocket(): Promise<WebSocketConstructor> {
  const global = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof global === 'function') return global as WebSocketConstructor;
  const module = await import('ws');
  return module.default as unknown as WebSocketConstructor;
}

export class WsClient {
  private socket: WebSocketLike | undefined;
  private opening: Promise<void> | undefined;
  private readonly subs = new Set<ActiveSubscription>();
  private readonly byKey = new Map<string, ActiveSubscription>();
  private controls: Control[] = [];
  private readonly calls = new Map<number, PendingCall>();
  private nextId = 1;
  private attempt = 0;
  private closedByUser = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<Listener>();
  /** Reconnections made so far. */
  reconnects = 0;

  constructor(private readonly options: WsOptions) {}

  /** Listens to open / close / degraded (slow consumer) / error events; returns the remover. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: Parameters<Listener>[0]): void {
    for (const listener of this.listeners) listener(event);
  }

  get connected(): boolean {
    return this.socket?.readyState === OPEN;
  }

  /** Opens the socket (once); resolves when it is open. */
  connect(): Promise<void> {
    this.closedByUser = false;
    if (this.connected) return Promise.resolve();
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async open(): Promise<void> {
    const Impl = this.options.WebSocket ?? (await defaultWebSocket());
    await new Promise<void>((resolve, reject) => {
      const socket = new Impl(this.options.url);
      this.socket = socket;
      let opened = false;
      socket.onopen = () => {
        opened = true;
        this.attempt = 0;
        this.emit({ type: 'open' });
        resolve();
        for (const sub of this.subs) this.sendSubscribe(sub, true);
      };
      socket.onmessage = (event) => this.receive(event.data);
      socket.onerror = (event) => {
        this.emit({ type: 'error', detail: event });
        if (!opened) reject(new Error(`cannot connect to ${this.options.url}`));
      };
      socket.onclose = (event) => {
        if (this.socket === socket) this.socket = undefined;
        this.dropInFlight(event.code);
        this.emit({ type: 'close', code: event.code, reason: event.reason });
        if (!opened) reject(new Error(`cannot connect to ${this.options.url} (close ${event.code})`));
        this.scheduleReconnect();
      };
    });
  }

  private dropInFlight(code: number): void {
    for (const [id, call] of this.calls) {
      clearTimeout(call.timer);
      call.reject(new ConnectionClosedError(code));
      this.calls.delete(id);
    }
    const controls = this.controls;
    this.controls = [];
    for (const control of controls) {
      // An unsubscribe the server never answered is done anyway: the connection is gone. A
      // subscription that was live is subscribed again on reconnect; a first subscribe fails.
      if (control.kind === 'unsubscribe') control.resolve(undefined as unknown as ChannelFrame);
      else if (control.first) control.reject(new ConnectionClosedError(code));
    }
    this.byKey.clear();
    for (const sub of this.subs) sub.key = undefined;
  }

  private willReconnect(): boolean {
    return !this.closedByUser && this.options.reconnect !== false;
  }

  private scheduleReconnect(): void {
    if (!this.willReconnect() || this.reconnectTimer !== undefined) return;
    const settings = this.options.reconnect === false ? {} : (this.options.reconnect ?? {});
    const delay = Math.min(settings.maxDelayMs ?? 10_000, (settings.initialDelayMs ?? 250) * 2 ** this.attempt);
    this.attempt++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.willReconnect()) return;
      this.reconnects++;
      this.connect().catch(() => this.scheduleReconnect());
    }, delay);
  }

  /** Closes for good: no reconnection; calls in flight reject. */
  async close(): Promise<void> {
    this.closedByUser = true;
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const socket = this.socket;
    if (socket === undefined) return;
    await new Promise<void>((resolve) => {
      const previous = socket.onclose;
      socket.onclose = (event) => {
        previous?.(event);
        resolve();
      };
      socket.close(1000);
    });
  }

  private send(frame: unknown): void {
    if (this.socket === undefined || this.socket.readyState !== OPEN) throw new ConnectionClosedError(0);
    // Canonical JSON writes the body's bigint `timestamp` as exact digits.
    this.socket.send(canonicalJson(frame as Json));
  }

  // Subscriptions ------------------------------------------------------------------------------

  /**
   * Subscribes; resolves once the server answered `subscribed` (with the snapshot). `handler`
   * gets that frame too, and every later `channel_data` and `subscribed` frame of it.
   */
  async subscribe<C extends ChannelName>(request: SubscribeRequest<C>, handler: FrameHandler<C>): Promise<Subscription<C>> {
    await this.connect();
    const sub: ActiveSubscription = { request, handler: handler as unknown as (frame: ChannelFrame) => void, key: undefined, closed: false };
    this.subs.add(sub);
    let first: ChannelFrame;
    try {
      first = await this.sendSubscribe(sub, false);
    } catch (error) {
      this.subs.delete(sub);
      throw error;
    }
    return {
      request,
      subscribed: first as ChannelFrame<C>,
      resubscribe: () => {
        if (sub.closed || !this.connected) return;
        this.sendUnsubscribe(sub).catch(() => undefined);
        this.sendSubscribe(sub, true).catch(() => undefined);
      },
      unsubscribe: async () => {
        if (sub.closed) return;
        sub.closed = true;
        this.subs.delete(sub);
        if (this.connected) await this.sendUnsubscribe(sub);
      },
    };
  }

  private sendSubscribe(sub: ActiveSubscription, again: boolean): Promise<ChannelFrame> {
    return new Promise<ChannelFrame>((resolve, reject) => {
      this.controls.push({
        kind: 'subscribe',
        sub,
        first: !again,
        resolve: (frame) => {
          resolve(frame);
          sub.handler(again ? { ...frame, resubscribed: true } : frame);
        },
        reject,
      });
      this.send({ type: 'subscribe', ...sub.request });
    });
  }

  private sendUnsubscribe(sub: ActiveSubscription): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.controls.push({ kind: 'unsubscribe', sub, first: false, resolve: () => resolve(), reject });
      const { snapshot: _snapshot, nFills: _nFills, ...identityFields } = sub.request;
      this.send({ type: 'unsubscribe', ...identityFields });
    });
  }

  private receive(data: unknown): void {
    const frame = JSON.parse(typeof data === 'string' ? data : String(data)) as Record<string, unknown>;
    if (typeof frame.id === 'number' && this.calls.has(frame.id)) return this.settleCall(frame.id, frame);
    switch (frame.type) {
      case 'subscribed':
      case 'unsubscribed': {
        // A slow consumer's fresh snapshot once it drained: no request of ours answers it.
        if (frame.resync === true) {
          const sub = this.byKey.get(identity(frame));
          if (sub !== undefined && !sub.closed) sub.handler(frame as unknown as ChannelFrame);
          return;
        }
        const control = this.controls.shift();
        if (control === undefined) return;
        const key = identity(frame);
        if (frame.type === 'subscribed') {
          control.sub.key = key;
          this.byKey.set(key, control.sub);
        } else if (this.byKey.get(key) === control.sub) {
          this.byKey.delete(key);
        }
        control.resolve(frame as unknown as ChannelFrame);
        return;
      }
      case 'channel_data': {
        const sub = this.byKey.get(identity(frame));
        if (sub !== undefined && !sub.closed) sub.handler(frame as unknown as ChannelFrame);
        return;
      }
      case 'degraded':
        this.emit({ type: 'degraded', reason: String(frame.reason ?? ''), detail: frame });
        return;
      case 'error': {
        const error = apiErrorFromRpc(Number(frame.status ?? 400), frame.error);
        const control = this.controls.shift();
        if (control !== undefined) control.reject(error);
        else this.emit({ type: 'error', detail: error });
        return;
      }
    }
  }

  // RPC ----------------------------------------------------------------------------------------

  private settleCall(id: number, frame: Record<string, unknown>): void {
    const call = this.calls.get(id)!;
    this.calls.delete(id);
    clearTimeout(call.timer);
    const status = Number(frame.status ?? 200);
    if (status >= 400 || frame.type === 'error' || (frame.error !== undefined && frame.error !== null)) call.reject(apiErrorFromRpc(status, frame.error));
    else call.resolve(frame.result);
  }

  private call<T>(type: 'post' | 'get', request: Record<string, unknown>): Promise<T> {
    return this.connect().then(
      () =>
        new Promise<T>((resolve, reject) => {
          const id = this.nextId++;
          const timer = setTimeout(() => {
            this.calls.delete(id);
            reject(new Error(`no reply to ${String(request.type)} (id ${id})`));
          }, this.options.rpcTimeoutMs ?? 30_000);
          this.calls.set(id, { resolve: resolve as (result: unknown) => void, reject, timer });
          try {
            this.send({ type, id, request });
          } catch (error) {
            clearTimeout(timer);
            this.calls.delete(id);
            reject(error as Error);
          }
        }),
    );
  }

  /** A read over the socket, e.g. `get('l2orderbook', {market: 'BTC-USD'})`, `get('orders', {address})`. */
  get<T = unknown>(method: string, payload: Record<string, unknown> = {}): Promise<T> {
    return this.call<T>('get', { type: method, payload });
  }

  /** A write over the socket with a ready envelope (apiKey / timestamp / signature as needed). */
  post<T = unknown>(method: string, payload: Record<string, unknown>, envelope: { apiKey?: string; timestamp?: string; signature?: string } = {}): Promise<T> {
    return this.call<T>('post', { type: method, payload, ...envelope });
  }

  private get signer(): OrderSigner {
    if (this.options.signer === undefined) throw new TypeError('RPC writes need the client\'s API key and address');
    return this.options.signer;
  }

  private postSigned<T>(method: string, signed: SignedBody, ts: bigint): Promise<T> {
    return this.post<T>(method, signed.body, { apiKey: this.signer.key.publicKey, timestamp: ts.toString(), signature: signed.signature });
  }

  async placeOrder(input: PlaceOrderInput): Promise<OrderAck> {
    const ts = this.signer.now();
    return throwIfRejected(await this.postSigned<OrderAck>('placeOrder', await this.signer.place(input, ts), ts));
  }

  async cancelOrder(input: CancelOrderInput): Promise<OrderAck> {
    const ts = this.signer.now();
    return throwIfRejected(await this.postSigned<OrderAck>('cancelOrder', await this.signer.cancel(input, ts), ts));
  }

  async modifyOrder(target: OrderRef, change: ModifyOrderInput): Promise<OrderAck> {
    const ts = this.signer.now();
    return throwIfRejected(await this.postSigned<OrderAck>('modifyOrder', await this.signer.modify(target, change, ts), ts));
  }

  batchPlaceOrders(orders: readonly PlaceOrderInput[]): Promise<BatchReply> {
    return this.batch('batchPlaceOrders', 'orders', orders, (input, ts) => this.signer.place(input, ts));
  }

  batchCancelOrders(cancels: readonly CancelOrderInput[]): Promise<BatchReply> {
    return this.batch('batchCancelOrders', 'cancels', cancels, (input, ts) => this.signer.cancel(input, ts));
  }

  batchModifyOrders(modifies: readonly ModifyItem[]): Promise<BatchReply> {
    return this.batch('batchModifyOrders', 'modifies', modifies, (item, ts) => this.signer.modify(item.target, item.change, ts));
  }

  private async batch<I>(method: string, field: string, items: readonly I[], sign: (item: I, ts: bigint) => Promise<SignedBody>): Promise<BatchReply> {
    const ts = this.signer.now();
    const elements = await Promise.all(items.map((item) => sign(item, ts)));
    const payload = { [field]: elements.map(({ body, signature }) => ({ ...body, signature })) };
    return this.post<BatchReply>(method, payload, { apiKey: this.signer.key.publicKey, timestamp: ts.toString() });
  }

  /** A Scheme 2 method: the request type is the signed action. */
  async postScheme2<T>(method: string, payload: Record<string, unknown>): Promise<T> {
    const ts = this.signer.now();
    const signature = await this.signer.key.sign(scheme2Message(ts, method, payload as Json));
    return this.post<T>(method, payload, { apiKey: this.signer.key.publicKey, timestamp: ts.toString(), signature });
  }

  async cancelAllOrders(options: Scope & { market?: string | number; validUntil?: number } = {}): Promise<CancelAllReply> {
    return this.postScheme2('cancelAllOrders', await this.signer.accountBody(options, { validUntil: options.validUntil }));
  }

  async scheduleCancel(options: Scope & { time?: number | null; market?: string | number } = {}): Promise<ScheduleCancelReply> {
    return this.postScheme2('scheduleCancel', await this.signer.accountBody(options, { time: options.time ?? undefined }));
  }

  /** Answers 202 ACK at once; the outcome follows on accountAttributeUpdates (same requestId). */
  async setLeverage(options: Scope & { market: string | number; leverage: number; isolated?: boolean }): Promise<SetLeverageReply> {
    return this.postScheme2('setLeverage', await this.signer.accountBody(options, { leverage: options.leverage, isolated: options.isolated }));
  }

  /** The outcome also reaches the positions channel, correlated by requestId. */
  async adjustIsolatedMargin(options: Scope & { market: string | number; amount: string }): Promise<AdjustMarginReply> {
    return this.postScheme2('adjustIsolatedMargin', await this.signer.accountBody(options, { amount: options.amount }));
  }
}
