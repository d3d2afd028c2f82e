/** Every operation of the interface that perpsim serves, in the order `GET /` lists them. */
import type { Operation } from '../operation.ts';
import { account } from './account.ts';
import { health } from './health.ts';
import { markets } from './markets.ts';
import { placeOrder } from './place-order.ts';
import { root } from './root.ts';
import { time } from './time.ts';

export const OPERATIONS: readonly Operation[] = [root, health, time, markets, account, placeOrder];
