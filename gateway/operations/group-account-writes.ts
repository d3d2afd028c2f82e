/** The account writes operations (see operations/index.ts). */
import type { Operation } from '../operation.ts';

export const ACCOUNT_WRITES: readonly Operation[] = [];
