/**
 * The affiliate (referral) program: codes, bindings of referees to referrers, commissions accrued
 * on every fee a referee pays, and claims.
 *
 * Contract:
 * - State is plain data (Maps, arrays, strings, numbers, bigints; no functions or class
 *   instances) hung off `GatewayState.referral`, so it can be snapshotted with a structured
 *   clone. It changes only through the functions exported here (createCode, modifyCode,
 *   setKickback, bindReferee, redeemInvite, accrueFee, openClaim, settleClaim); readers never write.
 * - Rates (interface.md "Commission schedule"): an affiliate's level comes from its number of
 *   referees (`COMMISSION_SCHEDULE`); on each fee a referee pays, its referrer earns T1 =
 *   max(t1_rate_bps of the referrer's level − the referee's discount, 0), the referrer's referrer
 *   T2 (`t2RateBps`), the next one up T3 (`t3RateBps`), and the referee itself its discount
 *   back as a kickback. The discount is the code's kickback when the referee bound, fixed for
 *   good. Amounts are floor(fee · bps / 10,000) quote quantums, so the sum never exceeds the fee.
 *   Fees below zero (maker rebates) earn nothing.
 * - Binding is by account (wallet address), never by code string: renaming a code (modifyCode)
 *   retires the old string for good and keeps every referee and its discount. A wallet binds once,
 *   by code (registerAffiliate) or invite (redeemInvite), only before its first fill on any
 *   subaccount; never to itself or to a wallet whose own referrer chain leads back to it.
 * - Codes are 1-32 of A-Z 0-9 _ -, compared in upper case (`normalizeCode`). A live or retired
 *   code can never be created again.
 * - Rewards are per wallet: accrued − claimed is claimable. A claim moves money from the
 *   exchange's fees collected to one subaccount (engine command `creditCommission`); only a
 *   COMPLETED claim counts as claimed.
 * - Bounds: the last `ENTRIES_KEPT` reward entries and `CLAIMS_KEPT` claims per wallet are
 *   kept for reads; totals are exact whatever was dropped.
 */
import { randomBytes } from 'node:crypto';
import { plainRecord } from '../../engine/index.ts';

export interface CommissionTier {
  level: number;
  name: string;
  t1RateBps: number;
  /** Referees an affiliate needs to reach this level. */
  minReferees: number;
}

export const COMMISSION_SCHEDULE: { tiers: readonly CommissionTier[]; t2RateBps: number; t3RateBps: number } = {
  tiers: [
    { level: 1, name: 'Bronze', t1RateBps: 1000, minReferees: 0 },
    { level: 2, name: 'Silver', t1RateBps: 1500, minReferees: 10 },
    { level: 3, name: 'Gold', t1RateBps: 2000, minReferees: 50 },
  ],
  t2RateBps: 300,
  t3RateBps: 100,
};

/** A code's kickback (the referee's discount) may not exceed the first level's T1 rate. */
export const MAX_KICKBACK_BPS = COMMISSION_SCHEDULE.tiers[0]!.t1RateBps;
/** Invite codes an affiliate receives with its first code. */
export const INVITES_PER_AFFILIATE = 5;
export const ENTRIES_KEPT = 1000;
export const CLAIMS_KEPT = 1000;

const BPS = 10_000n;
const CODE = /^[A-Z0-9_-]{1,32}$/;

export type RewardKind = 'T1' | 'T2' | 'T3' | 'KICKBACK';

export interface RewardEntry {
  id: number;
  /** Engine time of the fill, µs. */
  time: number;
  kind: RewardKind;
  /** The wallet whose fee paid it. */
  referee: string;
  fee: bigint;
  rateBps: number;
  amount: bigint;
}

export interface Binding {
  referrer: string;
  /** The referrer's kickback when the referee bound, in bps of fees. */
  discountBps: number;
  boundAt: number;
  via: 'CODE' | 'INVITE';
  /** Fees the referee paid since binding and what they earned its referrer (T1). */
  feesPaid: bigint;
  commission: bigint;
}

export interface Affiliate {
  code: string;
  kickbackBps: number;
  createdAt: number;
  updatedAt: number;
  invites: string[];
}

export interface Invite {
  issuer: string;
  createdAt: number;
  redeemedBy: string | undefined;
  redeemedAt: number | undefined;
}

export interface Rewards {
  accrued: bigint;
  claimed: bigint;
  byKind: Record<RewardKind, bigint>;
  entries: RewardEntry[];
}

export type ClaimStatus = 'PENDING' | 'COMPLETED' | 'REJECTED';

export interface Claim {
  claimId: string;
  address: string;
  accountIndex: number;
  amount: bigint;
  status: ClaimStatus;
  /** The engine's operation id of the credit (also the accountTransferUpdates row id). */
  operationId: number | undefined;
  createdAt: number;
  rejectReason: string | undefined;
}

export interface ReferralState {
  /** Wallets holding a code, by address. */
  affiliates: Map<string, Affiliate>;
  /** Live code → owner. */
  codes: Map<string, string>;
  retired: Set<string>;
  /** Referee → its binding. */
  bindings: Map<string, Binding>;
  /** Referrer → its direct referees, in binding order. */
  referees: Map<string, string[]>;
  /** Invite secret → invite. */
  invites: Map<string, Invite>;
  rewards: Map<string, Rewards>;
  /** Claims per wallet, oldest first. */
  claims: Map<string, Claim[]>;
  nextEntryId: number;
  nextClaimId: number;
}

export interface Refusal {
  status: 400 | 404 | 409;
  error: string;
}

const buildReferralState = plainRecord<ReferralState>();

export function createReferralState(): ReferralState {
  return buildReferralState({
    affiliates: new Map(),
    codes: new Map(),
    retired: new Set(),
    bindings: new Map(),
    referees: new Map(),
    invites: new Map(),
    rewards: new Map(),
    claims: new Map(),
    nextEntryId: 1,
    nextClaimId: 1,
  });
}

/** The code in its stored (upper) case; null when it is not 1-32 of A-Z 0-9 _ -. */
export function normalizeCode(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const upper = text.toUpperCase();
  return CODE.test(upper) ? upper : null;
}

/** Live or retired: either way the string cannot be created. */
export function isCodeTaken(rs: ReferralState, code: string): boolean {
  return rs.codes.has(code) || rs.retired.has(code);
}

/** The level an affiliate with `referees` referees has reached. */
export function tierOf(referees: number): CommissionTier {
  let tier = COMMISSION_SCHEDULE.tiers[0]!;
  for (const t of COMMISSION_SCHEDULE.tiers) if (referees >= t.minReferees) tier = t;
  return tier;
}

export function refereesOf(rs: ReferralState, referrer: string): readonly string[] {
  return rs.referees.get(referrer) ?? [];
}

const KICKBACK_RANGE = `kickbackBps must be an integer from 0 to ${MAX_KICKBACK_BPS}`;
const validKickback = (bps: number): boolean => Number.isInteger(bps) && bps >= 0 && bps <= MAX_KICKBACK_BPS;

export function createCode(rs: ReferralState, address: string, code: string, kickbackBps: number, time: number): Affiliate | Refusal {
  if (rs.affiliates.has(address)) return { status: 409, error: 'this address already holds a referral code; use modifyCode' };
  if (isCodeTaken(rs, code)) return { status: 409, error: rs.retired.has(code) ? 'this code is retired' : 'this code is taken' };
  if (!validKickback(kickbackBps)) return { status: 400, error: KICKBACK_RANGE };
  const affiliate: Affiliate = { code, kickbackBps, createdAt: time, updatedAt: time, invites: [] };
  for (let i = 0; i < INVITES_PER_AFFILIATE; i++) {
    // Bearer secrets: whoever holds one binds to the issuer, so they must not be guessable.
    const secret = randomBytes(16).toString('hex');
    affiliate.invites.push(secret);
    rs.invites.set(secret, { issuer: address, createdAt: time, redeemedBy: undefined, redeemedAt: undefined });
  }
  rs.affiliates.set(address, affiliate);
  rs.codes.set(code, address);
  return affiliate;
}

export function modifyCode(rs: ReferralState, address: string, code: string, time: number): Affiliate | Refusal {
  const affiliate = rs.affiliates.get(address);
  if (affiliate === undefined) return { status: 404, error: 'this address has no referral code; use createCode' };
  if (affiliate.code === code) return { status: 409, error: 'the new code equals the current one' };
  if (rs.retired.has(code)) return { status: 409, error: 'this code is retired' };
  if (rs.codes.has(code)) return { status: 409, error: 'this code is taken' };
  rs.codes.delete(affiliate.code);
  rs.retired.add(affiliate.code);
  rs.codes.set(code, address);
  affiliate.code = code;
  affiliate.updatedAt = time;
  return affiliate;
}

/** A new kickback for referees that bind from now on; bound referees keep their discount. */
export function setKickback(rs: ReferralState, address: string, kickbackBps: number, time: number): Affiliate | Refusal {
  const affiliate = rs.affiliates.get(address);
  if (affiliate === undefined) return { status: 404, error: 'this address has no referral code; use createCode' };
  if (!validKickback(kickbackBps)) return { status: 400, error: KICKBACK_RANGE };
  affiliate.kickbackBps = kickbackBps;
  affiliate.updatedAt = time;
  return affiliate;
}

/** Whether binding `referee` under `referrer` would make a wallet its own ancestor. */
function wouldCycle(rs: ReferralState, referee: string, referrer: string): boolean {
  const seen = new Set<string>();
  for (let at: string | undefined = referrer; at !== undefined && !seen.has(at); at = rs.bindings.get(at)?.referrer) {
    if (at === referee) return true;
    seen.add(at);
  }
  return false;
}

function bind(rs: ReferralState, referee: string, referrer: string, via: Binding['via'], time: number, hasTraded: boolean): Binding | Refusal {
  if (referee === referrer) return { status: 400, error: 'a wallet cannot refer itself' };
  if (rs.bindings.has(referee)) return { status: 409, error: 'this address already has a referrer' };
  if (hasTraded) return { status: 409, error: 'a referrer can only be set before the first trade' };
  if (wouldCycle(rs, referee, referrer)) return { status: 409, error: 'this referrer is referred by this address' };
  const binding: Binding = { referrer, discountBps: rs.affiliates.get(referrer)?.kickbackBps ?? 0, boundAt: time, via, feesPaid: 0n, commission: 0n };
  rs.bindings.set(referee, binding);
  let list = rs.referees.get(referrer);
  if (list === undefined) rs.referees.set(referrer, (list = []));
  list.push(referee);
  return binding;
}

/** Binds `referee` to the owner of a live code. */
export function bindReferee(rs: ReferralState, referee: string, code: string, time: number, hasTraded: boolean): Binding | Refusal {
  const referrer = rs.codes.get(code);
  if (referrer === undefined) return { status: 404, error: 'unknown referral code' };
  return bind(rs, referee, referrer, 'CODE', time, hasTraded);
}

/** Binds `referee` to the issuer of an unused invite, and uses it up. */
export function redeemInvite(rs: ReferralState, referee: string, secret: string, time: number, hasTraded: boolean): Binding | Refusal {
  const invite = rs.invites.get(secret);
  if (invite === undefined) return { status: 404, error: 'unknown invite code' };
  if (invite.redeemedBy !== undefined) return { status: 409, error: 'this invite code was already redeemed' };
  const bound = bind(rs, referee, invite.issuer, 'INVITE', time, hasTraded);
  if (!('status' in bound)) {
    invite.redeemedBy = referee;
    invite.redeemedAt = time;
  }
  return bound;
}

function rewardsOf(rs: ReferralState, address: string): Rewards {
  let rewards = rs.rewards.get(address);
  if (rewards === undefined) {
    rewards = { accrued: 0n, claimed: 0n, byKind: { T1: 0n, T2: 0n, T3: 0n, KICKBACK: 0n }, entries: [] };
    rs.rewards.set(address, rewards);
  }
  return rewards;
}

/** What a wallet's rewards read as when it has none. */
export function rewardsView(rs: ReferralState, address: string): Readonly<Rewards> {
  return rs.rewards.get(address) ?? { accrued: 0n, claimed: 0n, byKind: { T1: 0n, T2: 0n, T3: 0n, KICKBACK: 0n }, entries: [] };
}

function credit(rs: ReferralState, to: string, kind: RewardKind, referee: string, fee: bigint, rateBps: number, time: number): bigint {
  const amount = (fee * BigInt(rateBps)) / BPS;
  if (amount <= 0n) return 0n;
  const rewards = rewardsOf(rs, to);
  rewards.accrued += amount;
  rewards.byKind[kind] += amount;
  rewards.entries.push({ id: rs.nextEntryId++, time, kind, referee, fee, rateBps, amount });
  if (rewards.entries.length > ENTRIES_KEPT) rewards.entries.shift();
  return amount;
}

/** The engine's fee hook: one fee of `fee` quote quantums paid by a subaccount of `payer`. */
export function accrueFee(rs: ReferralState, payer: string, fee: bigint, time: number): void {
  if (fee <= 0n) return;
  const binding = rs.bindings.get(payer);
  if (binding === undefined) return;
  binding.feesPaid += fee;
  credit(rs, payer, 'KICKBACK', payer, fee, binding.discountBps, time);
  const t1Rate = Math.max(tierOf(refereesOf(rs, binding.referrer).length).t1RateBps - binding.discountBps, 0);
  binding.commission += credit(rs, binding.referrer, 'T1', payer, fee, t1Rate, time);
  const second = rs.bindings.get(binding.referrer)?.referrer;
  if (second === undefined) return;
  credit(rs, second, 'T2', payer, fee, COMMISSION_SCHEDULE.t2RateBps, time);
  const third = rs.bindings.get(second)?.referrer;
  if (third !== undefined) credit(rs, third, 'T3', payer, fee, COMMISSION_SCHEDULE.t3RateBps, time);
}

export function claimableOf(rs: ReferralState, address: string): bigint {
  const rewards = rewardsView(rs, address);
  return rewards.accrued - rewards.claimed;
}

/** A PENDING claim of `amount` (0 < amount ≤ claimable), before the engine credits it. */
export function openClaim(rs: ReferralState, address: string, accountIndex: number, amount: bigint, time: number): Claim | Refusal {
  const claimable = claimableOf(rs, address);
  if (claimable <= 0n) return { status: 400, error: 'nothing to claim' };
  if (amount <= 0n || amount > claimable) return { status: 400, error: 'amount must be positive and at most the claimable commission' };
  const claim: Claim = { claimId: String(rs.nextClaimId++), address, accountIndex, amount, status: 'PENDING', operationId: undefined, createdAt: time, rejectReason: undefined };
  let list = rs.claims.get(address);
  if (list === undefined) rs.claims.set(address, (list = []));
  list.push(claim);
  if (list.length > CLAIMS_KEPT) list.shift();
  return claim;
}

/** The engine's answer to a claim's credit; a COMPLETED claim is deducted from the claimable. */
export function settleClaim(rs: ReferralState, claim: Claim, operationId: number | undefined, status: 'COMPLETED' | 'REJECTED', rejectReason?: string): void {
  claim.operationId = operationId;
  claim.status = status;
  claim.rejectReason = rejectReason;
  if (status === 'COMPLETED') rewardsOf(rs, claim.address).claimed += claim.amount;
}

export function claimsOf(rs: ReferralState, address: string): readonly Claim[] {
  return rs.claims.get(address) ?? [];
}
