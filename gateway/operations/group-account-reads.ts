/** The account reads operations (see operations/index.ts). */
import type { Operation } from '../operation.ts';

export const ACCOUNT_READS: readonly Operation[] = [];
