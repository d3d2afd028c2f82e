import { quoteOf } from '../engine/account.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { findAccount, lifetimeFeesPaid } from '../engine/index.ts';
import { scheme2Message } from '../gateway/auth/index.ts';
import { COMMISSION_SCHEDULE } from '../gateway/services/referral.ts';
import { gateway, placeOrderRequest, scheme2Headers, USD, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';

const a = wallet(0x11);
const b = wallet(0x12);
const c = wallet(0x13);
const d = wallet(0x14);
const maker = wallet(0x15);
const stranger = wallet(0x16);

let ts = 0n;
function freshTs(h: GatewayHarness): string {
  ts = ts + 1n;
  return (BigInt(h.now.us) * 1000n + 500n + (ts % 400n)).toString();
}

/** A signed affiliate POST (Scheme 2 over the action and the canonical body). */
async function post(h: GatewayHarness, w: Wallet, action: string, body: Record<string, unknown>) {
  return h.app.inject({ method: 'POST', url: `/v1/affiliate/${action}`, payload: body, headers: scheme2Headers(h, w, action, body as never) });
}

/** A signed affiliate GET: `<ts><last path segment>`, no body. */
async function signedGet(h: GatewayHarness, w: Wallet, action: string, query = `address=${w.address}`, signer: Wallet = w, message?: string) {
  const t = freshTs(h);
  const headers = { 'x-api-key': signer.apiKey, 'x-timestamp': t, 'x-signature': h.sign(message ?? `${t}${action}`, signer) };
  return h.app.inject({ method: 'GET', url: `/v1/affiliate/${action}?${query}`, headers });
}

async function get(h: GatewayHarness, url: string) {
  return h.app.inject({ method: 'GET', url });
}

/** `taker` buys `size` BTC from `maker` at 97,000: the taker pays the taker fee. */
async function trade(h: GatewayHarness, taker: Wallet, size = '0.1'): Promise<void> {
  const ask = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, maker, { side: 'SELL', quantity: size, price: '97000.0' }) });
  expect(ask.statusCode).toBe(202);
  const bid = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, taker, { side: 'BUY', quantity: size, price: '97000.0' }) });
  expect(bid.statusCode).toBe(202);
}

function feesPaid(h: GatewayHarness, w: Wallet): bigint {
  const account = findAccount(h.exchange.engine.accounts, w.address, 0);
  return account === undefined ? 0n : lifetimeFeesPaid(account);
}

/** USD decimal string of quote quantums as the gateway prints it ("1.0", "0.000001"). */
function usdText(q: bigint): string {
  const whole = q / USD;
  const frac = (q % USD).toString().padStart(9, '0').replace(/0+$/, '');
  return `${whole}.${frac === '' ? '0' : frac}`;
}

let h: GatewayHarness;
beforeEach(async () => {
  h = await gateway({ rateLimit: { enabled: false } });
  for (const w of [a, b, c, d, maker, stranger]) {
    h.key(w);
    h.fund(w, 1_000_000n);
  }
});

describe('commissionrates: tiers sorted by ascending level with t1_rate_bps, flat t2_rate_bps and t3_rate_bps', () => {
  it('answers the schedule the program pays', async () => {
    const res = await get(h, '/v1/commissionrates');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { tiers: { level: number; name: string; t1_rate_bps: number }[]; t2_rate_bps: number; t3_rate_bps: number };
    expect(body.tiers.map((t) => t.level)).toEqual([1, 2, 3]);
    expect(body.tiers[0]).toEqual({ level: 1, name: 'Bronze', t1_rate_bps: COMMISSION_SCHEDULE.tiers[0]!.t1RateBps });
    expect(body).toMatchObject({ t2_rate_bps: 300, t3_rate_bps: 100 });
  });
});

describe('createCode: 202 submitted; codes are 1-32 of A-Z 0-9 _ -; one code per affiliate; a taken code is 409', () => {
  it('creates the code, which is then unavailable', async () => {
    const res = await post(h, a, 'createCode', { address: a.address, code: 'ALPHA_1', kickbackBps: 100 });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'submitted' });
    expect((await get(h, '/v1/affiliate/codeAvailable?code=ALPHA_1')).json()).toEqual({ available: false });
    expect((await get(h, '/v1/affiliate/codeAvailable?code=alpha_1')).json()).toEqual({ available: false });
    expect((await get(h, '/v1/affiliate/codeAvailable?code=BETA')).json()).toEqual({ available: true });
    expect((await signedGet(h, a, 'code')).json()).toMatchObject({ address: a.address, code: 'ALPHA_1', kickbackBps: 100 });
  });

  it('refuses malformed codes with 400 (33 characters, other characters, empty) and an out-of-range kickback', async () => {
    for (const code of ['A'.repeat(33), 'BAD CODE', 'SEMI;COLON', '']) {
      const res = await post(h, a, 'createCode', { address: a.address, code });
      expect(res.statusCode, code).toBe(400);
      expect(typeof (res.json() as { error: string }).error).toBe('string');
    }
    expect((await post(h, a, 'createCode', { address: a.address, code: 'OK', kickbackBps: 5000 })).statusCode).toBe(400);
    expect((await post(h, a, 'createCode', { address: a.address, code: 'A'.repeat(32) })).statusCode).toBe(202);
  });

  it('answers 409 for a second code of the same affiliate and for a code another affiliate holds', async () => {
    expect((await post(h, a, 'createCode', { address: a.address, code: 'ONE' })).statusCode).toBe(202);
    expect((await post(h, a, 'createCode', { address: a.address, code: 'TWO' })).statusCode).toBe(409);
    expect((await post(h, b, 'createCode', { address: b.address, code: 'one' })).statusCode).toBe(409);
  });

  it('needs a valid signature (401) by the address\'s own key (403)', async () => {
    const body = { address: a.address, code: 'SIGNED' };
    const headers = scheme2Headers(h, a, 'createCode', { ...body, code: 'OTHER' } as never);
    expect((await h.app.inject({ method: 'POST', url: '/v1/affiliate/createCode', payload: body, headers })).statusCode).toBe(401);
    const foreign = await h.app.inject({ method: 'POST', url: '/v1/affiliate/createCode', payload: body, headers: scheme2Headers(h, b, 'createCode', body as never) });
    expect(foreign.statusCode).toBe(403);
    expect((await get(h, '/v1/affiliate/codeAvailable?code=SIGNED')).json()).toEqual({ available: true });
  });
});

describe('modifyCode: 202 submitted; 404 without a code; 409 when the new code is the same, taken or retired; the old string is retired for good', () => {
  it('404 for an affiliate without a code', async () => {
    const res = await post(h, a, 'modifyCode', { address: a.address, code: 'NEW' });
    expect(res.statusCode).toBe(404);
    expect(typeof (res.json() as { error: string }).error).toBe('string');
  });

  it('renames, retires the old string (no one can create or take it) and keeps referees and their discount', async () => {
    await post(h, a, 'createCode', { address: a.address, code: 'OLD', kickbackBps: 250 });
    expect((await post(h, d, 'registerAffiliate', { address: d.address, code: 'OLD' })).statusCode).toBe(202);
    expect((await post(h, a, 'modifyCode', { address: a.address, code: 'OLD' })).statusCode).toBe(409);
    await post(h, b, 'createCode', { address: b.address, code: 'BEES' });
    expect((await post(h, a, 'modifyCode', { address: a.address, code: 'BEES' })).statusCode).toBe(409);
    const renamed = await post(h, a, 'modifyCode', { address: a.address, code: 'NEW' });
    expect(renamed.statusCode).toBe(202);
    expect(renamed.json()).toEqual({ status: 'submitted' });
    expect((await get(h, '/v1/affiliate/codeAvailable?code=OLD')).json()).toEqual({ available: false });
    expect((await post(h, c, 'createCode', { address: c.address, code: 'OLD' })).statusCode).toBe(409);
    expect((await post(h, b, 'modifyCode', { address: b.address, code: 'OLD' })).statusCode).toBe(409);
    expect((await post(h, a, 'modifyCode', { address: a.address, code: 'OLD' })).statusCode).toBe(409);
    expect((await get(h, `/v1/affiliate/myReferrer?address=${d.address}`)).json()).toMatchObject({ code: 'NEW', discountBps: 250 });
    expect((await signedGet(h, a, 'referees')).json()).toMatchObject({ total: 1, referees: [{ address: d.address, discountBps: 250 }] });
  });
});

describe('binding: a wallet binds to a referrer by code (registerAffiliate) or invite (redeemInvite), once, before its first trade, never to itself or into a cycle', () => {
  beforeEach(async () => {
    await post(h, a, 'createCode', { address: a.address, code: 'ACODE' });
    await post(h, b, 'createCode', { address: b.address, code: 'BCODE' });
  });

  it('refuses an unknown code (404), the caller\'s own code (400) and a second binding (409)', async () => {
    expect((await post(h, d, 'registerAffiliate', { address: d.address, code: 'NOPE' })).statusCode).toBe(404);
    expect((await post(h, a, 'registerAffiliate', { address: a.address, code: 'ACODE' })).statusCode).toBe(400);
    expect((await post(h, d, 'registerAffiliate', { address: d.address, code: 'ACODE' })).statusCode).toBe(202);
    expect((await post(h, d, 'registerAffiliate', { address: d.address, code: 'BCODE' })).statusCode).toBe(409);
  });

  it('refuses a wallet that already traded (409)', async () => {
    await trade(h, d);
    expect((await post(h, d, 'registerAffiliate', { address: d.address, code: 'ACODE' })).statusCode).toBe(409);
    expect((await get(h, `/v1/affiliate/myReferrer?address=${d.address}`)).statusCode).toBe(404);
  });

  it('refuses a binding that would make a wallet its own referrer\'s referrer (409)', async () => {
    expect((await post(h, b, 'registerAffiliate', { address: b.address, code: 'ACODE' })).statusCode).toBe(202);
    expect((await post(h, a, 'registerAffiliate', { address: a.address, code: 'BCODE' })).statusCode).toBe(409);
  });

  it('an invite code binds its redeemer to the issuer once; the issuer sees it REDEEMED', async () => {
    const list = await signedGet(h, a, 'inviteCodes');
    expect(list.statusCode).toBe(200);
    const invites = (list.json() as { inviteCodes: { inviteCode: string; status: string }[]; total: number }).inviteCodes;
    expect(invites.length).toBe(5);
    expect(new Set(invites.map((i) => i.inviteCode)).size).toBe(5);
    expect(invites.every((i) => i.status === 'ACTIVE' && /^[0-9a-f]{32}$/.test(i.inviteCode))).toBe(true);
    const secret = invites[0]!.inviteCode;
    expect((await post(h, d, 'redeemInvite', { address: d.address, inviteCode: secret })).statusCode).toBe(202);
    expect((await post(h, c, 'redeemInvite', { address: c.address, inviteCode: secret })).statusCode).toBe(409);
    expect((await post(h, c, 'redeemInvite', { address: c.address, inviteCode: 'f'.repeat(32) })).statusCode).toBe(404);
    expect((await get(h, `/v1/affiliate/myReferrer?address=${d.address}`)).json()).toMatchObject({ code: 'ACODE', via: 'INVITE' });
    const redeemed = (await signedGet(h, a, 'inviteCodes', `address=${a.address}&status=REDEEMED`)).json() as { inviteCodes: { inviteCode: string }[] };
    expect(redeemed.inviteCodes.map((i) => i.inviteCode)).toEqual([secret]);
  });
});

describe('signed affiliate reads (inviteCodes, info, code, referees, commissions): `<ts><last path segment>` signature, own data only', () => {
  it('answers 401 for a signature over anything else and 403 when the address is not the key\'s', async () => {
    await post(h, a, 'createCode', { address: a.address, code: 'ACODE' });
    for (const action of ['inviteCodes', 'info', 'code', 'referees', 'commissions']) {
      expect((await signedGet(h, a, action)).statusCode, action).toBe(200);
      const t = freshTs(h);
      expect((await signedGet(h, a, action, `address=${a.address}`, a, scheme2Message(t, action, {}))).statusCode, action).toBe(401);
      expect((await signedGet(h, a, action, `address=${a.address}`, b)).statusCode, action).toBe(403);
      expect((await get(h, `/v1/affiliate/${action}?address=${a.address}`)).statusCode, action).toBe(401);
    }
  });

  it('code is 404 for an address without one', async () => {
    expect((await signedGet(h, c, 'code')).statusCode).toBe(404);
  });
});

describe('myReferrer returns the binding\'s code and discount, never the referrer\'s address', () => {
  it('holds no field with the referrer\'s address; 404 without a referrer', async () => {
    await post(h, a, 'createCode', { address: a.address, code: 'ACODE', kickbackBps: 300 });
    await post(h, d, 'registerAffiliate', { address: d.address, code: 'ACODE' });
    const res = await get(h, `/v1/affiliate/myReferrer?address=${d.address}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ address: d.address, code: 'ACODE', discountBps: 300 });
    expect(res.body.toLowerCase()).not.toContain(a.address.slice(2));
    expect((await get(h, `/v1/affiliate/myReferrer?address=${c.address}`)).statusCode).toBe(404);
  });
});

describe('the discount is fixed at binding: a later kickback change applies to new referees only', () => {
  it('keeps the bound referee\'s discount', async () => {
    await post(h, a, 'createCode', { address: a.address, code: 'ACODE', kickbackBps: 100 });
    await post(h, c, 'registerAffiliate', { address: c.address, code: 'ACODE' });
    expect((await post(h, a, 'kickback', { address: a.address, kickbackBps: 400 })).statusCode).toBe(202);
    await post(h, d, 'registerAffiliate', { address: d.address, code: 'ACODE' });
    expect((await get(h, `/v1/affiliate/myReferrer?address=${c.address}`)).json()).toMatchObject({ discountBps: 100 });
    expect((await get(h, `/v1/affiliate/myReferrer?address=${d.address}`)).json()).toMatchObject({ discountBps: 400 });
    expect((await post(h, b, 'kickback', { address: b.address, kickbackBps: 1 })).statusCode).toBe(404);
  });
});

describe('commissions through three levels to the claim: T1 max(t1 − discount, 0) to the referrer, T2 to its referrer, T3 at depth 3, the discount back to the referee; a claim is a transfer from the fees collected', () => {
  it('follows one referee\'s fees to every level and pays the T1 affiliate by a claim', async () => {
    // a ← b ← c ← d: d trades; c earns T1, b T2, a T3.
    await post(h, a, 'createCode', { address: a.address, code: 'ALEVEL' });
    await post(h, b, 'createCode', { address: b.address, code: 'BLEVEL' });
    await post(h, c, 'createCode', { address: c.address, code: 'CLEVEL', kickbackBps: 200 });
    expect((await post(h, b, 'registerAffiliate', { address: b.address, code: 'ALEVEL' })).statusCode).toBe(202);
    expect((await post(h, c, 'registerAffiliate', { address: c.address, code: 'BLEVEL' })).statusCode).toBe(202);
    expect((await post(h, d, 'registerAffiliate', { address: d.address, code: 'CLEVEL' })).statusCode).toBe(202);

    await trade(h, d, '0.1');
    await trade(h, d, '0.2');
    const fee = feesPaid(h, d);
    expect(fee).toBeGreaterThan(0n);
    // Two fills, each rounded down on its own.
    const fills = (await get(h, `/v1/fills?address=${d.address}`)).json() as { fills: { fee: string }[] };
    const feeList = fills.fills.map((f) => BigInt(Math.round(Number(f.fee) * 1e9)));
    expect(feeList.reduce((x, y) => x + y, 0n)).toBe(fee);
    const share = (bps: bigint): bigint => feeList.reduce((sum, f) => sum + (f * bps) / 10_000n, 0n);
    const t1 = share(1000n - 200n);
    const t2 = share(300n);
    const t3 = share(100n);
    const kickback = share(200n);

    const info = async (w: Wallet) => (await signedGet(h, w, 'info')).json() as Record<string, unknown>;
    expect(await info(c)).toMatchObject({ earnedT1: usdText(t1), earnedT2: '0.0', claimable: usdText(t1), refereeCount: 1, level: 1 });
    expect(await info(b)).toMatchObject({ earnedT2: usdText(t2), earnedT1: '0.0', claimable: usdText(t2) });
    expect(await info(a)).toMatchObject({ earnedT3: usdText(t3), claimable: usdText(t3) });
    expect(await info(d)).toMatchObject({ kickbackEarned: usdText(kickback), claimable: usdText(kickback) });
    const entries = (await signedGet(h, c, 'commissions')).json() as { commissions: { kind: string; referee: string; rateBps: number }[]; total: number };
    expect(entries.total).toBe(2);
    expect(entries.commissions.every((e) => e.kind === 'T1' && e.referee === d.address && e.rateBps === 800)).toBe(true);
    expect((await signedGet(h, c, 'referees')).json()).toMatchObject({ referees: [{ address: d.address, feesPaid: usdText(fee), commission: usdText(t1) }] });

    // The claim: c's T1 commission moves from the fees collected to c's subaccount 2.
    const feesBefore = h.exchange.engine.feesCollected;
    const before = findAccount(h.exchange.engine.accounts, c.address, 2);
    const quoteBefore = before === undefined ? 0n : quoteOf(before);
    const claim = await post(h, c, 'claim', { address: c.address, accountIndex: 2 });
    expect(claim.statusCode).toBe(202);
    const { status, claimId } = claim.json() as { status: string; claimId: string };
    expect(status).toBe('submitted');
    const claimStatus = (await get(h, `/v1/affiliate/claimStatus?address=${c.address}&id=${claimId}`)).json() as { status: string; amount: string; operationId: number; accountIndex: number };
    expect(claimStatus).toMatchObject({ status: 'COMPLETED', amount: usdText(t1), accountIndex: 2 });
    expect(h.exchange.engine.feesCollected).toBe(feesBefore - t1);
    expect(quoteOf(findAccount(h.exchange.engine.accounts, c.address, 2)!)).toBe(quoteBefore + t1);
    const transfers = (await get(h, `/v1/accountTransferUpdates?address=${c.address}&accountIndex=2`)).json() as { accountTransferUpdates: { id: number; type: string; amount: string; status: string }[] };
    expect(transfers.accountTransferUpdates[0]).toMatchObject({ id: claimStatus.operationId, type: 'REFERRAL_CLAIM', amount: usdText(t1), status: 'COMPLETED' });
    expect((await get(h, `/v1/affiliate/claims?address=${c.address}`)).json()).toMatchObject({ total: 1, claims: [{ claimId, status: 'COMPLETED' }] });
    expect(await info(c)).toMatchObject({ claimed: usdText(t1), claimable: '0.0' });
    expect((await post(h, c, 'claim', { address: c.address })).statusCode).toBe(400);
    // b claims part of its T2 by amount; more than claimable is 400.
    expect((await post(h, b, 'claim', { address: b.address, amountQuantums: (t2 + 1n).toString() })).statusCode).toBe(400);
    expect((await post(h, b, 'claim', { address: b.address, amountQuantums: '1' })).statusCode).toBe(202);
    expect(await info(b)).toMatchObject({ claimed: usdText(1n), claimable: usdText(t2 - 1n) });
  });

  it('a referee\'s discount above the referrer\'s rate leaves T1 at zero, never negative', async () => {
    await post(h, a, 'createCode', { address: a.address, code: 'MAXKICK', kickbackBps: 1000 });
    await post(h, d, 'registerAffiliate', { address: d.address, code: 'MAXKICK' });
    await trade(h, d);
    expect((await signedGet(h, a, 'info')).json()).toMatchObject({ earnedT1: '0.0', claimable: '0.0' });
    expect(((await signedGet(h, d, 'info')).json() as { kickbackEarned: string }).kickbackEarned).not.toBe('0.0');
  });
});

describe('claimStatus and claims are public by address; an unknown claim is 404', () => {
  it('answers 404 for an id the address does not own', async () => {
    expect((await get(h, `/v1/affiliate/claimStatus?address=${a.address}&id=1`)).statusCode).toBe(404);
    expect((await get(h, `/v1/affiliate/claims?address=${a.address}`)).json()).toEqual({ claims: [], total: 0 });
  });
});
