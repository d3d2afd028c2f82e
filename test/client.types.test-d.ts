/**
 * The SDK's reply types (client/types.ts) against the gateway's reply schemas: every reply the
 * schemas allow is a value of the SDK's type, and the SDK names no field that no reply has.
 * Type-checked by `npm run typecheck` and by test/client.types.test.ts.
 */
import type { Static } from 'typebox';
import { expectTypeOf } from 'vitest';
import type { Account, CancelAllReply, OrderAck, Position, ScheduleCancelReply } from '../client/types.ts';
import type { AccountRecord } from '../gateway/operations/account.ts';
import type { CancelAllOrdersAccepted } from '../gateway/operations/cancel-all-orders.ts';
import type { ScheduleCancelReply as ScheduleCancelSchema } from '../gateway/operations/schedule-cancel.ts';
import type { CancelOrderAccepted, CancelOrderRejected } from '../gateway/operations/cancel-order.ts';
import type { ModifyOrderAccepted, ModifyOrderRejected } from '../gateway/operations/modify-order.ts';
import type { PlaceOrderAccepted, PlaceOrderRejected } from '../gateway/operations/place-order.ts';
import type { PositionRecord } from '../gateway/positions.ts';

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
