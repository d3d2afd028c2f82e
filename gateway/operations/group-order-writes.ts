/** The order writes operations (see operations/index.ts). */
import type { Operation } from '../operation.ts';

export const ORDER_WRITES: readonly Operation[] = [];
