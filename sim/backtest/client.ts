/**
 * The strategy's client: the venue's operations, called in process.
 *
 * Every call goes through the same operation record the REST route and the WebSocket RPC use
 * (gateway/operations): the route's JSON schema (compiled with the options the WebSocket RPC
 * uses), then the handler, which parses decimals, validates ticks and steps and turns the body
 * into the same engine command the server would apply. Only the transport is different: no
 * HTTP, signatures are not checked (the gateway's `auth: false` mode, as with
 * `perpsim serve --no-auth`), rate limits are off, and each request carries a fresh dummy
 * signature so the gateway's replay protection does not refuse a repeated body.
 *
 * Writes travel with the configured order / cancel latency: the returned promise resolves with
 * the reply when the request reaches the exchange in simulated time. Reads answer at once from
 * the exchange's current state.
 */
import type { ValidateFunction } from 'ajv';
import { OPERATIONS } from '../../gateway/operations/index.ts';
import type { GatewayState, Operation } from '../../gateway/contract/operation.ts';
import type { EngineConfig } from '../../engine/index.ts';
import type { Clock } from '../../gateway/read-models/exchange.ts';
import { createGateway } from '../../gateway/gateway.ts';
import { registerKey } from '../../gateway/auth/keys.ts';
import { rateLimitConfig } from '../../gateway/rate-limit/index.ts';
import type { SchemaValidator } from '../../gateway/contract/validator.ts';

/** An operation's answer: the HTTP status and body the REST route would send. */
export interface Reply {
  status: number;
  body: Record<string, unknown>;
}

const DAY_US = 86_400_000_000;
/** goodTilTime clients send when they leave it to the library (supplement §2: now + 40-45 days). */
export const DEFAULT_GTT_US = 40 * DAY_US;

type Body = Record<string, unknown>;

/** The gateway's operations over one exchange (built here, read models and services included), without a transport. */
export class InProcessGateway {
  readonly state: GatewayState;
  private readonly byName = new Map(OPERATIONS.map((op) => [op.name, op] as const));
  private readonly validators = new Map<Operation, ValidateFunction>();
  private requests = 0;
  readonly apiKey: string;

  /**
   * `validator` compiles the operations' request schemas, here and inside the gateway's
   * operations (a batch's elements): a new one by default; a sweep thread passes one validator to
   * all of its runs, so that each schema is compiled (by ajv, then by V8) once per thread rather
   * than once per run.
   */
  private readonly validator: SchemaValidator;

  constructor(engine: EngineConfig, clock: Clock, address: string, validator?: SchemaValidator) {
    this.state = createGateway({
      engine,
      clock,
      config: { service: 'api-gateway', version: 'perpsim-backtest', auth: false, rateLimit: rateLimitConfig({ enabled: false }) },
      clocks: () => ({ wallNs: BigInt(clock()) * 1000n, simNs: BigInt(clock()) * 1000n }),
      nowMs: () => Math.floor(clock() / 1000),
      ...(validator !== undefined && { validator }),
    });
    this.validator = this.state.validator;
    const exchange = this.state.exchange;
    this.apiKey = address.slice(2).padEnd(64, '0');
    registerKey(this.state.keys, { apiKey: this.apiKey, address, accountIndex: undefined, apiWalletName: 'backtest', permissions: ['trade', 'withdraw'], validUntil: 0, createdAt: exchange.clock() });
  }

  /** Runs one operation by name (the WebSocket method name) with its body or query. */
  call(name: string, payload: Body): Reply {
    const op = this.byName.get(name);
    if (op === undefined) return { status: 400, body: { error: `unknown operation: ${name}` } };
    const schema = op.schema?.body ?? op.schema?.querystring;
    if (schema !== undefined) {
      let validate = this.validators.get(op);
      if (validate === undefined) {
        validate = this.validator.compile(schema);
        this.validators.set(op, validate);
      }
      if (!validate(payload)) return { status: 400, body: { error: this.validator.errorsText(validate.errors), errorType: 'InvalidRequest' } };
    }
    this.requests++;
    const headers = {
      'x-api-key': this.apiKey,
      'x-timestamp': (BigInt(this.state.exchange.clock()) * 1000n).toString(),
      'x-signature': this.requests.toString(16).padStart(128, '0'),
    };
    const params: Record<string, string> = {};
    if (payload.market !== undefined) params.market = String(payload.market);
    if (payload.orderId !== undefined && op.method === 'GET') params.orderId = String(payload.orderId);
    const reply = op.handle(this.state, {
      body: op.method === 'POST' ? payload : undefined,
      query: op.method === 'GET' ? payload : { address: payload.address },
      params,
      headers,
      ip: '127.0.0.1',
      path: `/v1/${op.name}`,
      rawBody: op.method === 'POST' ? JSON.stringify(payload) : undefined,
    });
    if (reply instanceof Promise) throw new Error(`${name} answers asynchronously; the backtest runs operations synchronously`);
    // In process nothing is ever replayed: forget the accepted signatures instead of keeping millions.
    this.state.replay.clear();
    return reply as Reply;
  }
}

/**
 * Where the client's writes go (the backtest schedules them). An object with a method rather than
 * a callback: the backtest itself, one `write` for every run in a thread (a closure per run would
 * be a new call target each run, and V8 would throw away the code it optimized around it).
 */
export interface WriteTransport {
  write(operation: string, body: Body, kind: 'order' | 'cancel'): Promise<Reply>;
}

/** The order-write operations and their latency kind. */
export const WRITE_KINDS: Readonly<Record<string, 'order' | 'cancel'>> = {
  placeOrder: 'order',
  modifyOrder: 'order',
  batchPlaceOrders: 'order',
  batchModifyOrders: 'order',
  cancelOrder: 'cancel',
  batchCancelOrders: 'cancel',
  cancelAllOrders: 'cancel',
  scheduleCancel: 'cancel',
  setLeverage: 'order',
  adjustIsolatedMargin: 'order',
};

/**
 * The strategy's side of the venue's interface. Bodies are the REST bodies (decimal strings);
 * `address` and `accountIndex` default to the backtest's account, `goodTilTime` to now + 40
 * days, so a strategy written against these calls sends the same bodies to the live venue.
 */
export class BacktestClient {
  constructor(
    private readonly gateway: InProcessGateway,
    private readonly transport: WriteTransport,
    readonly address: string,
    readonly accountIndex: number,
  ) {}

  private own(body: Body): Body {
    return { address: this.address, accountIndex: this.accountIndex, ...body };
  }

  private order(body: Body): Body {
    const full = this.own(body);
    if (full.goodTilTime === undefined) full.goodTilTime = String(this.gateway.state.exchange.clock() + DEFAULT_GTT_US);
    return full;
  }

  placeOrder(body: Body): Promise<Reply> {
    return this.transport.write('placeOrder', this.order(body), 'order');
  }

  cancelOrder(body: Body): Promise<Reply> {
    return this.transport.write('cancelOrder', this.own(body), 'cancel');
  }

  modifyOrder(body: Body): Promise<Reply> {
    return this.transport.write('modifyOrder', this.own(body), 'order');
  }

  batchPlaceOrders(body: { orders: Body[]; grouping?: string }): Promise<Reply> {
    return this.transport.write('batchPlaceOrders', { ...body, orders: body.orders.map((o) => ({ signature: 'in-process', ...this.order(o) })) }, 'order');
  }

  batchCancelOrders(body: { cancels: Body[] }): Promise<Reply> {
    return this.transport.write('batchCancelOrders', { cancels: body.cancels.map((c) => ({ signature: 'in-process', ...this.own(c) })) }, 'cancel');
  }

  batchModifyOrders(body: { modifies: Body[] }): Promise<Reply> {
    return this.transport.write('batchModifyOrders', { modifies: body.modifies.map((m) => ({ signature: 'in-process', ...this.own(m) })) }, 'order');
  }

  cancelAllOrders(body: Body = {}): Promise<Reply> {
    return this.transport.write('cancelAllOrders', this.own(body), 'cancel');
  }

  scheduleCancel(body: Body = {}): Promise<Reply> {
    return this.transport.write('scheduleCancel', this.own(body), 'cancel');
  }

  setLeverage(body: { marketId: number; leverage: number; isolated?: boolean }): Promise<Reply> {
    return this.transport.write('setLeverage', this.own(body), 'order');
  }

  adjustIsolatedMargin(body: { marketId: number; amount: string }): Promise<Reply> {
    return this.transport.write('adjustIsolatedMargin', this.own(body), 'order');
  }

  /** Any read of the interface by its operation name (account, positions, openOrders, fills, …); the account's address is filled in. */
  read(operation: string, query: Body = {}): Reply {
    return this.gateway.call(operation, this.own(query));
  }
}
