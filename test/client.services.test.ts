/**
 * Issue 9: "REST: a typed method per operation" — the affiliate, notification, preferences,
 * leaderboard and portfolio routes of issue 10 through the SDK, against an in-process perpsim.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type Client } from '../client/index.ts';
import { clientHarness } from './support/client-fixture.ts';

const h = clientHarness();
let referrer: Client;
let referee: Client;

beforeAll(async () => {
  await h.start();
  referrer = await h.trader('d1');
  referee = await h.trader('d2');
});
afterAll(() => h.close());

describe('a typed method per operation: the affiliate program', () => {
  it('creates a code, binds a referee by it, and reads it back through the signed and public reads', async () => {
    expect(await referrer.affiliateCodeAvailable('SDK_CODE')).toMatchObject({ available: true });
    expect(await referrer.affiliateCreateCode('SDK_CODE')).toMatchObject({ status: 'submitted' });
    expect(await referrer.affiliateCodeAvailable('SDK_CODE')).toMatchObject({ available: false });
    expect(JSON.stringify(await referrer.affiliateCode())).toContain('SDK_CODE');
    expect(await referee.affiliateRegister('SDK_CODE')).toMatchObject({ status: 'submitted' });
    const mine = await referee.affiliateMyReferrer();
    expect(JSON.stringify(mine)).toContain('SDK_CODE');
    expect(JSON.stringify(mine)).not.toContain(referrer.address!.slice(2));
    expect(JSON.stringify(await referrer.affiliateReferees())).toContain(referee.address!.slice(2));
    expect(await referrer.affiliateInfo()).toBeTypeOf('object');
    expect(await referrer.affiliateCommissions()).toBeTypeOf('object');
    expect(await referrer.affiliateInviteCodes()).toMatchObject({ total: expect.any(Number) });
    expect(await referrer.commissionRates()).toBeTypeOf('object');
  });

  it('a refused affiliate write throws ApiError with the status: renaming without a code is 404', async () => {
    const err = await referee.affiliateModifyCode('NOPE').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
  });
});

describe('a typed method per operation: notifications and preferences', () => {
  it('registers a push token, reads the inbox a deposit filled, and marks it seen', async () => {
    expect(await referrer.registerPushToken('ExponentPushToken[sdk-1]', 'web')).toMatchObject({ token: 'ExponentPushToken[sdk-1]', tokens: 1 });
    await referrer.sim.deposit(referrer.address!, '10');
    const inbox = await referrer.notifications();
    expect(inbox.notifications.length).toBeGreaterThan(0);
    expect(inbox.unseen).toBeGreaterThan(0);
    expect(await referrer.markNotificationsSeen({ all: true })).toMatchObject({ marked: inbox.unseen });
    expect((await referrer.notifications()).unseen).toBe(0);
  });

  it('writes and reads the wallet preferences document', async () => {
    const before = await referrer.userPreferences();
    expect(before).toMatchObject({ preferences: expect.any(Object) });
    const written = await referrer.setUserPreferences({ language: 'en', favoritePerpMarkets: ['BTC-USD'] });
    expect(written.preferences).toMatchObject({ language: 'en', favoritePerpMarkets: ['BTC-USD'] });
    expect((await referrer.userPreferences()).preferences).toEqual(written.preferences);
    // The document's keys are shape-checked (docs/decisions.md): an unknown key is a 400 ApiError.
    const refused = await referrer.setUserPreferences({ noSuchKey: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
  });
});

describe('a typed method per operation: leaderboard and portfolio', () => {
  it('reads the leaderboard and the portfolio series', async () => {
    expect(await referrer.leaderboard({ sortBy: 'volume', window: 'all', limit: 10 })).toBeTypeOf('object');
    const portfolio = await referrer.portfolio();
    expect(portfolio).toHaveProperty('lifetimeVolume');
  });
});
