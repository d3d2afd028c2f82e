/** Every operation of the interface that perpsim serves, in the order `GET /` lists them. */
import type { Operation } from '../contract/operation.ts';
import { account } from './account-reads/account.ts';
import { AFFILIATE } from './affiliate/index.ts';
import { ACCOUNT_READS } from './account-reads/index.ts';
import { ACCOUNT_WRITES } from './account-writes/index.ts';
import { MARKET_READS } from './market-reads/index.ts';
import { ORDER_WRITES } from './order-writes/index.ts';
import { health } from './health.ts';
import { NOTIFICATIONS } from './notifications/index.ts';
import { markets } from './market-reads/markets.ts';
import { placeOrder } from './order-writes/place-order.ts';
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
