/**
 * WebSocket limits (gateway/rate-limit/ws-limits.ts), one describe per row of interface.md
 * "Limits", "WebSocket limits".
 */
import { describe, expect, it } from 'vitest';
import {
  addSubscription,
  beginPost,
  closeConnection,
  connectionExpired,
  connectionExpiresAtMs,
  DEFAULT_WS,
  endPost,
  frameTooLarge,
  messageTokens,
  openConnection,
  receiveFrame,
  removeSubscription,
  type WsConnectionState,
  type WsFrameKind,
  type WsIpState,
} from '../gateway/rate-limit/index.ts';

const T0 = 1_700_000_000_000;
const ws = DEFAULT_WS;

/** Opens `n` connections at `nowMs`, failing the test on a refusal. */
function open(ip: WsIpState | undefined, n: number, nowMs: number): { ip: WsIpState; connections: WsConnectionState[] } {
  let state = ip;
  const connections: WsConnectionState[] = [];
  for (let i = 0; i < n; i++) {
    const result = openConnection(state, nowMs, ws);
    if (!result.accepted) throw new Error(`connection ${i} refused: ${result.reason}`);
    state = result.ip;
    connections.push(result.connection);
  }
  if (state === undefined) throw new Error('no connections');
  return { ip: state, connections };
}

function closeAll(ip: WsIpState, connections: readonly WsConnectionState[]): WsIpState {
  return connections.reduce(closeConnection, ip);
}

function subscribeN(ip: WsIpState, connection: WsConnectionState, n: number): { ip: WsIpState; connection: WsConnectionState } {
  let state = { ip, connection };
  for (let i = 0; i < n; i++) {
    const result = addSubscription(state.ip, state.connection, ws);
    if (!result.accepted) throw new Error(`subscription ${i} refused: ${result.reason}`);
    state = { ip: result.ip, connection: result.connection };
  }
  return state;
}

describe('Simultaneous connections: 50 per IP', () => {
  it('refuses the 51st open connection and accepts again after a close', () => {
    const { ip, connections } = open(undefined, 50, T0);
    expect(ip.connections).toBe(50);
    const later = T0 + 60_000; // tokens are back; only the simultaneous cap is in the way
    const refused = openConnection(ip, later, ws);
    expect(refused).toMatchObject({ accepted: false, reason: 'connections' });
    expect(refused).not.toHaveProperty('retryAfterMs');
    const first = connections[0];
    if (first === undefined) throw new Error('no connection');
    expect(openConnection(closeConnection(refused.ip, first), later, ws)).toMatchObject({ accepted: true, ip: { connections: 50 } });
  });
});

describe('New connections: 50 per minute per IP (a rejected attempt still consumes a token)', () => {
  it('the 51st attempt within a minute is refused until a token refills (1 per 1.2 s)', () => {
    let ip: WsIpState | undefined;
    for (let i = 0; i < 50; i++) {
      const opened = open(ip, 1, T0);
      ip = closeAll(opened.ip, opened.connections);
    }
    const refused = openConnection(ip, T0, ws);
    expect(refused).toMatchObject({ accepted: false, reason: 'connection_rate', retryAfterMs: 1200 });
    expect(openConnection(refused.ip, T0 + 1199, ws)).toMatchObject({ accepted: false, retryAfterMs: 1 });
    expect(openConnection(refused.ip, T0 + 1200, ws)).toMatchObject({ accepted: true });
  });

  it('an attempt refused at the simultaneous cap still consumes its token', () => {
    const full = open(undefined, 50, T0);
    let ip = full.ip;
    const later = T0 + 60_000;
    for (let i = 0; i < 10; i++) {
      const refused = openConnection(ip, later, ws);
      expect(refused).toMatchObject({ accepted: false, reason: 'connections' });
      ip = refused.ip;
    }
    ip = closeAll(ip, full.connections);
    const reopened = open(ip, 40, later);
    expect(openConnection(reopened.ip, later, ws)).toMatchObject({ accepted: false, reason: 'connection_rate' });
  });

  it('an attempt refused for the rate takes nothing, so retrying does not push the wait back', () => {
    let ip: WsIpState | undefined;
    for (let i = 0; i < 50; i++) {
      const opened = open(ip, 1, T0);
      ip = closeAll(opened.ip, opened.connections);
    }
    for (let t = 0; t < 1200; t += 100) {
      const refused = openConnection(ip, T0 + t, ws);
      expect(refused).toMatchObject({ accepted: false, retryAfterMs: 1200 - t });
      ip = refused.ip;
    }
    expect(openConnection(ip, T0 + 1200, ws).accepted).toBe(true);
  });
});

describe('Subscriptions per connection: 100; subscriptions per IP: 1,000', () => {
  it('refuses the 101st subscription on a connection; unsubscribe frees a slot', () => {
    const { ip, connections } = open(undefined, 1, T0);
    const [connection] = connections;
    if (connection === undefined) throw new Error('no connection');
    const full = subscribeN(ip, connection, 100);
    expect(addSubscription(full.ip, full.connection, ws)).toEqual({ accepted: false, reason: 'connection_subscriptions' });
    const freed = removeSubscription(full.ip, full.connection);
    expect(freed.connection.subscriptions).toBe(99);
    expect(addSubscription(freed.ip, freed.connection, ws).accepted).toBe(true);
  });

  it('refuses the 1,001st subscription across an IP\'s connections; closing a connection releases its subscriptions', () => {
    const opened = open(undefined, 11, T0);
    let ip = opened.ip;
    const filled: WsConnectionState[] = [];
    for (const connection of opened.connections.slice(0, 10)) {
      const result = subscribeN(ip, connection, 100);
      ip = result.ip;
      filled.push(result.connection);
    }
    expect(ip.subscriptions).toBe(1000);
    const eleventh = opened.connections[10];
    const firstFilled = filled[0];
    if (eleventh === undefined || firstFilled === undefined) throw new Error('no connection');
    expect(addSubscription(ip, eleventh, ws)).toEqual({ accepted: false, reason: 'ip_subscriptions' });
    const afterClose = closeConnection(ip, firstFilled);
    expect(afterClose).toMatchObject({ connections: 10, subscriptions: 900 });
    expect(addSubscription(afterClose, eleventh, ws).accepted).toBe(true);
  });

  it('unsubscribing with nothing subscribed changes nothing', () => {
    const { ip, connections } = open(undefined, 1, T0);
    const [connection] = connections;
    if (connection === undefined) throw new Error('no connection');
    expect(removeSubscription(ip, connection)).toEqual({ ip, connection });
  });
});

describe('Outbound client messages: 1,000 per minute per IP; only subscribe, unsubscribe and malformed frames count; well-formed post/get calls are exempt', () => {
  const counted: readonly WsFrameKind[] = ['subscribe', 'unsubscribe', 'malformed'];

  function send(ip: WsIpState | undefined, kinds: readonly WsFrameKind[], n: number, nowMs: number): WsIpState | undefined {
    let state = ip;
    for (let i = 0; i < n; i++) {
      const result = receiveFrame(state, kinds[i % kinds.length] ?? 'malformed', nowMs, ws);
      if (!result.allowed) throw new Error(`frame ${i} refused`);
      state = result.ip;
    }
    return state;
  }

  it('the 1,001st counted frame in a minute is refused; one comes back every 60 ms', () => {
    const ip = send(undefined, counted, 1000, T0);
    expect(messageTokens(ip, T0, ws)).toBe(0);
    expect(receiveFrame(ip, 'subscribe', T0, ws)).toMatchObject({ allowed: false, retryAfterMs: 60 });
    expect(receiveFrame(ip, 'malformed', T0 + 59, ws)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    expect(receiveFrame(ip, 'unsubscribe', T0 + 60, ws).allowed).toBe(true);
    expect(messageTokens(ip, T0 + 60_000, ws)).toBe(1000);
  });

  it('post, get and ping frames pass and take nothing, even with no tokens left', () => {
    const ip = send(undefined, counted, 1000, T0);
    for (const kind of ['post', 'get', 'ping'] as const) {
      const result = receiveFrame(ip, kind, T0, ws);
      expect(result).toEqual({ allowed: true, ip });
    }
    expect(send(undefined, ['post', 'get'], 5000, T0)).toEqual({ connections: 0, subscriptions: 0, newConnections: undefined, messages: undefined });
  });
});

describe('In-flight post messages: 50 per connection', () => {
  it('refuses the 51st post in flight; an answer frees a slot', () => {
    const { connections } = open(undefined, 1, T0);
    let connection = connections[0];
    if (connection === undefined) throw new Error('no connection');
    for (let i = 0; i < 50; i++) {
      const next = beginPost(connection, ws);
      if (next === undefined) throw new Error(`post ${i} refused`);
      connection = next;
    }
    expect(beginPost(connection, ws)).toBeUndefined();
    expect(beginPost(endPost(connection), ws)?.inFlightPosts).toBe(50);
    expect(endPost({ ...connection, inFlightPosts: 0 }).inFlightPosts).toBe(0);
  });
});

describe('Connection lifetime: 24 hours, then closed; maximum request frame: 1 MB', () => {
  it('expires 24 hours after opening', () => {
    const { connections } = open(undefined, 1, T0);
    const [connection] = connections;
    if (connection === undefined) throw new Error('no connection');
    expect(connectionExpiresAtMs(connection, ws)).toBe(T0 + 86_400_000);
    expect(connectionExpired(connection, T0 + 86_399_999, ws)).toBe(false);
    expect(connectionExpired(connection, T0 + 86_400_000, ws)).toBe(true);
  });

  it('refuses frames above 1 MB', () => {
    expect(frameTooLarge(1024 * 1024, ws)).toBe(false);
    expect(frameTooLarge(1024 * 1024 + 1, ws)).toBe(true);
  });
});
