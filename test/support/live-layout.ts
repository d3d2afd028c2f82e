/**
 * How the differential harness reads the live engine's orders and book (canonical-state.ts):
 * through the engine's own named readers, so the harness follows the engine's storage.
 */
import { OrderRecord, ORDER_FIELDS } from '../../engine/order-record.ts';
import { levelOrders, levelsBestFirst, type Book } from '../../engine/book.ts';
import { LINKED_LAYOUT, type LevelView, type StateLayout } from './canonical-state.ts';

export const LIVE_LAYOUT: StateLayout = {
  ...LINKED_LAYOUT,
  isOrder: (v) => v instanceof OrderRecord,
  orderFields: ORDER_FIELDS,
  bookSide(ms, s) {
    const side = s === 0 ? (ms as { book: Book }).book.bids : (ms as { book: Book }).book.asks;
    const out: LevelView[] = [];
    for (const level of levelsBestFirst(side)) out.push({ ...level, orders: levelOrders(side, level.price) });
    return out;
  },
};
