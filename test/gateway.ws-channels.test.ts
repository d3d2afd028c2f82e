/**
 * The WebSocket channels beyond the core set: l2Orderbook, predictedFunding, account, funding,
 * accountAttributeUpdates, accountTransferUpdates, candles, exchangeAttributeUpdates and
 * marketAttributes, plus the subscription rules every channel shares (interface.md "Events":
 * channel table, "Sequencing"; supplement §9). The server runs in process on a virtual clock
 * with no agents; events come from `exchange.submit` and POST /sim/clock.
 */
import { quoteOf } from '../engine/account.ts';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { accountView, findAccount, priceToTicks, sizeToQuantums, type CommandResult } from '../engine/index.ts';
import { usd } from '../gateway/contract/format.ts';
import { MARKET_ATTRIBUTE_FIELDS } from '../gateway/read-models/market-attributes.ts';
import { startServer, type Server } from '../sim/server.ts';
import { DAY_US, SQLITE_HISTORY, wallet } from './support/gateway-fixture.ts';
import { connectClient, type Client, type Frame } from './support/ws-client.ts';


let server: Server | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const s of sockets) s.close();
  sockets.length = 0;
  await server?.close();
  server = undefined;
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The virtual clock starts at the wall time; a funding settlement at the next whole hour would add
 * a predictedFunding frame of its own. Tests that count such frames first move past an hour that
 * is less than a minute away.
 */
async function awayFromHourBoundary(): Promise<void> {
  const toNextHour = msToNextHour();
  if (toNextHour < 60_000) await advanceMs(toNextHour + 1_000);
}

async function start(): Promise<Server> {
  server = await startServer({ port: 0, clock: 'virtual', agents: false, ...(SQLITE_HISTORY && { db: ':memory:' }) });
  return server;
}

async function client(): Promise<Client> {
  return connectClient(server!.url, sockets);
}

/** Subscribes and returns the subscribed frame. */
async function subscribe(c: Client, frame: Frame): Promise<Frame> {
  const before = c.frames.length;
  c.send({ type: 'subscribe', ...frame });
  return c.next((f) => c.frames.indexOf(f) >= before && (f.type === 'subscribed' || f.type === 'error'));
}

const contentsOf = (f: Frame): Frame => f.contents as Frame;

const ETH = 2;
const BTC = 1;

function ticks(marketId: number, text: string): number {
  return priceToTicks(server!.exchange.engine.markets.get(marketId)!.spec, text)!;
}

function quantums(marketId: number, text: string): number {
  return sizeToQuantums(server!.exchange.engine.markets.get(marketId)!.spec, text)!;
}

function deposit(address: string, dollars: bigint, accountIndex = 0): void {
  server!.exchange.submit({ type: 'deposit', address, accountIndex, amount: dollars * 1_000_000_000n });
}

interface PlaceOptions {
  tif?: 0 | 1 | 2 | 3;
  marketId?: number;
  reduceOnly?: boolean;
  accountIndex?: number;
}

/** A LIMIT order; returns its orderId. */
function place(address: string, side: 0 | 1, price: string, size: string, options: PlaceOptions = {}): number {
  const marketId = options.marketId ?? ETH;
  const result: CommandResult = server!.exchange.submit({
    type: 'placeOrder',
    address,
    accountIndex: options.accountIndex ?? 0,
    marketId,
    side,
    orderType: 0,
    tif: options.tif ?? 0,
    price: ticks(marketId, price),
    size: quantums(marketId, size),
    reduceOnly: options.reduceOnly ?? false,
    goodTilTime: server!.exchange.clock() + 40 * DAY_US,
  });
  if (result.kind !== 'order') throw new Error(`placeOrder: ${JSON.stringify(result)}`);
  return result.orderId;
}

/** `a` goes long and `b` short `size` of ETH at `price`, leaving the book empty. */
function trade(a: string, b: string, price: string, size: string, marketId = ETH): void {
  place(b, 1, price, size, { marketId });
  place(a, 0, price, size, { marketId, tif: 2 });
}

async function advanceMs(ms: number): Promise<void> {
  const res = await fetch(server!.url + '/sim/clock', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceMs: ms }) });
  expect(res.status).toBe(200);
}

/** Simulated ms to the next whole hour (a funding settlement). */
function msToNextHour(): number {
  const hourUs = 3_600_000_000;
  const now = server!.exchange.clock();
  return Math.ceil((Math.floor(now / hourUs) * hourUs + hourUs - now) / 1000);
}

async function restGet(path: string): Promise<Frame> {
  const res = await fetch(server!.url + path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as Frame;
}

// ---------------------------------------------------------------------------------------------

describe('l2Orderbook: "Periodic full snapshots about every 200 ms. Parameters: nLevels (1-100, default 20), sigFigs (2-5), roundStep (1, 2 or 5); bids round down, asks round up; several aggregation levels per market may coexist on one connection, frames echo sigFigs / roundStep."', () => {
  it('snapshots on subscribe, then one full frame per 200 ms of simulated time, per aggregation, echoing sigFigs and roundStep', async () => {
    await start();
    const maker = wallet(0x11).address;
    deposit(maker, 1_000_000n);
    place(maker, 0, '3391.23', '1.0');
    place(maker, 0, '3388.00', '2.0');
    place(maker, 1, '3412.34', '0.5');
    const c = await client();
    const full = await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD', nLevels: 1 });
    expect(full).toMatchObject({ type: 'subscribed', channel: 'l2Orderbook', id: 'ETH-USD', contents: { bids: [['3391.23', '1.0']], asks: [['3412.34', '0.5']] } });
    expect(full.sigFigs).toBeUndefined();
    const coarse = await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD', sigFigs: 2 });
    // 2 significant figures: bids round down to 3300, asks up to 3500; 5 with roundStep 5:
    // buckets of 0.50.
    expect(coarse).toMatchObject({ sigFigs: 2, contents: { bids: [['3300.00', '3.0']], asks: [['3500.00', '0.5']] } });
    const fine = await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD', sigFigs: 5, roundStep: 5 });
    expect(fine).toMatchObject({ sigFigs: 5, roundStep: 5, contents: { bids: [['3391.00', '1.0'], ['3388.00', '2.0']], asks: [['3412.50', '0.5']] } });
    for (const f of [full, coarse, fine]) expect(Object.keys(contentsOf(f)).sort()).toEqual(['asks', 'bids', 'globalSequenceId', 'lastSequenceId', 'timestamp']);

    await sleep(300);
    expect(c.data('l2Orderbook'), 'a virtual clock that does not move emits nothing').toEqual([]);
    await advanceMs(150);
    await sleep(200);
    expect(c.data('l2Orderbook'), 'less than 200 ms of simulated time').toEqual([]);
    await advanceMs(50);
    await c.next((f) => f.type === 'channel_data' && f.roundStep === 5);
    await sleep(150);
    const frames = c.data('l2Orderbook');
    expect(frames).toHaveLength(3);
    expect(frames.map((f) => f.sigFigs ?? null).sort()).toEqual([2, 5, null]);
    expect(frames.find((f) => f.sigFigs === 2)).toMatchObject({ id: 'ETH-USD', contents: { bids: [['3300.00', '3.0']], asks: [['3500.00', '0.5']] } });

    // A jump of many periods sends one frame per subscription, not a burst.
    await advanceMs(10_000);
    await sleep(200);
    expect(c.data('l2Orderbook')).toHaveLength(6);
  });

  it('nLevels defaults to 20 and must be 1-100; identities differ by aggregation', async () => {
    await start();
    const maker = wallet(0x12).address;
    deposit(maker, 10_000_000n);
    for (let i = 0; i < 30; i++) place(maker, 0, (3300 - i).toFixed(2), '0.1');
    const c = await client();
    const snap = await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD' });
    expect((contentsOf(snap).bids as unknown[]).length).toBe(20);
    const deep = await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD', nLevels: 100 });
    expect((contentsOf(deep).bids as unknown[]).length).toBe(30);
    for (const nLevels of [0, 101]) {
      expect(await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD', nLevels })).toMatchObject({ type: 'error', status: 400 });
    }
    expect(await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD', sigFigs: 3, roundStep: 2 })).toMatchObject({ type: 'error' });
    expect(await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD' })).toMatchObject({ type: 'error', error: { message: 'already subscribed' } });
  });
});

describe('predictedFunding: "{market, rate1h} on every recompute; empty contents when none yet; not wrapped in isSnapshot."', () => {
  it('snapshots the current rate (empty before any recompute) and streams each recompute', async () => {
    await start();
    await awayFromHourBoundary();
    const c = await client();
    const none = await subscribe(c, { channel: 'predictedFunding', id: 'F-USD' });
    expect(none).toMatchObject({ type: 'subscribed', channel: 'predictedFunding', id: 'F-USD', contents: {} });
    expect(Object.keys(contentsOf(none))).toEqual([]);

    const btc = server!.exchange.engine.markets.get(BTC)!;
    // A premium sample this hour, so BTC has a current rate even when the clock just crossed an
    // hour (a settlement starts the next hour with none).
    await advanceMs(1000);
    server!.exchange.submit({ type: 'setOraclePrice', marketId: BTC, price: btc.oraclePrice });
    expect(btc.funding.samples).toBeGreaterThan(0);
    const snap = await subscribe(c, { channel: 'predictedFunding', id: 'BTC-USD' });
    expect(contentsOf(snap)).toEqual({ market: 'BTC-USD', rate1h: expect.any(String) });
    expect(contentsOf(snap).isSnapshot).toBeUndefined();

    server!.exchange.submit({ type: 'setFundingRate', marketId: BTC, rate: 12_500_000n });
    expect(contentsOf(await c.next((f) => f.type === 'channel_data'))).toEqual({ market: 'BTC-USD', rate1h: '0.0000125' });
    server!.exchange.submit({ type: 'setFundingRate', marketId: ETH, rate: 1n });
    await advanceMs(1000);
    server!.exchange.submit({ type: 'setOraclePrice', marketId: BTC, price: btc.oraclePrice + 10 });
    await sleep(100);
    // A fixed rate is not recomputed by samples; ETH's change is not BTC's channel.
    expect(c.data('predictedFunding').map(contentsOf)).toEqual([{ market: 'BTC-USD', rate1h: '0.0000125' }]);
    const again = await subscribe(c, { channel: 'predictedFunding', id: 'ETH-USD' });
    expect(contentsOf(again)).toEqual({ market: 'ETH-USD', rate1h: '0.000000000001' });
  });

  it('a recompute from a new oracle sample streams the hour\'s rate so far', async () => {
    await start();
    await awayFromHourBoundary();
    const c = await client();
    await subscribe(c, { channel: 'predictedFunding', id: 'SOL-USD' });
    await advanceMs(1000);
    const sol = server!.exchange.engine.markets.get(3)!;
    server!.exchange.submit({ type: 'setOraclePrice', marketId: 3, price: sol.oraclePrice + 1000 });
    const frame = await c.next((f) => f.type === 'channel_data');
    expect(frame).toMatchObject({ channel: 'predictedFunding', id: 'SOL-USD', contents: { market: 'SOL-USD', rate1h: expect.stringMatching(/^-?\d+\.\d+$/) } });
  });
});

describe('account: "Snapshot, re-snapshot every 5 seconds, updates of type PLACED, CANCELED, MARGIN_CANCELED, REJECTED, TPSL_PLACED, TPSL_CANCELED, TPSL_TRIGGERED, LIQUIDATION, ADL. netQuoteBalance on every frame; equity and free collateral net accrued unsettled funding."', () => {
  it('snapshots GET /v1/account, streams PLACED / CANCELED / REJECTED with rejectionReason, and re-snapshots every 5 s of simulated time', async () => {
    await start();
    const alice = wallet(0x21).address;
    const bob = wallet(0x22).address;
    deposit(alice, 100_000n);
    deposit(bob, 100_000n);
    const c = await client();
    const snap = await subscribe(c, { channel: 'account', id: alice });
    const rest = await restGet(`/v1/account?address=${alice}`);
    expect(snap).toMatchObject({ channel: 'account', id: alice, accountIndex: 0 });
    expect(contentsOf(snap)).toEqual({ isSnapshot: true, ...rest });
    expect(contentsOf(snap)).toMatchObject({ netQuoteBalance: '100000.0', equity: '100000.0', freeCollateral: '100000.0', positions: {} });

    const resting = place(alice, 0, '3390.00', '1.0');
    const placed = contentsOf(await c.next((f) => f.type === 'channel_data' && contentsOf(f).type === 'PLACED'));
    expect(placed).toMatchObject({ type: 'PLACED', netQuoteBalance: '100000.0', equity: '100000.0', order: { orderId: resting.toString(16), status: 'OPEN', price: '3390.00' } });
    expect(placed.sequenceNumber).toBe((placed.order as Frame).sequenceNumber);
    expect(Number(placed.freeCollateral)).toBeLessThan(100_000);

    server!.exchange.submit({ type: 'cancelOrder', address: alice, accountIndex: 0, marketId: ETH, orderId: resting });
    expect(contentsOf(await c.next((f) => contentsOf(f).type === 'CANCELED'))).toMatchObject({ order: { status: 'CANCELED' }, netQuoteBalance: '100000.0', freeCollateral: '100000.0' });

    place(bob, 0, '3390.00', '1.0');
    place(alice, 1, '3380.00', '1.0', { tif: 3 });
    const rejected = contentsOf(await c.next((f) => contentsOf(f).type === 'REJECTED'));
    expect(rejected).toMatchObject({ rejectionReason: 'POST_ONLY_WOULD_CROSS', order: { status: 'REJECTED', rejectionReason: 'POST_ONLY_WOULD_CROSS' }, netQuoteBalance: '100000.0' });

    server!.exchange.submit({ type: 'cancelOrder', address: alice, accountIndex: 0, marketId: ETH, orderId: 0xfffff });
    const refused = contentsOf(await c.next((f) => contentsOf(f).command === 'cancelOrder'));
    expect(refused).toMatchObject({ type: 'REJECTED', rejectionReason: expect.any(String), order: { orderId: 'fffff', marketId: ETH, marketDisplayName: 'ETH-USD' }, netQuoteBalance: '100000.0' });

    const updates = c.data('account').map(contentsOf);
    expect(updates.map((u) => u.type)).toEqual(['PLACED', 'CANCELED', 'REJECTED', 'REJECTED']);
    const seqs = updates.map((u) => u.sequenceNumber as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    for (const u of updates) expect(Object.keys(u)).toEqual(expect.arrayContaining(['netQuoteBalance', 'equity', 'freeCollateral', 'sequenceNumber', 'timestamp']));

    await advanceMs(4_999);
    await sleep(150);
    expect(c.data('account').filter((f) => contentsOf(f).isSnapshot === true)).toEqual([]);
    await advanceMs(1);
    const again = contentsOf(await c.next((f) => f.type === 'channel_data' && contentsOf(f).isSnapshot === true));
    expect(again).toEqual({ isSnapshot: true, ...(await restGet(`/v1/account?address=${alice}`)) });
  });

  it('an account without activity snapshots {} and gets no re-snapshots; snapshot:false sends no contents', async () => {
    await start();
    const nobody = wallet(0x23).address;
    const c = await client();
    expect(await subscribe(c, { channel: 'account', id: nobody, accountIndex: 3 })).toMatchObject({ accountIndex: 3, contents: {} });
    const quiet = await subscribe(c, { channel: 'account', id: nobody, snapshot: false });
    expect('contents' in quiet).toBe(false);
    await advanceMs(6_000);
    await sleep(150);
    expect(c.data('account')).toEqual([]);
  });

  it('TPSL_PLACED, TPSL_CANCELED, TPSL_TRIGGERED, then LIQUIDATION with MARGIN_CANCELED, and ADL on the counterparty', async () => {
    await start();
    const alice = wallet(0x24).address;
    const bob = wallet(0x25).address;
    deposit(alice, 100_000n);
    deposit(bob, 100_000n);
    trade(alice, bob, '3400.00', '1.0');
    const c = await client();
    await subscribe(c, { channel: 'account', id: alice });
    await subscribe(c, { channel: 'account', id: bob });
    const tpsl = (stop: string): CommandResult =>
      server!.exchange.submit({
        type: 'placeOrder', address: alice, accountIndex: 0, marketId: ETH, side: 1, orderType: 0, tif: 0, price: ticks(ETH, '3000.00'), size: quantums(ETH, '1.0'),
        reduceOnly: true, goodTilTime: server!.exchange.clock() + 40 * DAY_US, tpslType: 'STOP_LOSS', stopPrice: ticks(ETH, stop),
      });
    const first = tpsl('3300.00');
    expect(first.kind).toBe('order');
    await c.next((f) => contentsOf(f).type === 'TPSL_PLACED');
    server!.exchange.submit({ type: 'cancelOrder', address: alice, accountIndex: 0, marketId: ETH, orderId: (first as { orderId: number }).orderId });
    await c.next((f) => contentsOf(f).type === 'TPSL_CANCELED');
    tpsl('3350.00');
    server!.exchange.submit({ type: 'setOraclePrice', marketId: ETH, price: ticks(ETH, '3340.00') });
    const triggered = contentsOf(await c.next((f) => contentsOf(f).type === 'TPSL_TRIGGERED'));
    expect(triggered).toMatchObject({ order: { status: 'TPSL_TRIGGERED', tpslType: 'STOP_LOSS', triggerPrice: '3350.00' } });
    // The triggered leg rests (no bid to take) as a reduce-only sell: PLACED.
    await c.next((f) => f.id === alice && contentsOf(f).type === 'PLACED');

    server!.exchange.submit({ type: 'forceLiquidation', address: alice, accountIndex: 0 });
    const liquidation = contentsOf(await c.next((f) => contentsOf(f).type === 'LIQUIDATION'));
    expect(liquidation).toMatchObject({ liquidation: { marketId: null, marketDisplayName: null, equity: expect.any(String), maintenanceMargin: expect.any(String) }, netQuoteBalance: expect.any(String) });
    await c.next((f) => contentsOf(f).type === 'MARGIN_CANCELED');
    const adl = await c.next((f) => contentsOf(f).type === 'ADL');
    expect(adl.id).toBe(bob);
    expect(contentsOf(adl)).toMatchObject({ adl: { marketId: ETH, marketDisplayName: 'ETH-USD', size: '1.0', liquidatedUser: alice }, netQuoteBalance: expect.any(String) });
    const aliceTypes = c.data('account').filter((f) => f.id === alice).map((f) => contentsOf(f).type);
    expect(aliceTypes).toEqual(['TPSL_PLACED', 'TPSL_CANCELED', 'TPSL_PLACED', 'TPSL_TRIGGERED', 'PLACED', 'LIQUIDATION', 'MARGIN_CANCELED']);
  });

  it('equity and freeCollateral are net of the hour\'s accrued funding, like GET /v1/account', async () => {
    await start();
    const alice = wallet(0x26).address;
    const bob = wallet(0x27).address;
    deposit(alice, 100_000n);
    deposit(bob, 100_000n);
    // Start just after a settlement, so the half hour below stays inside one funding hour.
    await advanceMs(msToNextHour() + 1_000);
    trade(alice, bob, '3400.00', '10.0');
    server!.exchange.submit({ type: 'setFundingRate', marketId: ETH, rate: 1_000_000_000n });
    await advanceMs(1_800_000);
    const acct = findAccount(server!.exchange.engine.accounts, alice, 0)!;
    const view = accountView(server!.exchange.engine, acct);
    expect(view.accruedFunding).toBeLessThan(0n);
    const c = await client();
    const snap = contentsOf(await subscribe(c, { channel: 'account', id: alice }));
    expect(snap).toMatchObject({ equity: usd(view.equity), freeCollateral: usd(view.freeCollateral), netQuoteBalance: usd(quoteOf(acct)) });
    place(alice, 0, '3000.00', '0.1');
    const placed = contentsOf(await c.next((f) => contentsOf(f).type === 'PLACED'));
    expect(placed.equity).toBe(usd(accountView(server!.exchange.engine, acct).equity));
  });
});

describe('funding: "Snapshot of up to 100 payments from the last 30 days, then one event per (market, account) per payment time."', () => {
  it('streams one payment per market and account at each settlement, shaped like GET /v1/funding rows; re-subscribing fetches a fresh snapshot', async () => {
    await start();
    const alice = wallet(0x31).address;
    const bob = wallet(0x32).address;
    deposit(alice, 1_000_000n);
    deposit(bob, 1_000_000n);
    trade(alice, bob, '3400.00', '1.0');
    trade(alice, bob, '97000.0', '0.1', BTC);
    const c = await client();
    expect(contentsOf(await subscribe(c, { channel: 'funding', id: alice }))).toEqual({ isSnapshot: true, fundingPayments: [] });
    server!.exchange.submit({ type: 'setFundingRate', marketId: ETH, rate: 12_500_000n });
    await advanceMs(3_600_000);
    await c.next((f) => f.type === 'channel_data' && contentsOf(f).marketId === BTC);
    await sleep(50);
    const events = c.data('funding').map(contentsOf);
    expect(events.map((e) => e.marketDisplayName).sort()).toEqual(['BTC-USD', 'ETH-USD']);
    const eth = events.find((e) => e.marketId === ETH)!;
    expect(eth).toMatchObject({ fundingRate: '0.0000125', size: '1.0', payment: expect.stringMatching(/^-/) });
    expect(eth.time).toBe(events[1]!.time);
    const rest = await restGet(`/v1/funding?address=${alice}`);
    const rows = rest.fundingPayments as Frame[];
    expect(rows).toHaveLength(2);
    for (const e of events) {
      const { sequenceNumber, ...record } = e;
      expect(typeof sequenceNumber).toBe('number');
      expect(rows).toContainEqual(record);
    }
    c.send({ type: 'unsubscribe', channel: 'funding', id: alice });
    await c.next((f) => f.type === 'unsubscribed');
    const fresh = await subscribe(c, { channel: 'funding', id: alice });
    expect(contentsOf(fresh)).toEqual({ isSnapshot: true, fundingPayments: rows });
  });

  it('the snapshot holds at most 100 payments, newest first, from the last 30 days', async () => {
    await start();
    const alice = wallet(0x33).address;
    const bob = wallet(0x34).address;
    deposit(alice, 1_000_000n);
    deposit(bob, 1_000_000n);
    trade(alice, bob, '3400.00', '1.0');
    await advanceMs(msToNextHour() + 1_000);
    // A fixed rate lasts until its hour settles: set one for each of the next 105 hours.
    for (let i = 0; i < 105; i++) {
      server!.exchange.submit({ type: 'setFundingRate', marketId: ETH, rate: 1_000_000n });
      await advanceMs(3_600_000);
    }
    const c = await client();
    const payments = contentsOf(await subscribe(c, { channel: 'funding', id: alice })).fundingPayments as Frame[];
    expect(payments).toHaveLength(100);
    const times = payments.map((p) => p.time as number);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(times[0]! - times[99]!).toBe(99 * 3_600_000_000);
  });
});

describe('accountAttributeUpdates: "Entries by type: leverage (per market, with isolated and marginMode), feeTier, leverageReject (streaming only, with rejectReason UNDERCOLLATERALIZED, INVALID_LEVERAGE or UNKNOWN_MARKET and the originating requestId)."', () => {
  it('snapshots a leverage entry per market and the fee tier; setLeverage streams leverage or leverageReject', async () => {
    await start();
    const alice = wallet(0x41).address;
    deposit(alice, 100_000n);
    const c = await client();
    const snap = contentsOf(await subscribe(c, { channel: 'accountAttributeUpdates', id: alice }));
    const entries = snap.entries as Frame[];
    const leverages = (await restGet(`/v1/leverages?address=${alice}`)).leverages as Frame[];
    expect(snap.isSnapshot).toBe(true);
    expect(entries.filter((e) => e.type === 'leverage')).toEqual(leverages.map((row) => ({ type: 'leverage', ...row })));
    expect(entries.find((e) => e.marketId === BTC)).toMatchObject({ leverage: 40, isolated: false, marginMode: 'CROSS' });
    expect(entries.at(-1)).toMatchObject({ type: 'feeTier', level: 1, makerFeePpm: expect.any(Number), takerFeePpm: expect.any(Number) });

    server!.exchange.submit({ type: 'setLeverage', address: alice, accountIndex: 0, marketId: BTC, leverage: 10, isolated: true, requestId: 'req-1' });
    const applied = contentsOf(await c.next((f) => f.type === 'channel_data'));
    expect(applied).toMatchObject({ isSnapshot: false, entries: [{ type: 'leverage', marketId: BTC, marketDisplayName: 'BTC-USD', leverage: 10, isolated: true, marginMode: 'ISOLATED', requestId: 'req-1' }] });
    server!.exchange.submit({ type: 'setLeverage', address: alice, accountIndex: 0, marketId: BTC, leverage: 1000, requestId: 'req-2' });
    const refused = contentsOf(await c.next((f) => f.type === 'channel_data' && (contentsOf(f).entries as Frame[])[0]!.type === 'leverageReject'));
    expect(refused.entries).toEqual([
      { type: 'leverageReject', marketId: BTC, marketDisplayName: 'BTC-USD', leverage: 10, isolated: true, marginMode: 'ISOLATED', status: 'REJECTED', rejectReason: 'INVALID_LEVERAGE', requestId: 'req-2', sequenceNumber: expect.any(Number) },
    ]);
    // Re-subscribing reads the applied setting.
    c.send({ type: 'unsubscribe', channel: 'accountAttributeUpdates', id: alice });
    await c.next((f) => f.type === 'unsubscribed');
    const fresh = contentsOf(await subscribe(c, { channel: 'accountAttributeUpdates', id: alice }));
    expect((fresh.entries as Frame[]).find((e) => e.marketId === BTC)).toMatchObject({ leverage: 10, marginMode: 'ISOLATED' });
  });

  it('streams a feeTier entry when the rolling volume moves the account to another tier', async () => {
    await start();
    const alice = wallet(0x42).address;
    const bob = wallet(0x43).address;
    deposit(alice, 1_000_000n);
    deposit(bob, 1_000_000n);
    const c = await client();
    await subscribe(c, { channel: 'accountAttributeUpdates', id: alice });
    trade(alice, bob, '97000.0', '1.0', BTC);
    await sleep(100);
    expect(c.data('accountAttributeUpdates'), 'still tier 1').toEqual([]);
    trade(alice, bob, '97000.0', '52.0', BTC);
    const frame = contentsOf(await c.next((f) => f.type === 'channel_data'));
    const tiers = (await restGet(`/v1/feetiers?address=${alice}`)).account as Frame;
    expect(frame.entries).toEqual([{ type: 'feeTier', level: 2, name: tiers.name, makerFeePpm: tiers.makerFeePpm, takerFeePpm: tiers.takerFeePpm, rollingVolume: tiers.rollingVolume, lifetimeVolume: tiers.lifetimeVolume, lifetimeFeesPaid: tiers.lifetimeFeesPaid }]);
  });
});

describe('accountTransferUpdates: "Deposits, withdrawals, internal transfers, referral claims; snapshot newest-first, then one event per frame; globalSequenceId gives strict ordering."', () => {
  it('snapshots GET /v1/accountTransferUpdates newest first, then one row per frame', async () => {
    await start();
    const alice = wallet(0x51).address;
    deposit(alice, 1_000n);
    deposit(alice, 2_000n);
    const c = await client();
    const snap = contentsOf(await subscribe(c, { channel: 'accountTransferUpdates', id: alice }));
    const rest = await restGet(`/v1/accountTransferUpdates?address=${alice}`);
    expect(snap).toEqual({ isSnapshot: true, ...rest });
    const rows = snap.accountTransferUpdates as Frame[];
    expect(rows.map((r) => r.amount)).toEqual(['2000.0', '1000.0']);

    server!.exchange.submit({ type: 'withdraw', address: alice, accountIndex: 0, amount: 500n * 1_000_000_000n, nonce: 'w-1' });
    server!.exchange.submit({ type: 'transfer', address: alice, fromAccountIndex: 0, toAccountIndex: 1, amount: 100n * 1_000_000_000n, nonce: 't-1' });
    await c.next((f) => f.type === 'channel_data' && contentsOf(f).type === 'TRANSFER_OUT');
    const events = c.data('accountTransferUpdates').map(contentsOf);
    expect(events.map((e) => [e.type, e.amount, e.netQuoteBalance])).toEqual([
      ['WITHDRAWAL', '500.0', '2500.0'],
      ['TRANSFER_OUT', '100.0', '2400.0'],
    ]);
    expect(events[1]).toMatchObject({ fromAccountIndex: 0, toAccountIndex: 1 });
    expect(events[1]!.globalSequenceId as number).toBeGreaterThan(events[0]!.globalSequenceId as number);
    const latest = (await restGet(`/v1/accountTransferUpdates?address=${alice}`)).accountTransferUpdates as Frame[];
    expect(latest.slice(0, 2).reverse()).toEqual(events);
  });
});

describe('candles: "Subscription id is <market>/<timeframe>; timeframes 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 3d, 1w; snapshot up to 200 candles then updates."', () => {
  it('snapshots the newest bars first, then streams the bar each trade went into; a superseded bar is re-sent once as final', async () => {
    await start();
    const alice = wallet(0x61).address;
    const bob = wallet(0x62).address;
    deposit(alice, 1_000_000n);
    deposit(bob, 1_000_000n);
    trade(alice, bob, '3400.00', '1.0');
    const c = await client();
    const snap = await subscribe(c, { channel: 'candles', id: 'eth-usd/1m' });
    expect(snap).toMatchObject({ type: 'subscribed', channel: 'candles', id: 'ETH-USD/1m', contents: { isSnapshot: true, candles: [{ marketDisplayName: 'ETH-USD', timeframe: '1m', open: '3400.00', close: '3400.00', volume: '1.0', tradeCount: 1, isFinal: false }] } });

    trade(alice, bob, '3410.00', '0.5');
    const update = contentsOf(await c.next((f) => f.type === 'channel_data'));
    expect(update).toMatchObject({ timeframe: '1m', open: '3400.00', high: '3410.00', close: '3410.00', volume: '1.5', tradeCount: 2, isFinal: false });

    await advanceMs(60_000);
    trade(alice, bob, '3420.00', '0.1');
    await c.next((f) => f.type === 'channel_data' && contentsOf(f).close === '3420.00');
    const frames = c.data('candles').map(contentsOf);
    expect(frames.map((f) => [f.close, f.isFinal])).toEqual([
      ['3410.00', false],
      ['3410.00', true],
      ['3420.00', false],
    ]);
    expect(frames[2]!.openTime).toBe((frames[1]!.openTime as number) + 60_000_000);
    const rest = await restGet(`/v1/candles?market=ETH-USD&timeframe=1m&to=${server!.exchange.clock() + 60_000_000}`);
    expect(JSON.stringify(rest)).toContain('"close":"3420.00"');
  });

  it('refuses an id without a valid timeframe; the snapshot holds at most 200 bars', async () => {
    await start();
    const alice = wallet(0x63).address;
    const bob = wallet(0x64).address;
    deposit(alice, 1_000_000n);
    deposit(bob, 1_000_000n);
    for (let i = 0; i < 205; i++) {
      trade(alice, bob, '3400.00', '0.01');
      await advanceMs(60_000);
    }
    const c = await client();
    for (const id of ['ETH-USD', 'ETH-USD/2m', 'ETH-USD/1M', 'NOPE-USD/1m']) expect(await subscribe(c, { channel: 'candles', id })).toMatchObject({ type: 'error', status: 400 });
    const candles = contentsOf(await subscribe(c, { channel: 'candles', id: 'ETH-USD/1m' })).candles as Frame[];
    expect(candles).toHaveLength(200);
    const opens = candles.map((k) => k.openTime as number);
    expect(opens).toEqual([...opens].sort((a, b) => b - a));
    expect(contentsOf(await subscribe(c, { channel: 'candles', id: 'ETH-USD/1w' })).candles).toHaveLength(1);
  });
});

describe('exchangeAttributeUpdates: "Entries by type: feeTierConfig (snapshot on subscribe, re-sent on operator change) and marketAttributes (streaming only; superseded by marketAttributes channel)."', () => {
  it('snapshots the fee schedule as a feeTierConfig entry', async () => {
    await start();
    const c = await client();
    const snap = await subscribe(c, { channel: 'exchangeAttributeUpdates' });
    const rest = await restGet('/v1/feetiers');
    expect(contentsOf(snap)).toEqual({ isSnapshot: true, entries: [{ type: 'feeTierConfig', feeTiers: rest.feeTiers }] });
    expect(await subscribe(c, { channel: 'exchangeAttributeUpdates', id: 'BTC-USD' })).toMatchObject({ type: 'error', status: 400 });
    server!.exchange.submit({ type: 'setOraclePrice', marketId: BTC, price: ticks(BTC, '97100.0') });
    await sleep(100);
    expect(c.data('exchangeAttributeUpdates'), 'nothing changed').toEqual([]);
  });
});

describe('marketAttributes: "Full current attribute block per online market ...; unused fields are null, never omitted. Snapshot on subscribe, streaming updates replace the entry wholesale and add timestamp and per-market marketSequenceNum ... 24/7 markets have isOutsideRth false and no streaming updates."', () => {
  it('snapshots every ONLINE market with every field; a 24/7 market never streams; an equity market streams when it crosses its trading hours', async () => {
    await start();
    const c = await client();
    const snap = contentsOf(await subscribe(c, { channel: 'marketAttributes' }));
    const entries = snap.entries as Frame[];
    const online = [...server!.exchange.engine.markets.values()].filter((ms) => ms.spec.status === 'ONLINE').map((ms) => ms.spec.id).sort((a, b) => a - b);
    expect(snap.isSnapshot).toBe(true);
    expect(entries.map((e) => e.marketId)).toEqual(online);
    for (const e of entries) expect(Object.keys(e).sort()).toEqual([...MARKET_ATTRIBUTE_FIELDS].sort());
    expect(entries.find((e) => e.marketId === BTC)).toMatchObject({ marketDisplayName: 'BTC-USD', isOutsideRth: false, currentSettlementPrice: null, upperTradingBound: null, nextLowerTradingBound: null, isUpperInExpansionZone: null, upperZoneEnteredAt: null, lowerExpectedExpansionAt: null });
    expect(entries.some((e) => e.marketDisplayName === 'F-USD')).toBe(false);

    const exchangeLevel = await client();
    await subscribe(exchangeLevel, { channel: 'exchangeAttributeUpdates' });

    server!.exchange.submit({ type: 'setOraclePrice', marketId: BTC, price: ticks(BTC, '96000.0') });
    await sleep(100);
    expect(c.data('marketAttributes'), '24/7 markets stream nothing').toEqual([]);

    const amd = [...server!.exchange.engine.markets.values()].find((ms) => ms.spec.displayName === 'AMD-USD')!;
    const before = amd.outsideRth;
    for (let hour = 0; hour < 80 && amd.outsideRth === before; hour++) {
      await advanceMs(3_600_000);
      server!.exchange.submit({ type: 'setOraclePrice', marketId: amd.spec.id, price: amd.oraclePrice });
    }
    expect(amd.outsideRth).toBe(!before);
    const update = await c.next((f) => f.type === 'channel_data');
    expect(contentsOf(update)).toEqual({
      isSnapshot: false,
      entries: [{ ...entries.find((e) => e.marketId === amd.spec.id), isOutsideRth: !before, timestamp: server!.exchange.clock(), marketSequenceNum: 1 }],
    });
    expect(c.data('marketAttributes')).toHaveLength(1);
    const legacy = contentsOf(await exchangeLevel.next((f) => f.type === 'channel_data'));
    expect(legacy).toEqual({ isSnapshot: false, entries: [{ type: 'marketAttributes', ...(contentsOf(update).entries as Frame[])[0] }] });
  });
});

describe('Subscriptions every channel shares (supplement §9; interface "Sequencing")', () => {
  it('orders: the snapshot carries at most 100 recentClosedOrders, the latest to close first', async () => {
    await start();
    const alice = wallet(0x71).address;
    deposit(alice, 100_000n);
    const ids: number[] = [];
    for (let i = 0; i < 105; i++) ids.push(place(alice, 0, '3000.00', '0.01', { tif: 2 }));
    const open = place(alice, 0, '3000.00', '0.01');
    const c = await client();
    const snap = contentsOf(await subscribe(c, { channel: 'orders', id: alice }));
    const closed = snap.recentClosedOrders as Frame[];
    expect(closed).toHaveLength(100);
    expect(closed.map((o) => o.orderId)).toEqual(ids.slice(5).reverse().map((id) => id.toString(16)));
    expect((snap.orders as Frame[]).map((o) => o.orderId)).toEqual([open.toString(16)]);
    expect(snap.lastSequenceId).toBe(findAccount(server!.exchange.engine.accounts, alice, 0)!.seq);
  });

  it('positions: deltas carry per-account lastSequenceId and per-row sequenceNumber', async () => {
    await start();
    const alice = wallet(0x72).address;
    const bob = wallet(0x73).address;
    deposit(alice, 100_000n);
    deposit(bob, 100_000n);
    const c = await client();
    await subscribe(c, { channel: 'positions', id: alice });
    trade(alice, bob, '3400.00', '1.0');
    const delta = contentsOf(await c.next((f) => f.type === 'channel_data'));
    const rows = Object.values(delta.positions as Record<string, Frame>);
    expect(Object.keys(delta.positions as Frame)).toEqual([String(ETH)]);
    expect(rows[0]).toMatchObject({ marketId: ETH, size: '1.0', sequenceNumber: expect.any(Number) });
    expect(delta.lastSequenceId).toBe(findAccount(server!.exchange.engine.accounts, alice, 0)!.seq);
    expect(delta.lastSequenceId as number).toBeGreaterThanOrEqual(rows[0]!.sequenceNumber as number);
  });

  it('snapshot:false leaves the subscribed frame without contents (trades keeps its empty ack); updates still flow', async () => {
    await start();
    const alice = wallet(0x74).address;
    const bob = wallet(0x75).address;
    deposit(alice, 100_000n);
    deposit(bob, 100_000n);
    const c = await client();
    for (const channel of ['funding', 'accountTransferUpdates', 'accountAttributeUpdates', 'orders']) {
      const frame = await subscribe(c, { channel, id: alice, snapshot: false });
      expect(frame).toMatchObject({ type: 'subscribed', channel, id: alice, accountIndex: 0 });
      expect('contents' in frame).toBe(false);
    }
    expect(await subscribe(c, { channel: 'trades', id: 'ETH-USD', snapshot: false })).toMatchObject({ contents: {} });
    expect('contents' in (await subscribe(c, { channel: 'marketAttributes', snapshot: false }))).toBe(false);
    deposit(alice, 1n);
    await c.next((f) => f.type === 'channel_data' && f.channel === 'accountTransferUpdates');
  });

  it('account-only parameters are refused elsewhere: market on account/funding, nFills outside userFills', async () => {
    await start();
    const alice = wallet(0x76).address;
    const c = await client();
    for (const channel of ['account', 'funding', 'accountAttributeUpdates', 'accountTransferUpdates']) {
      expect(await subscribe(c, { channel, id: alice, market: 'ETH-USD' })).toMatchObject({ type: 'error', status: 400 });
    }
    expect(await subscribe(c, { channel: 'orders', id: alice, nFills: 10 })).toMatchObject({ type: 'error', status: 400 });
    expect(await subscribe(c, { channel: 'predictedFunding', id: 'ETH-USD', accountIndex: 0 })).toMatchObject({ type: 'error', status: 400 });
    expect(await subscribe(c, { channel: 'marketAttributes', id: 'ETH-USD' })).toMatchObject({ type: 'error', status: 400 });
    expect(await subscribe(c, { channel: 'userFills', id: alice, nFills: 10, market: 'ETH-USD' })).toMatchObject({ type: 'subscribed', market: 'ETH-USD' });
  });

  it('one command\'s frames reach a connection in event order across its subscriptions', async () => {
    await start();
    const alice = wallet(0x77).address;
    const bob = wallet(0x78).address;
    deposit(alice, 100_000n);
    deposit(bob, 100_000n);
    const c = await client();
    for (const channel of ['userFills', 'positions', 'account', 'orders']) await subscribe(c, { channel, id: alice });
    place(bob, 1, '3400.00', '1.0');
    place(alice, 0, '3400.00', '2.0');
    await c.next((f) => f.channel === 'account' && f.type === 'channel_data');
    const seqOf = (f: Frame): number => {
      const x = contentsOf(f);
      return f.channel === 'positions' ? (Object.values(x.positions as Record<string, Frame>)[0]!.sequenceNumber as number) : (x.sequenceNumber as number);
    };
    const data = c.frames.filter((f) => f.type === 'channel_data');
    const seqs = data.map(seqOf);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(data.map((f) => f.channel)).toEqual(expect.arrayContaining(['userFills', 'positions', 'account', 'orders']));
  });
});
