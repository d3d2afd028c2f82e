/** The market reads operations (see operations/index.ts). */
import type { Operation } from '../operation.ts';

export const MARKET_READS: readonly Operation[] = [];
