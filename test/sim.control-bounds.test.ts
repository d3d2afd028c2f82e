/**
 * Every control input is bounded: a clock step, an amount, a price, a rate, a count outside its
 * range (infinite, beyond double range, negative, absurdly large) is 400 in the error shape, the
 * server keeps answering, and the state does not move. The bounds are README's control-routes
 * table.
 */
import { describe, expect, it } from 'vitest';
import { simHarness } from './support/sim-harness.ts';

const sim = simHarness();
const ADDRESS = '0x' + '5a'.repeat(20);

/** POSTs `text` as the JSON body verbatim (so `1e999` reaches the server as written). */
async function postText(url: string, path: string, text: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function expectRefused(url: string, path: string, texts: readonly string[]): Promise<void> {
  for (const text of texts) {
    const res = await postText(url, path, text);
    expect({ path, text, status: res.status }).toEqual({ path, text, status: 400 });
    expect(typeof res.body.error).toBe('string');
  }
}

describe('POST /sim/clock: the step and the speed are bounded', () => {
  it('refuses infinite, out-of-range and fractional steps at once, and time does not move', async () => {
    const server = await sim.start();
    const before = (await sim.call('GET', '/sim/clock')).body.timeUs;
    await expectRefused(server.url, '/sim/clock', [
      '{"advanceMs":"Infinity"}',
      '{"advanceMs":"1e400"}',
      '{"advanceMs":1e999}',
      '{"advanceMs":-1}',
      '{"advanceMs":1.5}',
      `{"advanceMs":${366 * 86_400_000 + 1}}`,
      '{"advanceMs":"99999999999999999999999"}',
      '{"mode":"accelerated","speed":"Infinity"}',
      '{"mode":"accelerated","speed":1e999}',
      '{"mode":"accelerated","speed":0}',
      '{"mode":"accelerated","speed":1000001}',
    ]);
    expect((await sim.call('GET', '/sim/clock')).body.timeUs).toBe(before);
    expect((await sim.call('GET', '/health')).status).toBe(200);
    expect((await sim.call('POST', '/sim/clock', { advanceMs: 1000 })).status).toBe(200);
  });
});

describe('POST /sim/deposit: the amount is a positive number of dollars up to the documented cap', () => {
  it('refuses infinite, beyond-double-range, negative, zero and over-cap amounts with 400 and credits nothing', async () => {
    const server = await sim.start();
    const deposit = (amount: string): string => `{"address":"${ADDRESS}","amount":${amount}}`;
    await expectRefused(server.url, '/sim/deposit', [
      deposit('"Infinity"'),
      deposit('"-Infinity"'),
      deposit('"1e400"'),
      deposit('1e999'),
      deposit('-1e999'),
      deposit('"NaN"'),
      deposit('-5'),
      deposit('0'),
      deposit('"0"'),
      deposit('"1000000000001"'),
      deposit('1e13'),
      deposit('"' + '9'.repeat(400) + '"'),
    ]);
    expect(server.exchange.engine.accounts.get(`${ADDRESS}/0`)).toBeUndefined();
    const ok = await sim.call('POST', '/sim/deposit', { address: ADDRESS, amount: '1000000000000' });
    expect(ok.status).toBe(200);
    expect(ok.body.amount).toBe('1000000000000.0');
  });
});

describe('POST /sim/deposit and /sim/oracle: a string amount or price is a plain decimal, a JSON number a number', () => {
  it('refuses "0x10", "0b11", "0o17", " 12", "1e3" (not read as the number JavaScript makes of them) and credits nothing; JSON numbers still count', async () => {
    const server = await sim.start();
    const texts = ['"0x10"', '"0b11"', '"0o17"', '" 12"', '"\\t7"', '"1e3"', '"5e-1"'];
    await expectRefused(server.url, '/sim/deposit', texts.map((t) => `{"address":"${ADDRESS}","amount":${t}}`));
    expect(server.exchange.engine.accounts.get(`${ADDRESS}/0`)).toBeUndefined();
    const before = server.exchange.engine.markets.get(1)!.oraclePrice;
    await expectRefused(server.url, '/sim/oracle', texts.map((t) => `{"market":"BTC-USD","price":${t}}`));
    expect(server.exchange.engine.markets.get(1)!.oraclePrice).toBe(before);
    for (const [amount, credited] of [[1e-7, '0.0000001'], [16, '16.0'], ['16', '16.0']] as const) {
      const ok = await sim.call('POST', '/sim/deposit', { address: ADDRESS, amount });
      expect(ok.status).toBe(200);
      expect(ok.body.amount).toBe(credited);
    }
  });
});

describe('POST /sim/oracle and /sim/funding: prices and rates are bounded', () => {
  it('refuses infinite, negative, zero, over-range prices and over-long rates', async () => {
    const server = await sim.start();
    const before = server.exchange.engine.markets.get(1)!.oraclePrice;
    await expectRefused(server.url, '/sim/oracle', [
      '{"market":"BTC-USD","price":"Infinity"}',
      '{"market":"BTC-USD","price":"1e400"}',
      '{"market":"BTC-USD","price":1e999}',
      '{"market":"BTC-USD","price":-1}',
      '{"market":"BTC-USD","price":"0"}',
      '{"market":"BTC-USD","price":"' + '9'.repeat(30) + '"}',
    ]);
    expect(server.exchange.engine.markets.get(1)!.oraclePrice).toBe(before);
    await expectRefused(server.url, '/sim/funding', [
      '{"market":"BTC-USD","rate1h":"Infinity"}',
      '{"market":"BTC-USD","rate1h":"1' + '0'.repeat(400) + '"}',
      '{"market":"BTC-USD","rate1h":"0.' + '1'.repeat(400) + '"}',
    ]);
  });
});

describe('the other control inputs: counts and steps', () => {
  it('fault latencies, journal limits and lockstep steps refuse non-finite values', async () => {
    const server = await sim.start({ lockstepStepMs: 100 });
    await expectRefused(server.url, '/sim/faults', ['{"routes":{"/v1/time":{"latencyMs":"Infinity"}}}', '{"routes":{"/v1/time":{"latencyMs":1e999}}}']);
    expect((await sim.call('GET', '/sim/journal?limit=Infinity')).status).toBe(400);
    const joined = await sim.call('POST', '/sim/lockstep/join', {});
    expect(joined.status).toBe(200);
    await expectRefused(server.url, '/sim/lockstep/ack', [
      `{"participantId":"${String(joined.body.participantId)}","step":"Infinity"}`,
      `{"participantId":"${String(joined.body.participantId)}","step":1e999}`,
    ]);
  });
});
