/**
 * One declaration per operation: what the REST route and the WebSocket method share.
 *
 * An operation is its name (the WebSocket method and rate-limit weight entry), method and path,
 * the auth it needs, the JSON schema of its input (fastify compiles it once; the WebSocket RPC
 * reuses the same validator), and a handler from a parsed request to a reply. Handlers never
 * see fastify: `OperationRequest` is what both transports can give.
 */
import type { TSchema } from 'typebox';
import type { ServerClocks } from './auth/index.ts';
import type { Reply } from './errors.ts';
import type { Exchange } from './exchange.ts';
import type { GeoConfig } from './geo.ts';
import type { KeyRegistry } from './keys.ts';
import type { AccountPools, IpBucket, RateLimitConfig } from './rate-limit/index.ts';

export type AuthKind = 'public' | 'key' | 'signed' | 'wallet';

export interface GatewayConfig {
  service: string;
  version: string;
  /** Skip signature checks (perpsim --no-auth): keys must still name the right address. */
  auth: boolean;
  rateLimit: RateLimitConfig;
  /** Regions whose state-changing requests are refused (geo.ts); none when absent. */
  geo?: GeoConfig;
}

export interface GatewayState {
  exchange: Exchange;
  keys: KeyRegistry;
  config: GatewayConfig;
  /** Wall and simulator clocks for the timestamp window (ns). */
  clocks: () => ServerClocks;
  /** Wall-clock milliseconds for rate limits and key expiry. */
  nowMs: () => number;
  ipBuckets: Map<string, IpBucket>;
  pools: Map<string, AccountPools>;
  /** Signed payloads already accepted (replay protection), by signature. */
  replay: Set<string>;
  /**
   * Resolves once every change made so far is durable (gateway/persistence/); replies wait for
   * it. Absent: nothing to wait for.
   */
  committed?: () => Promise<void>;
}

export interface OperationRequest {
  body: unknown;
  query: Record<string, unknown>;
  params: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  /** The request path with its query (Scheme 2 signs the path's last segment). */
  path: string;
  rawBody: string | undefined;
}

export interface Operation {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  auth: AuthKind;
  description: string;
  schema?: { querystring?: TSchema; body?: TSchema; params?: TSchema };
  handle(state: GatewayState, request: OperationRequest): Reply | Promise<Reply>;
}
