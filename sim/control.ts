/**
 * The simulator's control API (`/sim/*`, outside `/v1`): what a bot's test suite uses to set the
 * stage — deposits, API keys without a wallet signature, oracle prices, the clock.
 *
 * Loopback callers only, unless a control token is configured (then `Authorization: Bearer
 * <token>` is required from anyone). Bodies are validated by fastify schemas like the public
 * routes and refusals use the same error shape. (Issue 6 adds the rest of the control surface.)
 */
import Big from 'big.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { priceToTicks, quoteOf } from '../engine/index.ts';
import { LIMITS } from '../engine/spec.ts';
import { normalizeAddress } from '../gateway/auth/index.ts';
import { price, usd } from '../gateway/contract/format.ts';
import { registerKey, type KeyPermission } from '../gateway/auth/keys.ts';
import { resolveMarket } from '../gateway/read-models/markets.ts';
import type { GatewayState } from '../gateway/contract/operation.ts';
import { advance, nowMicros, setMode, type SimClock } from './clock.ts';

/**
 * Bounds of the control inputs (README "Control routes"): beyond them a request is 400 before
 * it touches the state. Numbers are finite (gateway/contract/validator.ts); decimal strings have at most
 * `decimalMaxLength` characters; a deposit is at most `maxDepositUsd`.
 */
export const CONTROL_LIMITS = {
  decimalMaxLength: 40,
  maxDepositUsd: 1_000_000_000_000,
  maxAdvanceMs: 366 * 86_400_000,
  maxSpeed: 1_000_000,
} as const;

const ADDRESS = Type.String({ pattern: '^(0x|0X)?[0-9a-fA-F]{40}$' });
const DECIMAL = Type.Union([
  Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: CONTROL_LIMITS.decimalMaxLength }),
  Type.Number({ exclusiveMinimum: 0, maximum: 1e15 }),
]);
const MAX_DEPOSIT = new Big(CONTROL_LIMITS.maxDepositUsd);

export function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1' || ip.startsWith('::ffff:127.');
}

/** True for a route of the control API (`/sim` and below), by its declared pattern. */
function isControlRoute(pattern: string | undefined): boolean {
  return pattern !== undefined && (pattern === '/sim' || pattern.startsWith('/sim/'));
}

export interface ControlOptions {
  state: GatewayState;
  clock: SimClock;
  token?: string | undefined;
}

export function registerControl(app: FastifyInstance, options: ControlOptions): void {
  const { state, clock } = options;
  const exchange = state.exchange;

  // The guard keys on the route fastify matched (its declared pattern), not on the request
  // target's spelling: `/%73im/reset` and `POST http://host/sim/reset` match /sim routes too.
  // An unmatched target has no route and answers 404. Callback style: the venue's routes pass
  // straight through (no promise per request).
  app.addHook('onRequest', (req: FastifyRequest, reply, done) => {
    // A target under /v1/ can only match a /v1 route (the router matches that literal prefix):
    // the venue's routes pass without reading routeOptions (a 12-field object built per read).
    if (req.url.startsWith('/v1/') || !isControlRoute(req.routeOptions.url)) return done();
    if (options.token !== undefined) {
      if (req.headers.authorization !== `Bearer ${options.token}`) return void reply.code(401).send({ error: 'control token required' });
    } else if (!isLoopback(req.ip)) {
      return void reply.code(403).send({ error: 'the control API answers loopback callers only' });
    }
    done();
  });

  // Registered as a plugin so the OpenAPI document (registered before) lists them.
  void app.register(async (sim) => {
    sim.post('/sim/deposit', {
      schema: { body: Type.Object({ address: ADDRESS, accountIndex: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax })), amount: DECIMAL }) },
    }, async (req, reply) => {
      const body = req.body as { address: string; accountIndex?: number; amount: string | number };
      const amount = new Big(body.amount);
      if (amount.gt(MAX_DEPOSIT)) return reply.code(400).send({ error: `amount must be at most ${CONTROL_LIMITS.maxDepositUsd} USD` });
      const quantums = BigInt(amount.times(1e9).round(0, Big.roundDown).toFixed(0));
      if (quantums <= 0n) return reply.code(400).send({ error: 'amount must be positive' });
      const address = normalizeAddress(body.address)!;
      const accountIndex = body.accountIndex ?? 0;
      const result = exchange.submit({ type: 'deposit', address, accountIndex, amount: quantums });
      if (result.kind !== 'transfer') return reply.code(400).send({ error: 'deposit refused' });
      const account = exchange.engine.accounts.get(`${address}/${accountIndex}`)!;
      return { address, accountIndex, amount: usd(quantums), netQuoteBalance: usd(quoteOf(account)), operationId: result.operationId };
    });

    sim.post('/sim/apiKeys', {
      schema: {
        body: Type.Object({
          address: ADDRESS,
          publicKey: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
          accountIndex: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax }), Type.Literal(LIMITS.allSubaccountsIndex)])),
          permissions: Type.Optional(Type.Array(Type.Union([Type.Literal('trade'), Type.Literal('withdraw')]), { maxItems: 2 })),
          apiWalletName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        }),
      },
    }, async (req) => {
      const body = req.body as { address: string; publicKey: string; accountIndex?: number; permissions?: KeyPermission[]; apiWalletName?: string };
      const index = body.accountIndex ?? LIMITS.allSubaccountsIndex;
      const key = registerKey(state.keys, {
        apiKey: body.publicKey,
        address: normalizeAddress(body.address)!,
        accountIndex: index === LIMITS.allSubaccountsIndex ? undefined : index,
        apiWalletName: body.apiWalletName ?? `sim-${body.publicKey.slice(0, 8).toLowerCase()}`,
        permissions: body.permissions ?? ['trade'],
        validUntil: 0,
        createdAt: nowMicros(clock),
      });
      return { apiKey: key.apiKey, address: key.address, allSubaccounts: key.accountIndex === undefined, accountIndex: key.accountIndex, permissions: key.permissions };
    });

    sim.post('/sim/oracle', {
      schema: { body: Type.Object({ market: Type.Union([Type.String(), Type.Integer()]), price: DECIMAL }) },
    }, async (req, reply) => {
      const body = req.body as { market: string | number; price: string | number };
      const ms = resolveMarket(exchange, body.market);
      if (ms === undefined) return reply.code(400).send({ error: `unknown market: ${String(body.market)}` });
      const ticks = priceToTicks(ms.spec, String(body.price));
      if (ticks === null) return reply.code(400).send({ error: 'price is not a multiple of tick size (or beyond 2^53 ticks)', errorType: 'Tick' });
      if (ticks <= 0) return reply.code(400).send({ error: 'price must be positive' });
      const result = exchange.submit({ type: 'setOraclePrice', marketId: ms.spec.id, price: ticks });
      if (result.kind === 'invalid') return reply.code(400).send({ error: result.error });
      return { market: ms.spec.displayName, oraclePrice: String(body.price), markPrice: ms.markPrice > 0 ? price(ms.spec, ms.markPrice) : '0' };
    });

    sim.post('/sim/funding', {
      schema: { body: Type.Object({ market: Type.Union([Type.String(), Type.Integer()]), rate1h: Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', maxLength: CONTROL_LIMITS.decimalMaxLength }) }) },
    }, async (req, reply) => {
      const body = req.body as { market: string | number; rate1h: string };
      const ms = resolveMarket(exchange, body.market);
      if (ms === undefined) return reply.code(400).send({ error: `unknown market: ${String(body.market)}` });
      const rate = BigInt(new Big(body.rate1h).times(1e12).round(0, Big.roundHalfEven).toFixed(0));
      const result = exchange.submit({ type: 'setFundingRate', marketId: ms.spec.id, rate });
      if (result.kind === 'invalid') return reply.code(400).send({ error: result.error });
      return { market: ms.spec.displayName, rate1h: body.rate1h };
    });

    sim.post('/sim/liquidate', {
      schema: { body: Type.Object({ address: ADDRESS, accountIndex: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax })) }) },
    }, async (req, reply) => {
      const body = req.body as { address: string; accountIndex?: number };
      const address = normalizeAddress(body.address)!;
      const result = exchange.submit({ type: 'forceLiquidation', address, accountIndex: body.accountIndex ?? 0 });
      if (result.kind === 'invalid') return reply.code(400).send({ error: result.error });
      return { address, accountIndex: body.accountIndex ?? 0, status: 'liquidated' };
    });

    sim.post('/sim/halt', {
      schema: { body: Type.Object({ market: Type.Union([Type.String(), Type.Integer()]), halted: Type.Boolean() }) },
    }, async (req, reply) => {
      const body = req.body as { market: string | number; halted: boolean };
      const ms = resolveMarket(exchange, body.market);
      if (ms === undefined) return reply.code(400).send({ error: `unknown market: ${String(body.market)}` });
      exchange.submit({ type: 'setHalt', marketId: ms.spec.id, halted: body.halted });
      return { market: ms.spec.displayName, halted: body.halted };
    });

    // The venue's interface has no halt flag: this is how a client (the web console) learns it.
    sim.get('/sim/halt', async () => ({ halted: [...exchange.engine.markets.values()].filter((ms) => ms.halted).map((ms) => ms.spec.displayName) }));

    sim.get('/sim/clock', async () => ({ timeUs: nowMicros(clock), mode: clock.mode, speed: clock.speed }));

    sim.post('/sim/clock', {
      schema: {
        body: Type.Object({
          advanceMs: Type.Optional(Type.Integer({ minimum: 0, maximum: CONTROL_LIMITS.maxAdvanceMs })),
          mode: Type.Optional(Type.Union([Type.Literal('realtime'), Type.Literal('accelerated'), Type.Literal('virtual')])),
          speed: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: CONTROL_LIMITS.maxSpeed })),
        }),
      },
    }, async (req, reply) => {
      const body = req.body as { advanceMs?: number; mode?: 'realtime' | 'accelerated' | 'virtual'; speed?: number };
      if ((body.advanceMs === undefined) === (body.mode === undefined)) return reply.code(400).send({ error: 'give exactly one of advanceMs and mode' });
      if (body.mode !== undefined) setMode(clock, body.mode, body.speed ?? 1);
      else advance(clock, body.advanceMs! * 1000);
      // Every timer due up to the new time fires now, in order (the engine runs them on a command).
      exchange.submit({ type: 'advanceTime' });
      return { timeUs: nowMicros(clock), mode: clock.mode, speed: clock.speed };
    });
  });
}
