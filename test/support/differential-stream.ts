/**
 * Seeded random command streams for the differential test (live engine against the reference
 * engine in test/reference/engine/): every command kind of the engine's `Command` union, with
 * the market shape that makes the rare paths happen for real.
 *
 * The population: well-funded makers quote around the oracle (and now and then pull all their
 * quotes, leaving the book thin); punters with a few hundred USD trade at up to 20x, cross or
 * isolated; oracle walks with occasional 10-30 % jumps push leveraged positions through
 * maintenance, and with a small insurance fund and a thin book the liquidation order cannot
 * absorb them all, so ADL runs. Clock steps cross hours (funding, borrow interest), months (GTT
 * expiry) and switch deadlines.
 *
 * The stream is a pure function of the seed and of the results the reference engine returns
 * (`observe`): it learns orderIds from them, so modifies and cancels name real orders.
 */
import type { BatchOrder, Command, CommandType, EngineConfig, EngineEvent, MarketDef, PlaceOrderCommand, SideCode, TifCode } from '../../engine/types.ts';
import type { TpslType } from '../../engine/spec.ts';
import { createPrng, type Prng } from '../../sim/prng.ts';
import { testMarket } from './engine-fixture.ts';

const UNIT_USD = 1_000_000_000n;
const DAY_US = 86_400_000_000;
const HOUR_US = 3_600_000_000;
export const STREAM_T0 = 1_700_000_000_000_000;

/** Every command kind: the compiler checks that the list is the whole union. */
export const COMMAND_KINDS = [
  'addMarket', 'setMarketStatus', 'setOraclePrice', 'deposit', 'withdraw', 'transfer', 'setLeverage', 'adjustIsolatedMargin',
  'placeOrder', 'batchPlace', 'cancelOrder', 'cancelAll', 'modifyOrder', 'scheduleCancel', 'advanceTime', 'setHalt',
  'setFundingRate', 'forceLiquidation', 'creditCommission',
] as const satisfies readonly CommandType[];
type MissingCommand = Exclude<CommandType, (typeof COMMAND_KINDS)[number]>;
const commandsComplete: [MissingCommand] extends [never] ? true : MissingCommand = true;
void commandsComplete;

export type EventKind = EngineEvent['type'];
/** Every event kind: the compiler checks that the list is the whole union. */
export const EVENT_KINDS = [
  'order', 'fill', 'trades', 'book', 'bbo', 'rejected', 'switch', 'market', 'prices', 'transfer', 'position', 'leverage',
  'funding', 'fundingRate', 'predictedFunding', 'interest', 'liquidation', 'adl',
] as const satisfies readonly EventKind[];
type MissingEvent = Exclude<EventKind, (typeof EVENT_KINDS)[number]>;
const eventsComplete: [MissingEvent] extends [never] ? true : MissingEvent = true;
void eventsComplete;

function market(id: number): MarketDef {
  return testMarket({ id, displayName: `M${id}-USD`, baseAsset: `M${id}` });
}

/** The configuration both engines start from: two markets, a small insurance fund (so ADL runs). */
export function differentialConfig(): EngineConfig {
  return { markets: [market(1), market(2)], risk: { insuranceFund: 100n * UNIT_USD } };
}

interface Acct {
  address: string;
  accountIndex: number;
  maker: boolean;
}

interface Known {
  account: number;
  marketId: number;
  side: SideCode;
  clientId: string | undefined;
  goodTilTime: number;
}

const hex = (n: number, digit: string): string => '0x' + digit.repeat(39) + n.toString(16);

export interface CommandStream {
  next(): Command;
  /** Feeds back the reference engine's result of the command `next` last returned. */
  observe(command: Command, result: unknown): void;
}

/**
 * Where prices and sizes sit. The default keeps prices on the first tick tier (1 tick = 0.1 USD up
 * to 1000 USD) and above 30 USD, sizes of a few hundred to a few thousand USD. `priceScale`
 * multiplies the start prices and the upper bound, so the walk crosses into the 0.5 and 1 USD
 * tiers (testMarket's tickTiers; 9 of 10 prices then snap to their tier's tick, the rest are
 * refused); `sizeScale` multiplies every size (capped at maxOrderSize) and every dollar amount,
 * so that notionals and balances run past 2^53 quantums. Both 1: the stream of every test.
 */
export interface StreamShape {
  priceScale: number;
  sizeScale: number;
}

const MIN_PRICE = 300;
const MAX_PRICE = 9_000;
/** testMarket's maxOrderSize (100,000 units) in quantums. */
const MAX_SIZE = 100_000_000;

export function createCommandStream(seed: number, shape: StreamShape = { priceScale: 1, sizeScale: 1 }): CommandStream {
  const rng: Prng = createPrng(seed);
  const { priceScale, sizeScale } = shape;
  const scaled = priceScale !== 1;
  // A second generator for the tier snapping, so that the default stream draws exactly as before.
  const tierRng: Prng = createPrng(seed ^ 0x71e5);
  const maxPrice = MAX_PRICE * priceScale;
  const tierTick = (p: number): number => (p <= 10_000 ? 1 : p <= 100_000 ? 5 : 10);
  const clampPrice = (p: number): number => {
    const c = Math.min(maxPrice, Math.max(MIN_PRICE, Math.round(p)));
    if (!scaled || tierRng.next() < 0.1) return c;
    const t = tierTick(c);
    return Math.max(t, Math.round(c / t) * t);
  };
  const USD = UNIT_USD * BigInt(sizeScale);
  const accounts: Acct[] = [];
  for (let i = 0; i < 4; i++) accounts.push({ address: hex(i, 'a'), accountIndex: 0, maker: true });
  for (let i = 0; i < 6; i++) {
    accounts.push({ address: hex(i, 'b'), accountIndex: 0, maker: false });
    accounts.push({ address: hex(i, 'b'), accountIndex: 1, maker: false });
  }
  const makers = accounts.filter((a) => a.maker);
  const punters = accounts.filter((a) => !a.maker);
  const marketIds: number[] = [1, 2];
  const oracle = new Map<number, number>([[1, 1000 * priceScale], [2, 2500 * priceScale]]);
  const known = new Map<number, Known>();
  const offline = new Set<number>();
  const recent: number[][] = accounts.map(() => []);
  const usedNonces: string[] = [];
  let nonce = 0;
  let time = STREAM_T0;
  const queue: Command[] = [];
  for (const id of marketIds) queue.push({ type: 'setOraclePrice', time, marketId: id, price: oracle.get(id)! });
  for (const a of makers) queue.push({ type: 'deposit', time, address: a.address, accountIndex: a.accountIndex, amount: 10_000_000n * USD });
  for (const a of punters) queue.push({ type: 'deposit', time, address: a.address, accountIndex: a.accountIndex, amount: BigInt(100 + rng.int(400)) * USD });

  const pickMarket = (): number => (rng.next() < 0.85 ? rng.int(2) + 1 : rng.pick(marketIds));
  const px = (marketId: number): number => oracle.get(marketId) ?? 1000;
  const gtt = (): number => time + 30 * DAY_US + rng.int(3_600) * 1_000_000;
  const clientId = (): string | undefined => (rng.next() < 0.25 ? 'c' + rng.int(30) : undefined);
  const ref = (a: Acct) => ({ address: a.address, accountIndex: a.accountIndex });
  const own = (i: number): number | undefined => {
    const ids = recent[i]!;
    return ids.length === 0 ? undefined : ids[ids.length - 1 - rng.int(Math.min(ids.length, rng.next() < 0.7 ? 6 : 60))];
  };
  /** A size (quantums) worth `usd` dollars at `price` ticks (1000 quantums = 1 unit, 10 ticks = 1 USD). */
  const sizeFor = (usd: number, price: number): number => Math.min(MAX_SIZE, Math.max(1, Math.round((usd * 10_000 * sizeScale) / price)));

  const order = (a: Acct, marketId: number, side: SideCode, o: Partial<PlaceOrderCommand>): PlaceOrderCommand => ({
    type: 'placeOrder',
    time,
    ...ref(a),
    marketId,
    side,
    orderType: 0,
    tif: 0,
    price: px(marketId),
    size: 1000,
    reduceOnly: false,
    clientId: undefined,
    goodTilTime: gtt(),
    ...o,
  });

  const makerQuote = (): Command => {
    const a = rng.pick(makers);
    const marketId = pickMarket();
    const side = rng.int(2) as SideCode;
    const p = px(marketId);
    const offset = 1 + rng.int(Math.max(2, Math.floor(p * 0.01)));
    const price = clampPrice(side === 0 ? p - offset : p + offset);
    const tif: TifCode = rng.next() < 0.2 ? 3 : 0;
    return order(a, marketId, side, { tif, price, size: sizeFor(200 + rng.int(3_000), price), clientId: clientId() });
  };

  const punterOrder = (): Command => {
    const a = rng.pick(punters);
    const marketId = pickMarket();
    const side = rng.int(2) as SideCode;
    const p = px(marketId);
    const r = rng.next();
    const reduceOnly = rng.next() < 0.12;
    const size = sizeFor(50 + rng.int(r < 0.3 ? 6_000 : 2_500), p);
    if (r < 0.35) {
      // MARKET: IOC within 10 % of the mark (the oracle is near it).
      const worst = clampPrice(side === 0 ? p * (1 + rng.int(80) / 1000) : p * (1 - rng.int(80) / 1000));
      return order(a, marketId, side, { orderType: 1, tif: 2, price: worst, size, reduceOnly });
    }
    const through = rng.next() < 0.5;
    const offset = rng.int(Math.max(2, Math.floor(p * 0.01)));
    const price = clampPrice(side === 0 ? (through ? p + offset : p - offset) : through ? p - offset : p + offset);
    const t = rng.next();
    const tif: TifCode = t < 0.5 ? 0 : t < 0.7 ? 2 : t < 0.85 ? 1 : 3;
    return order(a, marketId, side, { tif, price, size, reduceOnly, clientId: clientId() });
  };

  /** A TPSL leg on the side where it waits (on the wrong side now and then: invalid). */
  const tpslLeg = (a: Acct, marketId: number, side: SideCode, tpslType: TpslType, size: number, positionTpsl: boolean): BatchOrder => {
    const p = px(marketId);
    const below = side === 1 ? tpslType === 'STOP_LOSS' : tpslType === 'TAKE_PROFIT';
    const distance = Math.max(1, Math.floor((p * (1 + rng.int(60))) / 1000));
    const wrong = rng.next() < 0.03;
    const stopPrice = clampPrice(below !== wrong ? p - distance : p + distance);
    const market = rng.next() < 0.5;
    const price = market ? clampPrice(side === 0 ? stopPrice * 1.05 : stopPrice * 0.95) : clampPrice(side === 0 ? stopPrice + 2 : stopPrice - 2);
    return {
      ...ref(a),
      marketId,
      side,
      orderType: market ? 1 : 0,
      tif: market ? 2 : 0,
      price,
      size: positionTpsl ? 0 : size,
      reduceOnly: true,
      clientId: clientId(),
      goodTilTime: gtt(),
      tpslType,
      stopPrice,
      isPositionTpsl: positionTpsl ? true : undefined,
    };
  };

  const tpslPlacement = (): Command => {
    const a = rng.pick(punters);
    const marketId = pickMarket();
    const side = rng.int(2) as SideCode;
    const position = rng.next() < 0.3;
    const leg = tpslLeg(a, marketId, side, rng.next() < 0.5 ? 'STOP_LOSS' : 'TAKE_PROFIT', sizeFor(100 + rng.int(2_000), px(marketId)), position);
    return { type: 'placeOrder', time, ...leg };
  };

  const batch = (): Command => {
    const r = rng.next();
    const a = rng.pick(punters);
    const marketId = pickMarket();
    const side = rng.int(2) as SideCode;
    const legTypes = (): TpslType[] => (rng.next() < 0.5 ? ['STOP_LOSS', 'TAKE_PROFIT'] : [rng.next() < 0.5 ? 'STOP_LOSS' : 'TAKE_PROFIT']);
    const strip = (c: Command): BatchOrder => {
      const { type: _t, time: _time, ...rest } = c as PlaceOrderCommand;
      return rest;
    };
    if (r < 0.4) {
      const orders: BatchOrder[] = [];
      const n = 1 + rng.int(5);
      for (let i = 0; i < n; i++) orders.push(strip(rng.next() < 0.5 ? makerQuote() : punterOrder()));
      return { type: 'batchPlace', time, orders };
    }
    const size = sizeFor(100 + rng.int(1_500), px(marketId));
    if (r < 0.65) {
      const entry = strip(order(a, marketId, side, { tif: rng.next() < 0.5 ? 0 : 2, price: clampPrice(px(marketId) * (side === 0 ? 1.002 : 0.998)), size, clientId: clientId() }));
      const legs = legTypes().map((t) => tpslLeg(a, marketId, (1 - side) as SideCode, t, size, false));
      return { type: 'batchPlace', time, grouping: 'entryTpsl', orders: [entry, ...legs] };
    }
    if (r < 0.85) return { type: 'batchPlace', time, grouping: 'partialTpsl', orders: legTypes().map((t) => tpslLeg(a, marketId, side, t, size, false)) };
    return { type: 'batchPlace', time, grouping: 'positionTpsl', orders: legTypes().map((t) => tpslLeg(a, marketId, side, t, 0, true)) };
  };

  const cancel = (): Command => {
    const i = rng.next() < 0.6 ? rng.int(makers.length) : rng.int(accounts.length);
    const a = accounts[i]!;
    const id = own(i);
    const facts = id === undefined ? undefined : known.get(id);
    const marketId = facts !== undefined && rng.next() < 0.95 ? facts.marketId : pickMarket();
    if (id === undefined || rng.next() < 0.2) return { type: 'cancelOrder', time, ...ref(a), marketId, clientId: facts?.clientId ?? 'c' + rng.int(30) };
    return { type: 'cancelOrder', time, ...ref(a), marketId, orderId: rng.next() < 0.03 ? id + 1_000_000 : id };
  };

  const modify = (nextOrderId: () => number): Command => {
    const i = rng.next() < 0.6 ? rng.int(makers.length) : rng.int(accounts.length);
    const a = accounts[i]!;
    const future = rng.next() < 0.05;
    const id = future ? nextOrderId() : own(i);
    const facts = id === undefined ? undefined : known.get(id);
    const marketId = facts?.marketId ?? pickMarket();
    const side = facts?.side ?? (rng.int(2) as SideCode);
    const p = px(marketId);
    const offset = rng.int(Math.max(2, Math.floor(p * 0.01)));
    const price = clampPrice(side === 0 ? p - offset + (rng.next() < 0.15 ? 2 * offset : 0) : p + offset - (rng.next() < 0.15 ? 2 * offset : 0));
    const byClient = id === undefined || (facts?.clientId !== undefined && rng.next() < 0.3);
    const replace = rng.next() < 0.25;
    return {
      type: 'modifyOrder',
      time,
      ...ref(a),
      marketId,
      orderId: byClient ? undefined : id,
      clientId: byClient ? (facts?.clientId ?? 'c' + rng.int(30)) : undefined,
      price,
      size: sizeFor(100 + rng.int(2_500), price),
      side: rng.next() < 0.1 ? side : rng.next() < 0.02 ? ((1 - side) as SideCode) : undefined,
      goodTilTime: replace ? gtt() : rng.next() < 0.1 ? facts?.goodTilTime : undefined,
    };
  };

  const oracleTick = (): Command => {
    const marketId = rng.next() < 0.9 ? rng.int(2) + 1 : rng.pick(marketIds);
    const p = px(marketId);
    const jump = rng.next() < 0.04;
    // Jumps lean back towards the start so that the walk stays in range.
    const home = (marketId === 2 ? 2500 : 1000) * priceScale;
    const sign = rng.next() < (p > home ? 0.6 : 0.4) ? -1 : 1;
    const move = jump ? (sign * (10 + rng.int(20))) / 100 : 0;
    const next = jump ? clampPrice(p * (1 + move)) : clampPrice(p + rng.int(11) - 5);
    oracle.set(marketId, next);
    if (jump && marketId <= 2 && rng.next() < 0.5) {
      // Markets 1 and 2 often jump together: a cross account long one and short the other keeps
      // its equity while one leg's loss, once closed, takes its quote balance below zero (and
      // borrow interest runs on it).
      const other = 3 - marketId;
      oracle.set(other, clampPrice(px(other) * (1 + move)));
      queue.push({ type: 'setOraclePrice', time, marketId: other, price: oracle.get(other)! });
    }
    return { type: 'setOraclePrice', time, marketId, price: rng.next() < 0.002 ? 0 : next };
  };

  const advance = (): Command => {
    const r = rng.next();
    time += r < 0.6 ? rng.int(3_000_000) : r < 0.93 ? rng.int(20 * 60_000_000) : r < 0.995 ? HOUR_US + rng.int(HOUR_US) : 30 * DAY_US + rng.int(3_600) * 1_000_000;
    return { type: 'advanceTime', time };
  };

  const moneyCommand = (r: number): Command => {
    if (r < 0.2) {
      const a = rng.pick(accounts);
      return { type: 'deposit', time, ...ref(a), amount: BigInt(1 + rng.int(300)) * USD };
    }
    const nextNonce = (): string => {
      if (usedNonces.length > 0 && rng.next() < 0.03) return rng.pick(usedNonces);
      const n = 'n' + nonce++;
      usedNonces.push(n);
      if (usedNonces.length > 100) usedNonces.shift();
      return n;
    };
    if (r < 0.45) {
      const a = rng.pick(accounts);
      return { type: 'withdraw', time, ...ref(a), amount: BigInt(rng.int(200)) * USD + BigInt(rng.int(1000)), nonce: nextNonce() };
    }
    if (r < 0.75) {
      const a = rng.pick(punters);
      return { type: 'transfer', time, address: a.address, fromAccountIndex: a.accountIndex, toAccountIndex: 1 - a.accountIndex, amount: BigInt(1 + rng.int(150)) * USD, nonce: nextNonce() };
    }
    const a = rng.pick(makers);
    return { type: 'creditCommission', time, ...ref(a), amount: BigInt(1 + rng.int(20)) * USD };
  };

  const riskCommand = (r: number): Command => {
    const a = rng.pick(punters);
    const marketId = pickMarket();
    if (r < 0.45) {
      const mode = rng.next();
      return { type: 'setLeverage', time, ...ref(a), marketId, leverage: 1 + rng.int(22), isolated: mode < 0.4 ? true : mode < 0.7 ? false : undefined, requestId: rng.next() < 0.5 ? 'r' + rng.int(1000) : undefined };
    }
    if (r < 0.9) {
      const amount = BigInt(1 + rng.int(100)) * USD * (rng.next() < 0.6 ? 1n : -1n);
      return { type: 'adjustIsolatedMargin', time, ...ref(a), marketId, amount, requestId: rng.next() < 0.5 ? 'r' + rng.int(1000) : undefined };
    }
    return { type: 'forceLiquidation', time, ...ref(a) };
  };

  const venueCommand = (r: number): Command => {
    if (r < 0.1) {
      if (marketIds.length < 4 && rng.next() < 0.8) {
        const id = marketIds.length + 1;
        marketIds.push(id);
        oracle.set(id, (500 + rng.int(3_000)) * priceScale);
        queue.push({ type: 'setOraclePrice', time: time + 1, marketId: id, price: oracle.get(id)! });
        return { type: 'addMarket', time, market: market(id) };
      }
      return { type: 'addMarket', time, market: market(rng.pick(marketIds)) };
    }
    if (r < 0.35) {
      // An offline market mostly comes back next; markets 1 and 2 go offline only rarely.
      if (offline.size > 0 && rng.next() < 0.7) {
        const marketId = [...offline][0]!;
        offline.delete(marketId);
        return { type: 'setMarketStatus', time, marketId, status: 'ONLINE' };
      }
      const marketId = marketIds.length > 2 && rng.next() < 0.8 ? rng.pick(marketIds.slice(2)) : rng.pick(marketIds);
      const status = rng.next() < 0.5 ? 'OFFLINE' : 'ONLINE';
      if (status === 'OFFLINE') offline.add(marketId);
      else offline.delete(marketId);
      return { type: 'setMarketStatus', time, marketId, status };
    }
    if (r < 0.7) return { type: 'setHalt', time, marketId: rng.pick(marketIds), halted: rng.next() < 0.4 };
    const cap = 40_000_000_000;
    return { type: 'setFundingRate', time, marketId: rng.pick(marketIds), rate: BigInt(rng.int(2 * cap) - cap) * (rng.next() < 0.02 ? 3n : 1n) };
  };

  let lastNextOrderId = 1;
  return {
    next(): Command {
      const queued = queue.shift();
      if (queued !== undefined) {
        if (queued.time > time) time = queued.time;
        queued.time = time;
        return queued;
      }
      time += 1 + rng.int(2_000);
      const r = rng.next();
      if (r < 0.26) return makerQuote();
      if (r < 0.44) return punterOrder();
      if (r < 0.52) return cancel();
      if (r < 0.6) return modify(() => lastNextOrderId);
      if (r < 0.615) {
        const a = rng.next() < 0.5 ? rng.pick(makers) : rng.pick(punters);
        return { type: 'cancelAll', time, ...ref(a), marketId: rng.next() < 0.5 ? pickMarket() : undefined };
      }
      if (r < 0.64) return batch();
      if (r < 0.67) return tpslPlacement();
      if (r < 0.685) {
        const a = rng.pick(accounts);
        const marketId = rng.next() < 0.5 ? pickMarket() : undefined;
        const x = rng.next();
        return { type: 'scheduleCancel', time, ...ref(a), marketId, deadline: x < 0.25 ? null : x < 0.27 ? time + 1_000 : time + 5_000_000 + rng.int(295_000_000) };
      }
      if (r < 0.8) return oracleTick();
      if (r < 0.83) return advance();
      if (r < 0.9) return moneyCommand(rng.next());
      if (r < 0.96) return riskCommand(rng.next());
      return venueCommand(rng.next());
    },
    observe(command, result) {
      const learn = (c: PlaceOrderCommand | (BatchOrder & { time?: number }), res: unknown): void => {
        const rr = res as { kind: string; orderId?: number; status?: string };
        if (rr.kind !== 'order' || rr.orderId === undefined) return;
        if (rr.orderId >= lastNextOrderId) lastNextOrderId = rr.orderId + 1;
        // Only orders that went live are worth naming later (most of the rest ended at once).
        if (rr.status !== 'OPEN' && rr.status !== 'PARTIALLY_FILLED' && rr.status !== 'UNTRIGGERED' && rng.next() < 0.8) return;
        const i = accounts.findIndex((a) => a.address === c.address && a.accountIndex === c.accountIndex);
        if (i < 0) return;
        known.set(rr.orderId, { account: i, marketId: c.marketId, side: c.side, clientId: c.clientId, goodTilTime: c.goodTilTime });
        const ids = recent[i]!;
        ids.push(rr.orderId);
        if (ids.length > 200) {
          for (const old of ids.splice(0, 50)) known.delete(old);
        }
      };
      if (command.type === 'placeOrder') learn(command, result);
      else if (command.type === 'batchPlace') {
        const results = (result as { kind: string; results?: unknown[] }).results;
        if (results !== undefined) command.orders.forEach((o, k) => learn(o, results[k]));
      }
    },
  };
}
