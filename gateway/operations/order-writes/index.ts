/** The order writes operations (see operations/index.ts). */
import type { Operation } from '../../contract/operation.ts';
import { batchCancelOrders } from './batch-cancel-orders.ts';
import { batchModifyOrders } from './batch-modify-orders.ts';
import { batchPlaceOrders } from './batch-place-orders.ts';
import { cancelAllOrders } from './cancel-all-orders.ts';
import { cancelOrder } from './cancel-order.ts';
import { modifyOrder } from './modify-order.ts';
import { scheduleCancel } from './schedule-cancel.ts';

export const ORDER_WRITES: readonly Operation[] = [cancelOrder, modifyOrder, batchPlaceOrders, batchCancelOrders, batchModifyOrders, cancelAllOrders, scheduleCancel];
