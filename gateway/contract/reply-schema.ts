/**
 * Building blocks of the operations' reply schemas (TypeBox), shared by the operation records.
 *
 * Contract: a reply schema lists every field its handler writes, in the order the handler
 * writes them: fastify serializes replies with fast-json-stringify compiled from these schemas,
 * which writes declared fields in declaration order and drops undeclared ones (open maps say
 * so with `additionalProperties`). Numbers that may not be integers are `Type.Number()`: the
 * compiled serializer truncates a non-integer declared `integer`.
 */
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { CANDLE_TIMEFRAMES, ERROR_CODES, ERROR_SOURCES, ERROR_TYPES, FILL_ROLES, MARKET_STATUSES, ORDER_STATES, ORDER_STATUSES, ORDER_TYPES, RATE_LIMIT_POOLS, REJECTION_REASONS, SIDES, TIME_IN_FORCE, TPSL_TYPES } from '../../engine/spec.ts';

/** A string from a fixed vocabulary: typed as its union, serialized as a plain string. */
export function stringEnum<const T extends readonly string[]>(values: T): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

/** A batch row of an element that did not go through. */
export const ErrorRow = Type.Object({ orderId: Type.String(), clientId: Type.String(), status: Type.Literal('ERROR'), error: Type.String() });

/**
 * The error body (interface.md "Error body"): `error` first; a batch's 401 adds one ERROR row per
 * element (`responses`); 429s add their own fields after it (written as they come).
 */
export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.Optional(stringEnum(ERROR_CODES)),
    errorSource: Type.Optional(stringEnum(ERROR_SOURCES)),
    errorType: Type.Optional(stringEnum(ERROR_TYPES)),
    rejectionReason: Type.Optional(stringEnum(REJECTION_REASONS)),
    responses: Type.Optional(Type.Array(ErrorRow)),
  },
  { additionalProperties: true },
);

export type ErrorBody = Static<typeof ErrorBody>;

/** `rateLimit` on order-write replies: the pool charged and what remains (-1: not enforced). */
export const RateLimitInfo = Type.Object({ pool: stringEnum(RATE_LIMIT_POOLS), remaining: Type.Number() });

/** Reply schemas by status code (`'4xx'` for every refusal), as fastify's `response`. */
export type Responses = Readonly<Record<string, TSchema>>;

/** The reply bodies a `Responses` map allows: the union of its schemas' static types. */
export type ReplyBody<R extends Responses> = { [K in keyof R]: Static<R[K]> }[keyof R];

/** The refusals of every operation that declares its replies. */
export const REFUSALS = { '4xx': ErrorBody, '5xx': ErrorBody } as const;

/** A 200 reply and the refusals: the `response` of most reads. */
export function okReplies<T extends TSchema>(ok: T) {
  return { 200: ok, ...REFUSALS } as const;
}

/** Schema or null, serialized as the value or `null` (fast-json-stringify's `nullable`). */
export function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

/** An open map (`{id: row}`), keys in insertion order. */
export function mapOf<T extends TSchema>(row: T) {
  return Type.Record(Type.String(), row);
}

/** The order record (format.ts `formatOrder`), fields in the order it writes them. */
export const OrderRecord = Type.Object({
  orderId: Type.String(),
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
  side: stringEnum(SIDES),
  status: stringEnum(ORDER_STATUSES),
  price: Type.String(),
  originalSize: Type.String(),
  remainingSize: Type.String(),
  updatedAt: Type.Number(),
  clientId: Type.Optional(Type.String()),
  address: Type.Optional(Type.String()),
  accountIndex: Type.Optional(Type.Integer()),
  type: Type.Optional(stringEnum(ORDER_TYPES)),
  filledSize: Type.Optional(Type.String()),
  avgFillPrice: Type.Optional(Type.String()),
  timeInForce: Type.Optional(stringEnum(['GTC', ...TIME_IN_FORCE] as const)),
  goodTilTime: Type.Optional(Type.String()),
  reduceOnly: Type.Optional(Type.Literal(true)),
  triggerPrice: Type.Optional(Type.String()),
  tpslType: Type.Optional(stringEnum(TPSL_TYPES)),
  isPositionTPSL: Type.Optional(Type.Literal(true)),
  parentOrderId: Type.Optional(Type.String()),
  rejectionReason: Type.Optional(Type.String()),
  cancelReason: Type.Optional(Type.String()),
  state: Type.Optional(stringEnum(ORDER_STATES)),
  createdAt: Type.Optional(Type.Number()),
  sequenceNumber: Type.Optional(Type.Integer()),
});

/** The fill record (format.ts `formatFill`), fields in the order it writes them. */
export const FillRecord = Type.Object({
  tradeId: Type.String(),
  orderId: Type.String(),
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
  side: stringEnum(SIDES),
  size: Type.String(),
  price: Type.String(),
  fee: Type.String(),
  role: stringEnum(FILL_ROLES),
  createdAt: Type.Number(),
  accountIndex: Type.Optional(Type.Integer()),
  address: Type.Optional(Type.String()),
  clientId: Type.Optional(Type.String()),
  closedPnl: Type.Optional(Type.String()),
  originalSize: Type.Optional(Type.String()),
  remainingSize: Type.Optional(Type.String()),
  positionEffect: Type.Optional(Type.String()),
  sequenceNumber: Type.Optional(Type.Integer()),
  liquidation: Type.Optional(Type.Object({ method: Type.String(), liquidatedUser: Type.String() })),
});

/** The candle record (candles.ts `candleRecord`, supplement §7). */
export const CandleRecord = Type.Object({
  marketDisplayName: Type.String(),
  marketId: Type.Integer(),
  timeframe: stringEnum(CANDLE_TIMEFRAMES),
  openTime: Type.Number(),
  open: Type.String(),
  high: Type.String(),
  low: Type.String(),
  close: Type.String(),
  volume: Type.String(),
  takerBuyVolume: Type.String(),
  notionalVolume: Type.String(),
  takerBuyNotionalVolume: Type.String(),
  tradeCount: Type.Integer(),
  isFinal: Type.Boolean(),
});

/** GET /v1/candles and /v1/api-meta/candles. */
export const CANDLES_RESPONSES = okReplies(Type.Object({ candles: Type.Array(CandleRecord) }));

/** A market's regular trading hours (null for 24/7 markets). */
export const TradingHours = nullable(
  Type.Object({ startSecondsOfDay: Type.Integer(), endSecondsOfDay: Type.Integer(), timezone: Type.String(), isOvernight: Type.Boolean() }),
);

/** The market row of GET /v1/markets and the markets channel (markets.ts `marketRow`), live field order. */
export const MarketRow = Type.Object({
  marketDisplayName: Type.String(),
  fullAssetName: Type.Optional(Type.String()),
  marketId: Type.Integer(),
  status: stringEnum(MARKET_STATUSES),
  baseAsset: Type.String(),
  quoteAsset: Type.String(),
  tickSize: Type.String(),
  stepSize: Type.String(),
  tickTiers: Type.Array(Type.Object({ upToPrice: Type.Optional(Type.String()), tick: Type.String() })),
  minOrderNotional: Type.String(),
  minOrderSize: Type.String(),
  maxOrderSize: Type.String(),
  oraclePrice: Type.String(),
  markPrice: Type.String(),
  lastTradePrice: Type.Optional(Type.String()),
  fundingRate: Type.String(),
  nextFundingRate: Type.String(),
  nextFundingAt: Type.Integer(),
  priceChange24h: Type.String(),
  volume24h: Type.String(),
  volume24hNotional: Type.String(),
  high24h: Type.Optional(Type.String()),
  low24h: Type.Optional(Type.String()),
  trades24h: Type.Integer(),
  openInterest: Type.String(),
  openInterestCapNotional: Type.Null(),
  initialMarginFraction: Type.String(),
  maintenanceMarginFraction: Type.String(),
  offHoursInitialMarginFraction: Type.String(),
  regularTradingHours: TradingHours,
  isOutsideRth: nullable(Type.Boolean()),
  currentSettlementPrice: Type.Null(),
  upperTradingBound: Type.Null(),
  lowerTradingBound: Type.Null(),
  nextUpperTradingBound: Type.Null(),
  nextLowerTradingBound: Type.Null(),
  isUpperInExpansionZone: Type.Null(),
  isLowerInExpansionZone: Type.Null(),
  upperZoneEnteredAt: Type.Null(),
  upperExpectedExpansionAt: Type.Null(),
  lowerZoneEnteredAt: Type.Null(),
  lowerExpectedExpansionAt: Type.Null(),
  type: Type.Literal('PERPETUAL'),
  category: nullable(Type.String()),
  addedTimestamp: Type.Integer(),
  assetResolution: Type.String(),
  pythId: Type.Optional(Type.String()),
});
export type MarketRow = Static<typeof MarketRow>;
