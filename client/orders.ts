/**
 * Order-write bodies and their Scheme 1 signatures, shared by REST and WebSocket RPC: the same
 * body goes in a POST or in an RPC `payload`, the same signature in X-Signature or the
 * envelope's `signature` (batch elements carry their own).
 *
 * Bodies follow supplement §2: placeOrder `address, accountIndex, marketId, orderSide,
 * orderType, timeInForce, quantity, price, goodTilTime (µs string), timestamp (ns int),
 * clientId?, reduceOnly`; cancelOrder `address, accountIndex, marketId, timestamp` + one of
 * orderId / clientId; modifyOrder `address, accountIndex, marketId, orderId, side, quantity,
 * price, timeInForce, reduceOnly, clientTime (ns string)` + goodTilTime when it changes. Every
 * element of one request signs the request's X-Timestamp as `ct`.
 */
import { normalizeAddress, cancelPayload, modifyPayload, placePayload } from './sign.ts';
import type { RequestSigner } from './keys.ts';
import { toUnits } from './units.ts';
import type { Market, OrderType, Side, TimeInForce, TpslType } from './types.ts';

/** µs in a day. */
const DAY_US = 86_400_000_000n;

/** Which subaccount a call acts on; the client's defaults fill what is left out. */
export interface Scope {
  address?: string;
  accountIndex?: number;
}

export interface PlaceOrderInput extends Scope {
  /** Display name (case-insensitive) or marketId. */
  market: string | number;
  side: Side;
  price: string;
  quantity: string;
  /** LIMIT by default. */
  type?: OrderType;
  /** GTT by default; IOC for MARKET orders. */
  timeInForce?: TimeInForce;
  clientId?: string;
  reduceOnly?: boolean;
  /** Epoch µs; by default now + `goodTilDays` (40). */
  goodTilTime?: string;
  /** A TPSL order (op 4; REST only). */
  tpslType?: TpslType;
  stopPrice?: string;
  isPositionTPSL?: boolean;
}

export type CancelOrderInput = Scope & { market: string | number } & ({ orderId: string; clientId?: undefined } | { clientId: string; orderId?: undefined });

/**
 * The resting order a modify names: what the signature echoes (interface.md Scheme 1 rule 1).
 * An `Order` record from REST or the orders channel has every field.
 */
export interface OrderRef {
  marketId: number;
  orderId: string;
  clientId?: string | undefined;
  side: Side | string;
  timeInForce?: TimeInForce | string | undefined;
  reduceOnly?: boolean | undefined;
  /** µs. */
  goodTilTime?: string | undefined;
}

export interface ModifyOrderInput extends Scope {
  price: string;
  /** The new total size, filled part included. */
  quantity: string;
  /** A new expiry (µs): a cancel-replace. */
  goodTilTime?: string;
}

export interface SignedBody {
  body: Record<string, unknown>;
  signature: string;
}

/** A nanosecond clock that never repeats a reading (each signed request needs its own bytes). */
export class NanoClock {
  private last = 0n;
  /** Server minus local, ns (see `sync`). */
  offsetNs = 0n;

  constructor(private readonly wallMs: () => number = Date.now) {}

  now(): bigint {
    const wall = BigInt(this.wallMs()) * 1_000_000n + this.offsetNs;
    this.last = wall > this.last ? wall : this.last + 1n;
    return this.last;
  }

  /** Aligns with a server reading (`GET /v1/time`), e.g. a perpsim whose clock was moved. */
  sync(serverNs: bigint): void {
    this.offsetNs = serverNs - BigInt(this.wallMs()) * 1_000_000n;
  }
}

export interface OrderSignerOptions {
  key: RequestSigner | undefined;
  address: string | undefined;
  accountIndex: number;
  clock: NanoClock;
  market: (selector: string | number) => Promise<Market>;
  /** goodTilTime default, days ahead (the venue wants at least a month; clients send 40-45). */
  goodTilDays?: number;
}

export class OrderSigner {
  constructor(private readonly options: OrderSignerOptions) {}

  get key(): RequestSigner {
    if (this.options.key === undefined) throw new TypeError('this call is signed: give the client an API key');
    return this.options.key;
  }

  scope(scope: Scope = {}): { address: string; accountIndex: number } {
    const address = scope.address ?? this.options.address;
    if (address === undefined) throw new TypeError('no address: give one to the client or to the call');
    return { address: normalizeAddress(address), accountIndex: scope.accountIndex ?? this.options.accountIndex };
  }

  get accountIndex(): number {
    return this.options.accountIndex;
  }

  now(): bigint {
    return this.options.clock.now();
  }

  market(selector: string | number): Promise<Market> {
    return this.options.market(selector);
  }

  /**
   * The body of a Scheme 2 account write: address, accountIndex, the marketId of `market` when
   * given, then `fields` (undefined ones are left out when written).
   */
  async accountBody(options: Scope & { market?: string | number | undefined }, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = { ...this.scope(options) };
    if (options.market !== undefined) body.marketId = (await this.market(options.market)).marketId;
    return { ...body, ...fields };
  }

  defaultGoodTil(ts: bigint): string {
    return (ts / 1000n + BigInt(this.options.goodTilDays ?? 40) * DAY_US).toString();
  }

  async place(input: PlaceOrderInput, ts: bigint): Promise<SignedBody> {
    const { address, accountIndex } = this.scope(input);
    const market = await this.market(input.market);
    const type = input.type ?? 'LIMIT';
    const timeInForce = input.timeInForce ?? (type === 'MARKET' ? 'IOC' : 'GTT');
    const goodTilTime = input.goodTilTime ?? this.defaultGoodTil(ts);
    const reduceOnly = input.reduceOnly === true;
    const tpsl = input.tpslType !== undefined;
    const signature = await this.key.sign(
      placePayload(
        {
          address,
          accountIndex,
          clientId: input.clientId,
          clientTimeNs: ts,
          goodTilTimeUs: BigInt(goodTilTime),
          marketId: market.marketId,
          priceTicks: toUnits(input.price, market.tickSize, 'price'),
          sizeQuantums: toUnits(input.quantity, market.stepSize, 'quantity'),
          reduceOnly,
          side: input.side,
          timeInForce,
        },
        tpsl,
      ),
    );
    const body: Record<string, unknown> = {
      address,
      accountIndex,
      marketId: market.marketId,
      orderSide: input.side,
      orderType: type,
      timeInForce,
      quantity: input.quantity,
      price: input.price,
      goodTilTime,
      timestamp: ts,
      reduceOnly,
    };
    if (input.clientId !== undefined) body.clientId = input.clientId;
    if (tpsl) {
      body.tpsl_type = input.tpslType;
      if (input.stopPrice !== undefined) body.stopPrice = input.stopPrice;
      if (input.isPositionTPSL !== undefined) body.isPositionTPSL = input.isPositionTPSL;
    }
    return { body, signature };
  }

  async cancel(input: CancelOrderInput, ts: bigint): Promise<SignedBody> {
    const { address, accountIndex } = this.scope(input);
    const market = await this.market(input.market);
    const signature = await this.key.sign(cancelPayload({ address, accountIndex, marketId: market.marketId, clientTimeNs: ts, orderId: input.orderId, clientId: input.clientId }));
    const body: Record<string, unknown> = { address, accountIndex, marketId: market.marketId, timestamp: ts };
    if (input.orderId !== undefined) body.orderId = input.orderId;
    else body.clientId = input.clientId;
    return { body, signature };
  }

  async modify(target: OrderRef, change: ModifyOrderInput, ts: bigint): Promise<SignedBody> {
    const { address, accountIndex } = this.scope(change);
    const market = await this.market(target.marketId);
    const goodTilTime = change.goodTilTime ?? target.goodTilTime;
    if (goodTilTime === undefined) throw new TypeError('modifyOrder: the target order needs its goodTilTime (it is signed)');
    const timeInForce = target.timeInForce ?? 'GTT';
    const reduceOnly = target.reduceOnly === true;
    const signature = await this.key.sign(
      modifyPayload({
        address,
        accountIndex,
        clientId: target.clientId === '' ? undefined : target.clientId,
        clientTimeNs: ts,
        goodTilTimeUs: BigInt(goodTilTime),
        marketId: market.marketId,
        orderId: target.orderId,
        priceTicks: toUnits(change.price, market.tickSize, 'price'),
        sizeQuantums: toUnits(change.quantity, market.stepSize, 'quantity'),
        reduceOnly,
        side: target.side,
        timeInForce,
      }),
    );
    const body: Record<string, unknown> = {
      address,
      accountIndex,
      marketId: market.marketId,
      orderId: target.orderId,
      side: target.side.toUpperCase(),
      quantity: change.quantity,
      price: change.price,
      timeInForce,
      reduceOnly,
      clientTime: ts.toString(),
    };
    if (change.goodTilTime !== undefined) body.goodTilTime = change.goodTilTime;
    return { body, signature };
  }
}
