/** Every operation of the interface that perpsim serves, in the order `GET /` lists them. */
import type { Operation } from '../contract/operation.ts';
import { account } from './account.ts';
import { AFFILIATE } from './group-affiliate.ts';
import { ACCOUNT_READS } from './group-account-reads.ts';
import { ACCOUNT_WRITES } from './group-account-writes.ts';
import { MARKET_READS } from './group-market-reads.ts';
import { ORDER_WRITES } from './group-order-writes.ts';
import { health } from './health.ts';
import { NOTIFICATIONS } from './group-notifications.ts';
import { markets } from './markets.ts';
import { placeOrder } from './place-order.ts';
import { rootOperation } from './root.ts';
import { time } from './time.ts';

export const OPERATIONS: readonly Operation[] = [
  rootOperation(() => OPERATIONS),
  health,
  time,
  markets,
  ...MARKET_READS,
  account,
  ...ACCOUNT_READS,
  placeOrder,
  ...ORDER_WRITES,
  ...ACCOUNT_WRITES,
  ...AFFILIATE,
  ...NOTIFICATIONS,
];
