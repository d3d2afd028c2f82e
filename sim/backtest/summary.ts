/**
 * What a backtest measures: the strategy's fills, money flows and sampled equity, and the
 * summary built from them (summary.json).
 *
 * Definitions (docs/decisions.md "Summary, report and metrics"):
 * - realized PnL: Σ over fills of the PnL of the cost basis they released, before fees;
 *   fees, funding (positive = received) and borrow interest are reported apart; unrealized PnL is
 *   equity minus balance, isolated pools and accrued funding, at the engine's mark. So
 *   equity − starting balance = realized − fees + funding − interest + unrealized + accrued funding.
 * - equity is sampled every `sampleMs` of simulated time and at the end; max drawdown is the
 *   largest fall from a running peak of those samples. Sharpe, Sortino, Calmar, win rate,
 *   profit factor, holding time and exposure: metrics.ts (null with a reason when the run cannot
 *   give them).
 * - turnover: traded notional over the starting balance.
 * - rejections by reason: engine rejections (rejectionReason of REJECTED orders and of refused
 *   cancels / modifies) and gateway refusals (errorType, or HTTP_<status> without one; failed
 *   batch elements count as BATCH_ELEMENT_ERROR).
 * Money is summed exactly in bigint quote quantums and printed as USD decimal strings.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accountView, activeMarkets, findAccount, marketOf, type Engine, type FillEvent, type MarketSpec } from '../../engine/index.ts';
import { usd } from '../../gateway/contract/format.ts';
import type { Reply } from './client.ts';
import { pow10 } from './decimal-units.ts';
import { renderReport } from './report.ts';
import { sampleReturns, significant, TradeLedger } from './metrics.ts';
import type { FillPoint, Sample, Summary } from './summary-types.ts';
import type { BacktestConfig } from './types.ts';

export type { FillPoint, Sample, Summary } from './summary-types.ts';

export interface BacktestResult {
  summary: Summary;
  fills: FillPoint[];
  samples: Sample[];
  /** summary.json's exact text. */
  summaryJson(): string;
  /** report.html's exact text. */
  reportHtml(): string;
}

function toUsd(q: bigint): number {
  return Number(q) / 1e9;
}

/** Rounds a float for JSON so that the summary never prints noise digits. */
function round(x: number, digits = 6): number {
  if (!Number.isFinite(x)) return 0;
  const r = Number(x.toFixed(digits));
  return Object.is(r, -0) ? 0 : r;
}

export class Recorder {
  private readonly sampleUs: number;
  private nextSample = Infinity;
  private balance = 0n;
  private from = 0;
  private readonly samples: Sample[] = [];
  private readonly fills: FillPoint[] = [];
  private readonly lastTrades = new Map<number, number>();
  private realized = 0n;
  private fees = 0n;
  private fundingTotal = 0n;
  private interestTotal = 0n;
  private notional = 0n;
  private readonly counts = { total: 0, maker: 0, taker: 0, buy: 0, sell: 0, liquidation: 0 };
  private readonly rejections = new Map<string, number>();
  private end = 0;
  private readonly ledger = new TradeLedger();

  constructor(
    private readonly engine: Engine,
    private readonly address: string,
    private readonly accountIndex: number,
    sampleMs: number,
  ) {
    this.sampleUs = Math.max(1, Math.round(sampleMs * 1000));
  }

  start(time: number, balance: bigint): void {
    this.balance = balance;
    this.restart(time);
  }

  /** The run's start moved (a file's first event): sampling starts there. */
  restart(time: number): void {
    this.from = time;
    this.nextSample = time;
  }

  /** `sampleUntil(time.now, …)` without a time argument (see Backtest.advanceTo). */
  sampleUntilTime(time: { readonly now: number }, sample: (time: number) => void): void {
    if (this.nextSample <= time.now) this.sampleUntil(time.now, sample);
  }

  sampleUntil(now: number, sample: (time: number) => void): void {
    while (this.nextSample <= now) {
      const t = this.nextSample;
      this.nextSample += this.sampleUs;
      sample(t);
    }
  }

  sample(time: number, priceOf: (marketId: number) => number): void {
    const account = findAccount(this.engine.accounts, this.address, this.accountIndex);
    const equity = account === undefined ? this.balance : accountView(this.engine, account).equity;
    const positions: Record<number, number> = {};
    const prices: Record<number, number> = {};
    for (const ms of this.engine.markets.values()) {
      const spec = ms.spec;
      const am = account === undefined ? undefined : marketOf(account, ms.slot);
      positions[spec.id] = ((am?.size ?? 0) * spec.step.mantissa) / pow10(spec.step.scale);
      const ticks = priceOf(spec.id) || this.lastTrades.get(spec.id) || 0;
      prices[spec.id] = (ticks * spec.tick.mantissa) / pow10(spec.tick.scale);
    }
    this.samples.push({ time, equity: toUsd(equity), positions, prices });
  }

  lastTrade(marketId: number, price: number): void {
    this.lastTrades.set(marketId, price);
  }

  fill(e: FillEvent, spec: MarketSpec): void {
    this.counts.total++;
    if (e.role === 'MAKER') this.counts.maker++;
    else this.counts.taker++;
    if (e.side === 0) this.counts.buy++;
    else this.counts.sell++;
    if (e.liquidation !== undefined) this.counts.liquidation++;
    this.realized += e.closedPnl + e.fee;
    this.fees += e.fee;
    this.notional += BigInt(e.price) * BigInt(e.size) * spec.valueMul;
    this.ledger.fill(e.time, e.marketId, e.side, e.size, toUsd(e.fee), toUsd(e.closedPnl + e.fee));
    this.fills.push({
      time: e.time,
      marketId: e.marketId,
      side: e.side === 0 ? 'BUY' : 'SELL',
      price: (e.price * spec.tick.mantissa) / pow10(spec.tick.scale),
      size: (e.size * spec.step.mantissa) / pow10(spec.step.scale),
      role: e.role,
    });
  }

  funding(payment: bigint): void {
    this.fundingTotal += payment;
  }

  interest(payment: bigint): void {
    this.interestTotal += payment;
  }

  rejection(reason: string): void {
    this.rejections.set(reason, (this.rejections.get(reason) ?? 0) + 1);
  }

  reply(operation: string, reply: Reply): void {
    if (reply.status >= 400) {
      const type = reply.body.errorType;
      this.rejection(typeof type === 'string' ? type : `HTTP_${reply.status}`);
      return;
    }
    if (operation.startsWith('batch')) {
      const rows = reply.body.responses;
      if (Array.isArray(rows)) for (const row of rows) if ((row as { status?: unknown }).status === 'ERROR') this.rejection('BATCH_ELEMENT_ERROR');
    }
  }

  /** The window ended at `end`; the last sample is taken `now` (after what the strategy sent in onEnd arrived). */
  finish(end: number, now: number, priceOf: (marketId: number) => number): void {
    this.end = end;
    if (this.samples.at(-1)?.time !== now) this.sample(now, priceOf);
  }

  result(config: BacktestConfig, events: number, specs: readonly MarketSpec[]): BacktestResult {
    const account = findAccount(this.engine.accounts, this.address, this.accountIndex);
    const view = account === undefined ? undefined : accountView(this.engine, account);
    const equity = view?.equity ?? this.balance;
    let isolated = 0n;
    if (account !== undefined) for (const am of activeMarkets(account)) isolated += am.isolatedMargin;
    const unrealized = view === undefined ? 0n : view.equity - view.netQuoteBalance - view.accruedFunding - isolated;
    let peak = -Infinity;
    let maxDd = 0;
    let maxDdPct = 0;
    for (const sample of this.samples) {
      const e = sample.equity;
      peak = Math.max(peak, e);
      if (peak - e > maxDd) maxDd = peak - e;
      if (peak > 0 && (peak - e) / peak > maxDdPct) maxDdPct = (peak - e) / peak;
    }
    const metrics = this.ledger.metrics(this.from, this.end, sampleReturns(this.samples, this.sampleUs), maxDdPct, toUsd(this.balance), toUsd(equity));
    const positions: Record<string, string> = {};
    for (const spec of specs) {
      const size = this.samples.at(-1)?.positions[spec.id] ?? 0;
      if (size !== 0) positions[spec.displayName] = String(size);
    }
    const summary: Summary = {
      markets: specs.map((s) => s.displayName),
      data: config.data === 'sim' ? 'sim' : (config.data.file.split(/[\\/]/).at(-1) ?? config.data.file),
      seed: config.seed ?? 1,
      from: this.from,
      to: this.end,
      events,
      queueModel: config.queueModel ?? 'conservative',
      startingBalance: usd(this.balance),
      finalEquity: usd(equity),
      pnl: {
        total: usd(equity - this.balance),
        realized: usd(this.realized),
        unrealized: usd(unrealized),
        fees: usd(this.fees),
        funding: usd(this.fundingTotal),
        interest: usd(this.interestTotal),
      },
      maxDrawdown: round(maxDd, 9).toFixed(2),
      maxDrawdownPct: significant(maxDdPct * 100),
      sharpe: metrics.sharpe,
      sortino: metrics.sortino,
      calmar: metrics.calmar,
      winRate: metrics.winRate,
      profitFactor: metrics.profitFactor,
      avgHoldingSec: metrics.avgHoldingSec,
      exposurePct: metrics.exposurePct,
      trades: metrics.trades,
      returns: metrics.returns,
      unavailable: metrics.unavailable,
      turnover: significant(toUsd(this.notional) / Math.max(1e-9, toUsd(this.balance))),
      tradedNotional: usd(this.notional),
      fills: { ...this.counts },
      rejections: Object.fromEntries([...this.rejections.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      positions,
    };
    const samples = this.samples;
    const fills = this.fills;
    return {
      summary,
      fills,
      samples,
      summaryJson: () => JSON.stringify(summary, null, 2) + '\n',
      reportHtml: () => renderReport(summary, samples, fills, specs),
    };
  }
}

/** Writes summary.json and report.html into `dir` (created when missing); answers their paths. */
export function writeOutputs(result: BacktestResult, dir: string): { summary: string; report: string } {
  mkdirSync(dir, { recursive: true });
  const summary = join(dir, 'summary.json');
  const report = join(dir, 'report.html');
  writeFileSync(summary, result.summaryJson());
  writeFileSync(report, result.reportHtml());
  return { summary, report };
}
