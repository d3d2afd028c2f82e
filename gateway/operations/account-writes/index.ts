/** The account writes operations (see operations/index.ts). */
import type { Operation } from '../../contract/operation.ts';
import { adjustIsolatedMargin } from './adjust-isolated-margin.ts';
import { createApiKey } from './create-api-key.ts';
import { revokeApiKey } from './revoke-api-key.ts';
import { setLeverage } from './set-leverage.ts';
import { transfer } from './transfer.ts';
import { withdraw } from './withdraw.ts';

export const ACCOUNT_WRITES: readonly Operation[] = [setLeverage, adjustIsolatedMargin, withdraw, transfer, createApiKey, revokeApiKey];
