/** The account reads operations (see operations/index.ts). */
import type { Operation } from '../../contract/operation.ts';
import { accountStats } from './account-stats.ts';
import { accountTransferUpdates } from './account-transfer-updates.ts';
import { apiKeys } from './api-keys.ts';
import { fill } from './fill.ts';
import { fills } from './fills.ts';
import { funding, fundingPayments } from './funding.ts';
import { interest } from './interest.ts';
import { leverages } from './leverages.ts';
import { openOrders } from './open-orders.ts';
import { order } from './order.ts';
import { orders } from './orders.ts';
import { portfolio } from './portfolio.ts';
import { positions } from './positions.ts';
import { rateLimit } from './rate-limit.ts';
import { spotFills } from './spot-fills.ts';
import { spotPositions } from './spot-positions.ts';

export const ACCOUNT_READS: readonly Operation[] = [
  positions,
  leverages,
  accountStats,
  openOrders,
  orders,
  order,
  fills,
  fill,
  funding,
  fundingPayments,
  interest,
  accountTransferUpdates,
  rateLimit,
  apiKeys,
  portfolio,
  spotPositions,
  spotFills,
];
