/**
 * Position rows (supplement §7), keyed by marketId string, open positions only.
 *
 * leverage is the position's effective leverage, notional / margin used; borrowedCapital is
 * what the position borrows beyond its margin (negative for longs); marginUsed is
 * |size|·mark·IMF for cross and the pool for isolated.
 */
import { Type, type Static } from 'typebox';
import { POSITION_SIDES } from '../../engine/spec.ts';
import { activeMarkets, type Account, type AccountMarket, type MarketState } from '../../engine/index.ts';
import { effectiveImfPpm, marginPrice, unrealized } from '../../engine/margin.ts';
import type { Exchange } from './exchange.ts';
import { averagePrice, price, size, usd } from '../contract/format.ts';
import { stringEnum } from '../contract/reply-schema.ts';

/** One position row, fields in the order they are written. */
export const PositionRecord = Type.Object({
  address: Type.String(),
  accountIndex: Type.Integer(),
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
  side: stringEnum(POSITION_SIDES),
  size: Type.String(),
  averageEntryPrice: Type.String(),
  leverage: Type.String(),
  marginMode: stringEnum(['CROSS', 'ISOLATED'] as const),
  borrowedCapital: Type.String(),
  marginUsed: Type.String(),
  positionValueNotional: Type.String(),
  unrealizedPnl: Type.String(),
  markPx: Type.String(),
  /** Absent on the positions channel's updates. */
  cumulativeFunding: Type.Optional(Type.Object({ allTime: Type.String(), sinceOpen: Type.String(), sinceChange: Type.String() })),
});
export type PositionRecord = Static<typeof PositionRecord>;

/** Open positions keyed by marketId string. */
export const PositionRecords = Type.Record(Type.String(), PositionRecord);

function notionalQuantums(am: AccountMarket, ms: MarketState): bigint {
  return BigInt(am.size) * BigInt(marginPrice(ms)) * ms.spec.valueMul;
}

export function positionRecord(account: Account, am: AccountMarket, ms: MarketState, withFunding: boolean): PositionRecord {
  const mark = marginPrice(ms);
  const value = notionalQuantums(am, ms);
  const abs = value < 0n ? -value : value;
  const marginUsed = am.isolated ? am.isolatedMargin : (abs * effectiveImfPpm(ms, am) + 999_999n) / 1_000_000n;
  const costAbs = am.cost < 0n ? -am.cost : am.cost;
  const record: PositionRecord = {
    address: account.address,
    accountIndex: account.index,
    marketId: ms.spec.id,
    marketDisplayName: ms.spec.displayName,
    side: am.size > 0 ? 'LONG' : 'SHORT',
    size: (am.size < 0 ? '-' : '') + size(ms.spec, Math.abs(am.size)),
    averageEntryPrice: averagePrice(ms.spec, Number(costAbs / ms.spec.valueMul), Math.abs(am.size)),
    leverage: marginUsed > 0n ? (Number(abs) / Number(marginUsed)).toFixed(2) : '0',
    marginMode: am.isolated ? 'ISOLATED' : 'CROSS',
    borrowedCapital: usd(am.size > 0 ? -(abs - marginUsed) : abs - marginUsed),
    marginUsed: usd(marginUsed),
    positionValueNotional: usd(value),
    unrealizedPnl: usd(unrealized(am, mark, ms.spec.valueMul)),
    markPx: mark > 0 ? price(ms.spec, mark) : '0',
  };
  if (withFunding) {
    record.cumulativeFunding = { allTime: usd(am.fundingAllTime), sinceOpen: usd(am.fundingSinceOpen), sinceChange: usd(am.fundingSinceChange) };
  }
  return record;
}

export function positionRecords(exchange: Exchange, account: Account, withFunding = true): Record<string, PositionRecord> {
  const out: Record<string, PositionRecord> = {};
  const open = activeMarkets(account).filter((am) => am.size !== 0).sort((a, b) => a.marketId - b.marketId);
  for (const am of open) out[String(am.marketId)] = positionRecord(account, am, exchange.engine.bySlot[am.slot]!, withFunding);
  return out;
}
