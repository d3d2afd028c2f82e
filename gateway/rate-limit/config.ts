/**
 * Rate-limit configuration: the numbers (defaults from engine/spec.ts), the IP allowlist, the
 * account-layer mode and the master switch.
 *
 * - `enabled: false` is perpsim's `--no-rate-limits`: nothing is checked or charged anywhere,
 *   and order-write replies omit `rateLimit` (interface: "omitted when rate limiting is not
 *   configured").
 * - `ipAllowlist`: IPs that bypass every limit (IP bucket, account pools, WebSocket limits);
 *   their order-write replies report `remaining: -1` ("allowlist bypass"). Addresses are
 *   compared after `normalizeIp`, so an IPv4 client seen on a dual-stack socket as
 *   `::ffff:10.0.0.1` matches `10.0.0.1`.
 * - `accountLayer`: `enforce` charges and refuses; `shadow` charges (so GET /v1/rateLimit shows
 *   use) but never refuses; `off` is IP-only. Both non-enforcing modes report `remaining: -1`.
 */
import { LIMITS, RATE_LIMITS, WS_LIMITS } from '../../engine/spec.ts';
import type { PoolsConfig } from './account-pools.ts';
import { ipBucketRule } from './ip-bucket.ts';
import type { TokenBucketRule } from './token-bucket.ts';
import type { WsLimitsConfig } from './ws-limits.ts';
import { plainRecord } from '../../engine/index.ts';

const MS_PER_MINUTE = 60_000;

export type AccountLayerMode = 'enforce' | 'shadow' | 'off';

export interface RateLimitConfig {
  readonly enabled: boolean;
  readonly ipAllowlist: ReadonlySet<string>;
  readonly accountLayer: AccountLayerMode;
  readonly ipBucket: TokenBucketRule;
  readonly pools: PoolsConfig;
  readonly ws: WsLimitsConfig;
}

/** Overrides of the defaults; everything is optional. */
export interface RateLimitOptions {
  readonly enabled?: boolean;
  readonly ipAllowlist?: Iterable<string>;
  readonly accountLayer?: AccountLayerMode;
  readonly ipBucket?: Partial<TokenBucketRule>;
  readonly pools?: Partial<PoolsConfig>;
  readonly ws?: Partial<WsLimitsConfig>;
}

/** 0.10 USD in quote quantums: the notional that adds one unit to each pool's cap. */
const NOTIONAL_PER_UNIT = BigInt(Math.round(RATE_LIMITS.notionalUsdPerUnit * Number(LIMITS.quoteQuantumsPerUsd)));

export const DEFAULT_POOLS: PoolsConfig = {
  startingCap: { order: RATE_LIMITS.orderPoolCap, cancel: RATE_LIMITS.cancelPoolCap },
  notionalPerUnit: NOTIONAL_PER_UNIT,
  dripIntervalMs: RATE_LIMITS.dripIntervalMs,
  cancelAllCost: RATE_LIMITS.cancelAllCost,
};

export const DEFAULT_IP_BUCKET: TokenBucketRule = ipBucketRule(RATE_LIMITS.ipBucketCapacity, RATE_LIMITS.ipRefillPerSecond);

export const DEFAULT_WS: WsLimitsConfig = {
  connectionsPerIp: WS_LIMITS.connectionsPerIp,
  newConnections: {
    capacity: WS_LIMITS.newConnectionsPerMinutePerIp,
    refill: WS_LIMITS.newConnectionsPerMinutePerIp,
    perMs: MS_PER_MINUTE,
  },
  subscriptionsPerConnection: WS_LIMITS.subscriptionsPerConnection,
  subscriptionsPerIp: WS_LIMITS.subscriptionsPerIp,
  clientMessages: {
    capacity: WS_LIMITS.clientMessagesPerMinutePerIp,
    refill: WS_LIMITS.clientMessagesPerMinutePerIp,
    perMs: MS_PER_MINUTE,
  },
  inFlightPostsPerConnection: WS_LIMITS.inFlightPostsPerConnection,
  connectionLifetimeMs: WS_LIMITS.connectionLifetimeMs,
  maxFrameBytes: WS_LIMITS.maxFrameBytes,
};

const buildRateLimitConfig = plainRecord<RateLimitConfig>();

/**
 * The configuration: the interface's numbers unless overridden.
 *
 * @example rateLimitConfig({ ipAllowlist: ['10.0.0.7'], pools: { cancelAllCost: 1 } })
 */
export function rateLimitConfig(options: RateLimitOptions = {}): RateLimitConfig {
  return buildRateLimitConfig({
    enabled: options.enabled ?? true,
    ipAllowlist: new Set([...(options.ipAllowlist ?? [])].map(normalizeIp)),
    accountLayer: options.accountLayer ?? 'enforce',
    ipBucket: { ...DEFAULT_IP_BUCKET, ...options.ipBucket },
    pools: {
      ...DEFAULT_POOLS,
      ...options.pools,
      startingCap: { ...DEFAULT_POOLS.startingCap, ...options.pools?.startingCap },
    },
    ws: { ...DEFAULT_WS, ...options.ws },
  });
}

/** Lowercase; an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) becomes its IPv4 form. */
export function normalizeIp(ip: string): string {
  const lower = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  return mapped?.[1] ?? lower;
}

/** How limits apply to a client IP: `off` (limits disabled), `bypass` (allowlisted) or `enforce`. */
export type IpScope = 'off' | 'bypass' | 'enforce';

export function ipScope(config: RateLimitConfig, ip: string): IpScope {
  if (!config.enabled) return 'off';
  return config.ipAllowlist.has(normalizeIp(ip)) ? 'bypass' : 'enforce';
}
