/**
 * The account commands that move money or change margin settings: deposits, referral credits,
 * withdrawals, transfers between subaccounts, leverage and margin mode, isolated margin moves.
 * Each re-arms the account's liquidation triggers (risk.ts `refreshTriggers`) after it.
 */
import { accountMarket, marketOf, refreshActive } from '../account.ts';
import { emitLeverage, emitPosition, emitTransfer } from '../emit.ts';
import { beginChange, crossRisk, endChange, isolatedRisk, marginPrice, positionInitialMargin, unrealized } from '../margin.ts';
import { refreshTriggers, withdrawable } from '../risk.ts';
import { LIMITS } from '../spec.ts';
import { getAccount, invalid, type Engine } from '../state.ts';
import type {
  AdjustIsolatedMarginCommand,
  ConflictResult,
  CreditCommissionCommand,
  DepositCommand,
  InvalidResult,
  LeverageResult,
  ResultOf,
  SetLeverageCommand,
  TransferCommand,
  WithdrawCommand,
} from '../types.ts';

function validAmount(amount: unknown): amount is bigint {
  return typeof amount === 'bigint' && amount > 0n;
}

const NONCE = /^.{1,64}$/s;

export function deposit(engine: Engine, c: DepositCommand): ResultOf<DepositCommand> {
  if (!validAmount(c.amount)) return invalid('InvalidRequest', 'amount must be a positive number of quote quantums', 'amount');
  const account = getAccount(engine, c.address, c.accountIndex);
  account.quote += c.amount;
  account.netDeposits += c.amount;
  account.activated = true;
  engine.deposited += c.amount;
  const operationId = engine.nextOperationId++;
  emitTransfer(engine, account, operationId, 'deposit', c.amount, 'COMPLETED', undefined, undefined);
  refreshTriggers(engine, account);
  return { kind: 'transfer', operationId, transferStatus: 'COMPLETED' };
}

/** Referral rewards paid from the fees collected; not a deposit, so netDeposits stays. */
export function creditCommission(engine: Engine, c: CreditCommissionCommand): ResultOf<CreditCommissionCommand> {
  if (!validAmount(c.amount)) return invalid('InvalidRequest', 'amount must be a positive number of quote quantums', 'amount');
  const account = getAccount(engine, c.address, c.accountIndex);
  const operationId = engine.nextOperationId++;
  if (engine.feesCollected < c.amount) {
    emitTransfer(engine, account, operationId, 'referralClaim', c.amount, 'REJECTED', 'INSUFFICIENT_FEE_POOL', undefined);
    return { kind: 'transfer', operationId, transferStatus: 'REJECTED', rejectReason: 'INSUFFICIENT_FEE_POOL' };
  }
  engine.feesCollected -= c.amount;
  account.quote += c.amount;
  account.activated = true;
  emitTransfer(engine, account, operationId, 'referralClaim', c.amount, 'COMPLETED', undefined, undefined);
  refreshTriggers(engine, account);
  return { kind: 'transfer', operationId, transferStatus: 'COMPLETED' };
}


function checkNonce(engine: Engine, address: string, nonce: unknown): InvalidResult | ConflictResult | undefined {
  if (typeof nonce !== 'string' || !NONCE.test(nonce)) return invalid('InvalidRequest', 'nonce must be 1-64 characters', 'nonce');
  if (engine.nonces.has(address + '|' + nonce)) return { kind: 'conflict', error: 'nonce already used' };
  return undefined;
}

export function withdraw(engine: Engine, c: WithdrawCommand): ResultOf<WithdrawCommand> {
  if (!validAmount(c.amount) || c.amount < LIMITS.minWithdrawalQuantums) {
    return invalid('InvalidRequest', 'withdrawal below the 1 USD minimum', 'amount');
  }
  const nonceError = checkNonce(engine, c.address, c.nonce);
  if (nonceError !== undefined) return nonceError;
  engine.nonces.add(c.address + '|' + c.nonce);
  const account = getAccount(engine, c.address, c.accountIndex);
  const operationId = engine.nextOperationId++;
  if (!account.activated || withdrawable(engine, account) < c.amount) {
    emitTransfer(engine, account, operationId, 'withdrawal', c.amount, 'REJECTED', 'INSUFFICIENT_FREE_COLLATERAL', undefined);
    return { kind: 'transfer', operationId, transferStatus: 'REJECTED', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL' };
  }
  account.quote -= c.amount;
  account.netDeposits -= c.amount;
  engine.withdrawn += c.amount;
  emitTransfer(engine, account, operationId, 'withdrawal', c.amount, 'COMPLETED', undefined, undefined);
  refreshTriggers(engine, account);
  return { kind: 'transfer', operationId, transferStatus: 'COMPLETED' };
}

export function transfer(engine: Engine, c: TransferCommand): ResultOf<TransferCommand> {
  const indexOk = (i: unknown): boolean => Number.isInteger(i) && (i as number) >= 0 && (i as number) <= LIMITS.subaccountMax;
  if (!indexOk(c.fromAccountIndex) || !indexOk(c.toAccountIndex) || c.fromAccountIndex === c.toAccountIndex) {
    return invalid('InvalidRequest', 'fromAccountIndex and toAccountIndex must be different subaccounts 0-9', 'toAccountIndex');
  }
  if (!validAmount(c.amount)) return invalid('InvalidRequest', 'amount must be positive', 'amount');
  const nonceError = checkNonce(engine, c.address, c.nonce);
  if (nonceError !== undefined) return nonceError;
  engine.nonces.add(c.address + '|' + c.nonce);
  const from = getAccount(engine, c.address, c.fromAccountIndex);
  const operationId = engine.nextOperationId++;
  if (!from.activated || withdrawable(engine, from) < c.amount) {
    emitTransfer(engine, from, operationId, 'transferOut', c.amount, 'REJECTED', 'INSUFFICIENT_FREE_COLLATERAL', c.toAccountIndex);
    return { kind: 'transfer', operationId, transferStatus: 'REJECTED', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL' };
  }
  const to = getAccount(engine, c.address, c.toAccountIndex);
  from.quote -= c.amount;
  from.netDeposits -= c.amount;
  to.quote += c.amount;
  to.netDeposits += c.amount;
  to.activated = true;
  emitTransfer(engine, from, operationId, 'transferOut', c.amount, 'COMPLETED', undefined, c.toAccountIndex);
  emitTransfer(engine, to, operationId, 'transferIn', c.amount, 'COMPLETED', undefined, c.fromAccountIndex);
  refreshTriggers(engine, from);
  refreshTriggers(engine, to);
  return { kind: 'transfer', operationId, transferStatus: 'COMPLETED' };
}

// ---------------------------------------------------------------------------------------------
// Leverage and isolated margin

export function setLeverage(engine: Engine, c: SetLeverageCommand): ResultOf<SetLeverageCommand> {
  const ms = engine.markets.get(c.marketId);
  if (ms === undefined || ms.spec.status !== 'ONLINE') return invalid('InvalidRequest', 'unknown market', 'marketId');
  const account = getAccount(engine, c.address, c.accountIndex);
  const am = accountMarket(account, ms.slot);
  const isolated = c.isolated ?? am.isolated;
  const current = am.leverage > 0 ? am.leverage : ms.spec.maxLeverage;
  const reject = (reason: 'INVALID_LEVERAGE' | 'UNDERCOLLATERALIZED' | 'HAS_OPEN_POSITION'): LeverageResult => {
    emitLeverage(engine, account, ms.spec.id, current, am.isolated, reason, c.requestId);
    return { kind: 'leverage', leverageStatus: 'REJECTED', rejectReason: reason, leverage: current };
  };
  if (!Number.isInteger(c.leverage) || c.leverage < 1 || c.leverage > ms.spec.maxLeverage) return reject('INVALID_LEVERAGE');
  if (isolated !== am.isolated && am.size !== 0) return reject('HAS_OPEN_POSITION');
  const previous = { leverage: am.leverage, isolated: am.isolated };
  const prior = crossRisk(account, engine.bySlot);
  beginChange(account, am.row, engine.markEpoch);
  am.leverage = c.leverage;
  am.isolated = isolated;
  // Leaving isolated mode (no position, checked above) returns the pool to cross collateral.
  const returned = !isolated && previous.isolated ? am.isolatedMargin : 0n;
  if (returned !== 0n) {
    account.quote += returned;
    am.isolatedMargin = 0n;
    refreshActive(account, am.row);
  }
  endChange(account, am.row, engine.bySlot, engine.markEpoch);
  // A higher requirement must still be covered; a lower one is always fine.
  const cross = crossRisk(account, engine.bySlot);
  const iso = am.isolated && am.size !== 0 ? isolatedRisk(ms, am) : undefined;
  if ((cross.initial > cross.equity && cross.initial > prior.initial) || (iso !== undefined && iso.initial > iso.equity)) {
    beginChange(account, am.row, engine.markEpoch);
    am.leverage = previous.leverage;
    am.isolated = previous.isolated;
    if (returned !== 0n) {
      account.quote -= returned;
      am.isolatedMargin = returned;
      refreshActive(account, am.row);
    }
    endChange(account, am.row, engine.bySlot, engine.markEpoch);
    return reject('UNDERCOLLATERALIZED');
  }
  emitLeverage(engine, account, ms.spec.id, c.leverage, isolated, undefined, c.requestId);
  refreshTriggers(engine, account);
  return { kind: 'leverage', leverageStatus: 'APPLIED', leverage: c.leverage };
}

export function adjustIsolatedMargin(engine: Engine, c: AdjustIsolatedMarginCommand): ResultOf<AdjustIsolatedMarginCommand> {
  if (typeof c.amount !== 'bigint' || c.amount === 0n) return invalid('InvalidRequest', 'amount must not be zero', 'amount');
  const ms = engine.markets.get(c.marketId);
  if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
  const account = getAccount(engine, c.address, c.accountIndex);
  const am = marketOf(account, ms.slot);
  if (am === undefined || !am.isolated) return invalid('InvalidRequest', 'market is not in isolated mode for this account', 'marketId');
  if (c.amount > 0n) {
    if (withdrawable(engine, account) < c.amount) return { kind: 'rejected', rejectionReason: 'UNDERCOLLATERALIZED' };
    account.quote -= c.amount;
    am.isolatedMargin += c.amount;
  } else {
    const take = -c.amount;
    // What stays must cover the position's initial margin after its unrealized PnL.
    const equityAfter = am.isolatedMargin - take + unrealized(am, marginPrice(ms), ms.spec.valueMul);
    if (am.isolatedMargin - take < 0n || equityAfter < (am.size === 0 ? 0n : positionInitialMargin(ms, am))) return { kind: 'rejected', rejectionReason: 'UNDERCOLLATERALIZED' };
    am.isolatedMargin -= take;
    account.quote += take;
  }
  beginChange(account, am.row, engine.markEpoch);
  refreshActive(account, am.row);
  endChange(account, am.row, engine.bySlot, engine.markEpoch);
  emitPosition(engine, account, am, c.requestId);
  refreshTriggers(engine, account);
  return { kind: 'margin' };
}
