/**
 * The 429 reply (gateway/rate-limit/rate-limited.ts): interface.md "Rate-limit error body" and
 * supplement §10, and the reply built from each layer's refusal.
 */
import { describe, expect, it } from 'vitest';
import {
  admitAccount,
  admitRequest,
  admitWeight,
  DEFAULT_IP_BUCKET,
  rateLimitConfig,
  rateLimitedBody,
  rateLimitedReply,
  retryAfterSeconds,
} from '../gateway/rate-limit/index.ts';

const T0 = 1_700_000_000_000;
const IP = '203.0.113.9';

describe('Rate-limit error body: {error, reason, retryAfterMs, clientId}', () => {
  it('matches the supplement example exactly, with Retry-After: 1', () => {
    const reply = rateLimitedReply('account_empty', 850, { kind: 'order', clientId: 'my-order-42' });
    expect(JSON.stringify(reply.body)).toBe('{"error":"rate limited","reason":"account_empty","retryAfterMs":850,"clientId":"my-order-42"}');
    expect(reply.statusCode).toBe(429);
    expect(reply.headers).toEqual({ 'Retry-After': '1' });
  });

  it('a single order write without a client id carries clientId ""', () => {
    expect(rateLimitedBody('account_empty', 10_000, { kind: 'order' })).toEqual({
      error: 'rate limited',
      reason: 'account_empty',
      retryAfterMs: 10_000,
      clientId: '',
    });
    expect(rateLimitedBody('ip', 40, { kind: 'order', clientId: null }).clientId).toBe('');
  });

  it('batch rejections carry clientIds aligned by position with the submitted array ("" for none)', () => {
    const body = rateLimitedBody('account_partial', 0, { kind: 'batch', clientIds: ['a', undefined, 'c', null, ''] });
    expect(body).toEqual({ error: 'rate limited', reason: 'account_partial', retryAfterMs: 0, clientIds: ['a', '', 'c', '', ''] });
    expect(body).not.toHaveProperty('clientId');
  });

  it('other requests (reads, cancel-all) carry no client id', () => {
    expect(rateLimitedBody('ip', 800)).toEqual({ error: 'rate limited', reason: 'ip', retryAfterMs: 800 });
  });

  it('reason may be unknown (supplement §10)', () => {
    expect(rateLimitedBody('unknown', 1).reason).toBe('unknown');
  });
});

describe('The Retry-After header is whole seconds (minimum 1, the rounded-up form of retryAfterMs). No X-RateLimit-* headers are sent', () => {
  it('rounds up, at least 1', () => {
    expect([0, 1, 999, 1000, 1001, 1999, 2000, 9_999, 10_000].map(retryAfterSeconds)).toEqual([1, 1, 1, 1, 2, 2, 2, 10, 10]);
  });

  it('a fractional or invalid hint is made a whole, non-negative number of milliseconds', () => {
    expect(rateLimitedBody('ip', 850.2).retryAfterMs).toBe(851);
    expect(rateLimitedBody('ip', -5).retryAfterMs).toBe(0);
    expect(rateLimitedBody('ip', Number.NaN).retryAfterMs).toBe(0);
    expect(retryAfterSeconds(1000.5)).toBe(2);
  });

  it('sends Retry-After and nothing else', () => {
    const reply = rateLimitedReply('ip', 5000);
    expect(Object.keys(reply.headers)).toEqual(['Retry-After']);
    expect(reply.headers['Retry-After']).toBe('5');
  });
});

describe('429 replies built from each layer', () => {
  const config = rateLimitConfig();

  it('IP bucket refusal → reason ip', () => {
    const drained = admitWeight(undefined, 1500, T0, DEFAULT_IP_BUCKET);
    if (!drained.admitted) throw new Error('refused');
    const refused = admitRequest(config, { ip: IP, operation: 'trades', bucket: drained.bucket, nowMs: T0 });
    if (refused.kind !== 'limited') throw new Error('admitted');
    expect(rateLimitedReply(refused.reason, refused.retryAfterMs)).toEqual({
      statusCode: 429,
      headers: { 'Retry-After': '1' },
      body: { error: 'rate limited', reason: 'ip', retryAfterMs: 800 },
    });
  });

  it('account refusal of a batch → account_partial with every element listed', () => {
    const pools = { order: { used: 19_990, dripReadyAtMs: T0 + 3000 }, cancel: { used: 0, dripReadyAtMs: 0 } };
    const refused = admitAccount(config, { ip: IP, operation: 'batchPlaceOrders', elements: 12, pools, lifetimeNotional: 0n, nowMs: T0 });
    if (refused.kind !== 'limited') throw new Error('charged');
    const reply = rateLimitedReply(refused.reason, refused.retryAfterMs, { kind: 'batch', clientIds: Array.from({ length: 12 }, (_, i) => `c${i}`) });
    expect(reply.body).toMatchObject({ reason: 'account_partial', retryAfterMs: 0 });
    expect(reply.body.clientIds).toHaveLength(12);
    expect(reply.headers['Retry-After']).toBe('1');
  });

  it('account refusal on the drip → account_empty, Retry-After the drip wait in seconds', () => {
    const pools = { order: { used: 20_001, dripReadyAtMs: T0 + 7_001 }, cancel: { used: 0, dripReadyAtMs: 0 } };
    const refused = admitAccount(config, { ip: IP, operation: 'placeOrder', pools, lifetimeNotional: 0n, nowMs: T0 });
    if (refused.kind !== 'limited') throw new Error('charged');
    const reply = rateLimitedReply(refused.reason, refused.retryAfterMs, { kind: 'order', clientId: 'x' });
    expect(reply.body).toEqual({ error: 'rate limited', reason: 'account_empty', retryAfterMs: 7001, clientId: 'x' });
    expect(reply.headers['Retry-After']).toBe('8');
  });
});
