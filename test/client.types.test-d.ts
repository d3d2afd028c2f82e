/**
 * The SDK's reply types (client/types.ts) against the gateway's reply schemas: every reply the
 * schemas allow is a value of the SDK's type, and the SDK names no field that no reply has.
 * Type-checked by `npm run typecheck` and by test/client.types.test.ts.
 */
import type { Static, TSchema } from 'typebox';
import { expectTypeOf } from 'vitest';
import type { RestClient } from '../client/rest.ts';
import type {
  Account,
  AdjustMarginReply,
  BatchReply,
  CancelAllReply,
  Candle,
  CreateApiKeyReply,
  FeeTier,
  Fill,
  Market,
  Order,
  OrderAck,
  Position,
  RevokeApiKeyReply,
  ScheduleCancelReply,
  SetLeverageReply,
  TransferReply,
  TransferUpdate,
} from '../client/types.ts';
import type { CANDLES_RESPONSES, CandleRecord, FillRecord, MarketRow, OrderRecord } from '../gateway/contract/reply-schema.ts';
import type { ACCOUNT_STATS_RESPONSES } from '../gateway/operations/account-reads/account-stats.ts';
import type { ACCOUNT_TRANSFER_UPDATES_RESPONSES, AccountTransferUpdateSchema } from '../gateway/operations/account-reads/account-transfer-updates.ts';
import type { ADJUST_ISOLATED_MARGIN_RESPONSES } from '../gateway/operations/account-writes/adjust-isolated-margin.ts';
import type { AFFILIATE_CLAIM_RESPONSES } from '../gateway/operations/affiliate/affiliate-claim.ts';
import type { AFFILIATE_CLAIMS_RESPONSES } from '../gateway/operations/affiliate/affiliate-claims.ts';
import type { CODE_AVAILABLE_RESPONSES } from '../gateway/operations/affiliate/affiliate-code-available.ts';
import type { AFFILIATE_CODE_RESPONSES } from '../gateway/operations/affiliate/affiliate-code.ts';
import type { COMMISSIONS_RESPONSES } from '../gateway/operations/affiliate/affiliate-commissions.ts';
import type { CLAIM_STATUS_RESPONSES, SUBMITTED_RESPONSES } from '../gateway/operations/support/affiliate-common.ts';
import type { AFFILIATE_INFO_RESPONSES } from '../gateway/operations/affiliate/affiliate-info.ts';
import type { INVITE_CODES_RESPONSES } from '../gateway/operations/affiliate/affiliate-invite-codes.ts';
import type { MY_REFERRER_RESPONSES } from '../gateway/operations/affiliate/affiliate-my-referrer.ts';
import type { REFEREES_RESPONSES } from '../gateway/operations/affiliate/affiliate-referees.ts';
import type { API_KEYS_RESPONSES } from '../gateway/operations/account-reads/api-keys.ts';
import type { API_META_MARKETS_RESPONSES } from '../gateway/operations/market-reads/api-meta-markets.ts';
import type { API_META_OVERVIEW_RESPONSES } from '../gateway/operations/market-reads/api-meta-overview.ts';
import type { API_META_SPOT_OVERVIEW_RESPONSES } from '../gateway/operations/market-reads/api-meta-spot-overview.ts';
import type { BATCH_CANCEL_ORDERS_RESPONSES } from '../gateway/operations/order-writes/batch-cancel-orders.ts';
import type { BATCH_MODIFY_ORDERS_RESPONSES } from '../gateway/operations/order-writes/batch-modify-orders.ts';
import type { BATCH_PLACE_ORDERS_RESPONSES } from '../gateway/operations/order-writes/batch-place-orders.ts';
import type { BBO_RESPONSES } from '../gateway/operations/market-reads/bbo.ts';
import type { COMMISSION_RATES_RESPONSES } from '../gateway/operations/affiliate/commission-rates.ts';
import type { COMPLIANCE_RESPONSES } from '../gateway/operations/market-reads/compliance.ts';
import type { CREATE_API_KEY_RESPONSES } from '../gateway/operations/account-writes/create-api-key.ts';
import type { FEE_TIERS_RESPONSES } from '../gateway/operations/market-reads/fee-tiers.ts';
import type { FILL_RESPONSES } from '../gateway/operations/account-reads/fill.ts';
import type { FILLS_RESPONSES } from '../gateway/operations/account-reads/fills.ts';
import type { FUNDING_RATES_RESPONSES } from '../gateway/operations/market-reads/funding-rates.ts';
import type { FUNDING_RESPONSES } from '../gateway/operations/account-reads/funding.ts';
import type { INTEREST_RESPONSES } from '../gateway/operations/account-reads/interest.ts';
import type { L2_ORDER_BOOK_RESPONSES } from '../gateway/operations/market-reads/l2-order-book.ts';
import type { LEADERBOARD_RESPONSES } from '../gateway/operations/market-reads/leaderboard.ts';
import type { LEVERAGES_RESPONSES } from '../gateway/operations/account-reads/leverages.ts';
import type { MARKETS_RESPONSES } from '../gateway/operations/market-reads/markets.ts';
import type { MIDS_RESPONSES } from '../gateway/operations/market-reads/mids.ts';
import type { NOTIFICATION_TOKENS_RESPONSES } from '../gateway/operations/notifications/notification-tokens.ts';
import type { MARK_SEEN_RESPONSES } from '../gateway/operations/notifications/notifications-mark-seen.ts';
import type { NOTIFICATIONS_RESPONSES } from '../gateway/operations/notifications/notifications.ts';
import type { ORDER_RESPONSES } from '../gateway/operations/account-reads/order.ts';
import type { ORDER_LIST_RESPONSES } from '../gateway/operations/support/order-rows.ts';
import type { PORTFOLIO_RESPONSES } from '../gateway/operations/account-reads/portfolio.ts';
import type { POSITIONS_RESPONSES } from '../gateway/operations/account-reads/positions.ts';
import type { PRICES_RESPONSES } from '../gateway/operations/market-reads/prices.ts';
import type { RATE_LIMIT_RESPONSES } from '../gateway/operations/account-reads/rate-limit.ts';
import type { REVOKE_API_KEY_RESPONSES } from '../gateway/operations/account-writes/revoke-api-key.ts';
import type { ROOT_RESPONSES } from '../gateway/operations/root.ts';
import type { SET_LEVERAGE_RESPONSES } from '../gateway/operations/account-writes/set-leverage.ts';
import type { TIME_RESPONSES } from '../gateway/operations/time.ts';
import type { TRADE_RESPONSES } from '../gateway/operations/market-reads/trade.ts';
import type { TRADES_RESPONSES } from '../gateway/operations/market-reads/trades.ts';
import type { TRANSFER_RESPONSES } from '../gateway/operations/account-writes/transfer.ts';
import type { PREFERENCES_RESPONSES } from '../gateway/operations/notifications/user-preferences.ts';
import type { WITHDRAW_RESPONSES } from '../gateway/operations/account-writes/withdraw.ts';
import type { AccountRecord } from '../gateway/operations/account-reads/account.ts';
import type { CancelAllOrdersAccepted } from '../gateway/operations/order-writes/cancel-all-orders.ts';
import type { ScheduleCancelReply as ScheduleCancelSchema } from '../gateway/operations/order-writes/schedule-cancel.ts';
import type { CancelOrderAccepted, CancelOrderRejected } from '../gateway/operations/order-writes/cancel-order.ts';
import type { ModifyOrderAccepted, ModifyOrderRejected } from '../gateway/operations/order-writes/modify-order.ts';
import type { PlaceOrderAccepted, PlaceOrderRejected } from '../gateway/operations/order-writes/place-order.ts';
import type { PositionRecord } from '../gateway/read-models/positions.ts';

/** The keys a type names, its index signature left out. */
type NamedKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

type OrderWriteReplies =
  | Static<typeof PlaceOrderAccepted>
  | Static<typeof PlaceOrderRejected>
  | Static<typeof ModifyOrderAccepted>
  | Static<typeof ModifyOrderRejected>
  | Static<typeof CancelOrderAccepted>
  | Static<typeof CancelOrderRejected>;

// placeOrder, modifyOrder and cancelOrder replies (200 and 202) are OrderAck values.
expectTypeOf<Static<typeof PlaceOrderAccepted>>().toExtend<OrderAck>();
expectTypeOf<Static<typeof PlaceOrderRejected>>().toExtend<OrderAck>();
expectTypeOf<Static<typeof ModifyOrderAccepted>>().toExtend<OrderAck>();
expectTypeOf<Static<typeof ModifyOrderRejected>>().toExtend<OrderAck>();
expectTypeOf<Static<typeof CancelOrderAccepted>>().toExtend<OrderAck>();
expectTypeOf<Static<typeof CancelOrderRejected>>().toExtend<OrderAck>();
// Every field OrderAck names is written by one of those replies.
expectTypeOf<Exclude<NamedKeys<OrderAck>, AllKeys<OrderWriteReplies>>>().toEqualTypeOf<never>();

// cancelAllOrders and scheduleCancel: the same type both ways.
expectTypeOf<Static<typeof CancelAllOrdersAccepted>>().toEqualTypeOf<CancelAllReply>();
expectTypeOf<Static<typeof ScheduleCancelSchema>>().toEqualTypeOf<ScheduleCancelReply>();

// GET /v1/account: the record and its position rows.
expectTypeOf<Static<typeof AccountRecord>>().toExtend<Account>();
expectTypeOf<Static<typeof PositionRecord>>().toExtend<Position>();
expectTypeOf<Exclude<NamedKeys<Account>, keyof Static<typeof AccountRecord>>>().toEqualTypeOf<never>();
expectTypeOf<Exclude<NamedKeys<Position>, keyof Static<typeof PositionRecord> | 'sequenceNumber'>>().toEqualTypeOf<never>();

/** Every key of every member of a union. */
type AllKeys<T> = T extends unknown ? keyof T : never;

// ---------------------------------------------------------------------------------------------
// Every other operation: the SDK method's resolved type against the operation's success reply.

/** The success body an operation's schemas allow (its 200 and 202 replies). */
type Success<R> = (R extends { 200: infer S extends TSchema } ? Static<S> : never) | (R extends { 202: infer S extends TSchema } ? Static<S> : never);
/** What a RestClient method resolves to. */
type Sdk<K extends keyof RestClient> = RestClient[K] extends (...args: never[]) => Promise<infer T> ? T : never;
/** The SDK names no field the reply lacks (its index signature left out). */
type Unknown<S, R> = Exclude<NamedKeys<S>, AllKeys<R>>;

expectTypeOf<Success<typeof ROOT_RESPONSES>>().toExtend<Sdk<'serviceInfo'>>();
expectTypeOf<Success<typeof TIME_RESPONSES>>().toEqualTypeOf<Sdk<'time'>>();
expectTypeOf<Success<typeof MARKETS_RESPONSES>>().toExtend<Sdk<'markets'>>();
expectTypeOf<Unknown<Market, Static<typeof MarketRow>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof BBO_RESPONSES>>().toEqualTypeOf<Sdk<'bbo'>>();
expectTypeOf<Success<typeof L2_ORDER_BOOK_RESPONSES>>().toExtend<Sdk<'l2OrderBook'>>();
expectTypeOf<Unknown<Sdk<'l2OrderBook'>, Success<typeof L2_ORDER_BOOK_RESPONSES>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof MIDS_RESPONSES>>().toExtend<Sdk<'mids'>>();
expectTypeOf<Success<typeof PRICES_RESPONSES>>().toEqualTypeOf<Sdk<'prices'>>();
expectTypeOf<Success<typeof TRADES_RESPONSES>>().toExtend<Sdk<'trades'>>();
expectTypeOf<Success<typeof TRADE_RESPONSES>>().toExtend<Sdk<'trade'>>();
expectTypeOf<Unknown<Sdk<'trade'>, Success<typeof TRADE_RESPONSES>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof CANDLES_RESPONSES>>().toExtend<Sdk<'candles'>>();
expectTypeOf<Unknown<Candle, Static<typeof CandleRecord>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof FUNDING_RATES_RESPONSES>>().toEqualTypeOf<Sdk<'fundingRates'>>();
expectTypeOf<Success<typeof FEE_TIERS_RESPONSES>>().toExtend<Sdk<'feeTiers'>>();
expectTypeOf<Unknown<FeeTier, Success<typeof FEE_TIERS_RESPONSES>['feeTiers'][number]>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof COMPLIANCE_RESPONSES>>().toExtend<Sdk<'compliance'>>();
expectTypeOf<Success<typeof API_META_MARKETS_RESPONSES>>().toExtend<Sdk<'apiMetaMarkets'>>();
expectTypeOf<Success<typeof API_META_OVERVIEW_RESPONSES>>().toExtend<Sdk<'apiMetaOverview'>>();
expectTypeOf<Success<typeof API_META_SPOT_OVERVIEW_RESPONSES>>().toExtend<Sdk<'apiMetaSpotOverview'>>();
expectTypeOf<Success<typeof POSITIONS_RESPONSES>>().toExtend<Sdk<'positions'>>();
expectTypeOf<Success<typeof LEVERAGES_RESPONSES>>().toEqualTypeOf<Sdk<'leverages'>>();
expectTypeOf<Success<typeof ACCOUNT_STATS_RESPONSES>>().toExtend<Sdk<'accountStats'>>();
expectTypeOf<Success<typeof ORDER_LIST_RESPONSES>>().toExtend<Sdk<'orders'>>();
expectTypeOf<Success<typeof ORDER_LIST_RESPONSES>>().toExtend<Sdk<'openOrders'>>();
expectTypeOf<Success<typeof ORDER_RESPONSES>>().toExtend<Sdk<'order'>>();
expectTypeOf<Unknown<Order, Static<typeof OrderRecord>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof FILLS_RESPONSES>>().toExtend<Sdk<'fills'>>();
expectTypeOf<Success<typeof FILL_RESPONSES>>().toExtend<Sdk<'fill'>>();
expectTypeOf<Unknown<Fill, Static<typeof FillRecord>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof FUNDING_RESPONSES>>().toEqualTypeOf<Sdk<'funding'>>();
expectTypeOf<Success<typeof INTEREST_RESPONSES>>().toExtend<Sdk<'interest'>>();
expectTypeOf<Success<typeof ACCOUNT_TRANSFER_UPDATES_RESPONSES>>().toExtend<Sdk<'accountTransferUpdates'>>();
expectTypeOf<Unknown<TransferUpdate, Static<typeof AccountTransferUpdateSchema>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof RATE_LIMIT_RESPONSES>>().toEqualTypeOf<Sdk<'rateLimit'>>();
expectTypeOf<Success<typeof API_KEYS_RESPONSES>>().toEqualTypeOf<Sdk<'apiKeys'>>();
// The batches: every row (an element's reply or an ERROR row) is a BatchRow.
expectTypeOf<Success<typeof BATCH_PLACE_ORDERS_RESPONSES>>().toExtend<Sdk<'batchPlaceOrders'>>();
expectTypeOf<Success<typeof BATCH_CANCEL_ORDERS_RESPONSES>>().toExtend<Sdk<'batchCancelOrders'>>();
expectTypeOf<Success<typeof BATCH_MODIFY_ORDERS_RESPONSES>>().toExtend<Sdk<'batchModifyOrders'>>();
expectTypeOf<Unknown<BatchReply, Success<typeof BATCH_PLACE_ORDERS_RESPONSES>>>().toEqualTypeOf<never>();
// Account writes.
expectTypeOf<Success<typeof SET_LEVERAGE_RESPONSES>>().toExtend<Sdk<'setLeverage'>>();
expectTypeOf<Unknown<SetLeverageReply, Success<typeof SET_LEVERAGE_RESPONSES>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof ADJUST_ISOLATED_MARGIN_RESPONSES>>().toExtend<Sdk<'adjustIsolatedMargin'>>();
expectTypeOf<Unknown<AdjustMarginReply, Success<typeof ADJUST_ISOLATED_MARGIN_RESPONSES>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof WITHDRAW_RESPONSES>>().toExtend<TransferReply>();
expectTypeOf<Success<typeof TRANSFER_RESPONSES>>().toExtend<TransferReply>();
expectTypeOf<Unknown<TransferReply, Success<typeof WITHDRAW_RESPONSES> | Success<typeof TRANSFER_RESPONSES>>>().toEqualTypeOf<never>();
expectTypeOf<Success<typeof CREATE_API_KEY_RESPONSES>>().toEqualTypeOf<CreateApiKeyReply>();
expectTypeOf<Success<typeof REVOKE_API_KEY_RESPONSES>>().toEqualTypeOf<RevokeApiKeyReply>();
// Affiliate, notifications, preferences, leaderboards.
expectTypeOf<Success<typeof SUBMITTED_RESPONSES>>().toExtend<Sdk<'affiliateCreateCode'>>();
expectTypeOf<Success<typeof AFFILIATE_CLAIM_RESPONSES>>().toExtend<Sdk<'affiliateClaim'>>();
expectTypeOf<Success<typeof INVITE_CODES_RESPONSES>>().toExtend<Sdk<'affiliateInviteCodes'>>();
expectTypeOf<Success<typeof AFFILIATE_INFO_RESPONSES>>().toExtend<Sdk<'affiliateInfo'>>();
expectTypeOf<Success<typeof AFFILIATE_CODE_RESPONSES>>().toExtend<Sdk<'affiliateCode'>>();
expectTypeOf<Success<typeof REFEREES_RESPONSES>>().toExtend<Sdk<'affiliateReferees'>>();
expectTypeOf<Success<typeof COMMISSIONS_RESPONSES>>().toExtend<Sdk<'affiliateCommissions'>>();
expectTypeOf<Success<typeof MY_REFERRER_RESPONSES>>().toExtend<Sdk<'affiliateMyReferrer'>>();
expectTypeOf<Success<typeof AFFILIATE_CLAIMS_RESPONSES>>().toExtend<Sdk<'affiliateClaims'>>();
expectTypeOf<Success<typeof CLAIM_STATUS_RESPONSES>>().toExtend<Sdk<'affiliateClaimStatus'>>();
expectTypeOf<Success<typeof CODE_AVAILABLE_RESPONSES>>().toExtend<Sdk<'affiliateCodeAvailable'>>();
expectTypeOf<Success<typeof COMMISSION_RATES_RESPONSES>>().toExtend<Sdk<'commissionRates'>>();
expectTypeOf<Success<typeof NOTIFICATION_TOKENS_RESPONSES>>().toEqualTypeOf<Sdk<'registerPushToken'>>();
expectTypeOf<Success<typeof NOTIFICATIONS_RESPONSES>>().toExtend<Sdk<'notifications'>>();
expectTypeOf<Success<typeof MARK_SEEN_RESPONSES>>().toEqualTypeOf<Sdk<'markNotificationsSeen'>>();
expectTypeOf<Success<typeof PREFERENCES_RESPONSES>>().toExtend<Sdk<'userPreferences'>>();
expectTypeOf<Success<typeof PREFERENCES_RESPONSES>>().toExtend<Sdk<'setUserPreferences'>>();
expectTypeOf<Success<typeof LEADERBOARD_RESPONSES>>().toExtend<Sdk<'leaderboard'>>();
expectTypeOf<Success<typeof PORTFOLIO_RESPONSES>>().toExtend<Sdk<'portfolio'>>();
