/**
 * The gateway under load (issue: `npm run bench:gateway`): signed placeOrder over REST, in
 * orders/s acknowledged with p50/p99 latency, against two baselines measured in the same run —
 * single-core Ed25519 verification (sodium-native's `crypto_sign_verify_detached`, or
 * node:crypto when sodium-native cannot be loaded; the output says which) and a fastify
 * hello-world POST — plus GET /v1/bbo/BTC-USD reads against two hello worlds: that POST, and a
 * GET answering a constant body of the bbo reply's size.
 *
 * Setup: perpsim in-process (`startServer`: auth on, rate limits off so the bench measures
 * throughput, agents off, virtual clock so every pre-signed X-Timestamp stays in the window),
 * and a bare fastify server with a `POST /` route and a `GET /bbo-sized` route (a constant JSON
 * body as long as perpsim's /v1/bbo/BTC-USD reply) in the same process on another port. The
 * 2 × PAIRS accounts of `gateway-orders.ts` are funded and their keys registered through /sim
 * (fastify `inject`: setup, not measured). A separate account rests one BTC-USD bid and one ask
 * far from the traded price (straight into the exchange) so /v1/bbo answers both sides. The load
 * comes from autocannon in a child process (`gateway-load.ts`), on loopback, with the same
 * connection count for every target, so the servers keep one core and the client the other.
 *
 * Passes, each after a warm-up pass: the verify baselines (time-bounded loops over
 * placeOrder-sized payloads; node:crypto itself, with the gateway's cached KeyObjects, is printed
 * too); hello world POST, hello world GET, then bbo, for BENCH_SECONDS each (default 8;
 * BENCH_QUICK=1: 1); signed
 * orders: a warm-up batch measures the rate, then enough requests for about BENCH_SECONDS are
 * pre-signed (outside the timing) and each is sent once (autocannon `amount`). Orders/s counts
 * 202 ACKs only; other answers are listed, and more than 1 % of them aborts the run. Each line
 * also gives CPU time per request: the servers' process (verification threads included), its
 * main thread (the event loop) alone, and the load generator (bench/thread-cpu.ts). docs/decisions.md
 * "Event-loop cost per signed order" uses these. BENCH_CONNECTIONS sets the connection
 * count (default 16). A run takes about 50 s (BENCH_QUICK=1: under 15 s).
 *
 * Targets: the event loop's CPU per signed order ≤ 2.0 × the hello-world POST's per request
 * (issue 20; the line before it, signed orders/s ≥ 1.0 × verify, is printed for history), and
 * the same against a last hello-world pass paced at the signed orders' rate (autocannon
 * overallRate: the per-request cost of a loop depends on its rate), and a hello world that
 * waits for the gateway's verifier (`POST /verified`, same pace) before it answers, and the
 * exact floor (`orderShaped…`): the order pass's very requests (headers, query, body bytes) sent
 * to a hello world that verifies each against its own Scheme 1 payload with the gateway's
 * verifier and answers with placeOrder's status, headers and reply bytes, same pace; GET /v1/bbo
 * ≥ 0.7 × hello world, reported against both hello worlds: the POST parses an order-sized body
 * and answers a few bytes, the GET parses nothing and answers as many bytes as bbo. Ends with
 * one JSON line: {"bench":"gateway","signedOrdersPerSec":…,"verifyBaselinePerSec":…,
 * "bboReadsPerSec":…,"helloWorldPerSec":… (the POST),"helloWorldGetPerSec":…,"p99Ms":…, …}.
 */
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import Fastify from 'fastify';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import { verify } from 'node:crypto';
import { ed25519PublicKey } from '../gateway/auth/ed25519.ts';
import { createVerifier } from '../gateway/auth/verifier.ts';
import { startServer, type Server } from '../sim/server.ts';
import { envInt } from './env.ts';
import { count, drive, fundAndRegister, is2xx, perSec, startLoad, stopLoad, ask, type Pass } from './gateway-driver.ts';
import type { LoadTarget } from './gateway-load.ts';
import { benchWallet, benchWallets, GTT_AHEAD_US, orderPayloads, PAIRS, samplePayload, signOrders } from './gateway-orders.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = envInt('BENCH_SECONDS', QUICK ? 1 : 8);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 16);
const WARMUP_SECONDS = QUICK ? 0.25 : 2;
const WARMUP_ORDERS = QUICK ? 200 : 4_000;
const VERIFY_MS = QUICK ? 200 : 2_000;
const TARGET_SIGNED_VS_VERIFY = 1.0;
const TARGET_BBO_VS_HELLO = 0.7;
/** Issue 20: the event loop's CPU per signed order ≤ 2.0 × a hello-world POST's per request, same run. */
const TARGET_MAIN_CPU_VS_HELLO = 2.0;

// ---------------------------------------------------------------- the verify baseline

interface Sodium {
  crypto_sign_verify_detached(signature: Buffer, message: Buffer, publicKey: Buffer): boolean;
}

function loadSodium(): { sodium: Sodium; version: string } | string {
  const require = createRequire(import.meta.url);
  try {
    const sodium = require('sodium-native') as Sodium;
    const version = (require('sodium-native/package.json') as { version: string }).version;
    return { sodium, version };
  } catch (e) {
    return e instanceof Error ? e.message.split('\n')[0]! : String(e);
  }
}

/** Verifications per second of `verifyOne` over `n` samples, after a warm-up, for about `ms`. */
function verifyRate(n: number, verifyOne: (i: number) => boolean, ms: number): number {
  const loop = (budget: number): [number, number] => {
    const start = performance.now();
    let done = 0;
    let elapsed = 0;
    while (elapsed < budget) {
      for (let k = 0; k < 256; k++, done++) {
        if (!verifyOne(done % n)) throw new Error('verify baseline: a valid signature failed to verify');
      }
      elapsed = performance.now() - start;
    }
    return [done, elapsed];
  };
  loop(ms / 5);
  const [done, elapsed] = loop(ms);
  return Math.round(done / (elapsed / 1000));
}

// ---------------------------------------------------------------- setup

/** One BTC-USD bid 1 % below and one ask 1 % above the traded price, so /v1/bbo has both sides. */
function restTopOfBook(server: Server, address: string, nowUs: number): void {
  const spec = server.exchange.engine.markets.get(1)!.spec;
  for (const [side, price] of [[0, '96030'], [1, '97970']] as const) {
    const result = server.exchange.submit({
      type: 'placeOrder',
      address,
      accountIndex: 0,
      marketId: 1,
      side,
      orderType: 0,
      tif: 0,
      price: priceToTicks(spec, price)!,
      size: sizeToQuantums(spec, '0.01')!,
      reduceOnly: false,
      goodTilTime: nowUs + GTT_AHEAD_US,
    });
    if (result.kind !== 'order' || result.status === 'REJECTED') throw new Error(`seeding the BTC-USD book failed: ${JSON.stringify(result)}`);
  }
}

// ---------------------------------------------------------------- the run

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => n.toFixed(2);

/** CPU µs per response of a pass, whole. */
const perRequest = (us: number, r: Pass): number => (r.responses === 0 ? 0 : Math.round(us / r.responses));

function line(label: string, rate: number, unit: string, r: Pass, extra = ''): string {
  const non2xx = count(r, (s) => !is2xx(s));
  const per = (us: number): string => String(perRequest(us, r)).padStart(4);
  return `${label.padEnd(34)} ${fmt(rate).padStart(9)} ${unit.padEnd(9)} p50 ${ms(r.p50Ms).padStart(6)} ms  p99 ${ms(r.p99Ms).padStart(6)} ms  CPU µs/req: server ${per(r.serverCpuUs)}, its main thread ${per(r.mainThreadCpuUs)}, load generator ${per(r.loadCpuUs)}  non-2xx ${non2xx}  errors ${r.errors + r.timeouts}${extra}`;
}

async function main(): Promise<void> {
  const started = performance.now();
  const load = startLoad();
  const server = await startServer({ host: '127.0.0.1', port: 0, clock: 'virtual', agents: false, rateLimits: false, auth: true });
  const hello = Fastify({ logger: false });
  hello.post('/', async () => ({ hello: 'world' }));
  // The same with the gateway's verification round trip (its verifier and threads, one
  // placeOrder-sized signature): the floor of any signed route that verifies off the event loop.
  let verifyJob: [key: string, signature: string, candidates: readonly string[]] = ['', '', []];
  hello.post('/verified', (_request, reply) =>
    server.state.verifier!.verify(...verifyJob).then((found) => reply.code(found === 0 ? 200 : 401).send({ hello: 'world' })),
  );
  // The exact floor under the order pass: the very requests it sends (headers, query, body
  // bytes), each verified by the gateway's verifier against its own Scheme 1 payload (looked up
  // by X-Timestamp), answered with placeOrder's reply bytes and headers. Filled in below.
  const orderShaped = { payloads: new Map<string, string>(), status: 202, headers: {} as Record<string, string>, body: '' };
  hello.post('/v1/placeOrder', (request, reply) => {
    const h = request.headers;
    return server.state.verifier!.verify(h['x-api-key'] as string, h['x-signature'] as string, [orderShaped.payloads.get(h['x-timestamp'] as string) ?? ''])
      .then((found) => reply.code(found === 0 ? orderShaped.status : 401).headers(orderShaped.headers).send(orderShaped.body));
  });
  // Filled in below, once the book is seeded: the size of perpsim's bbo reply.
  let bboSizedBody = '';
  hello.get('/bbo-sized', async (_request, reply) => reply.type('application/json; charset=utf-8').send(bboSizedBody));
  const helloUrl = await hello.listen({ host: '127.0.0.1', port: 0 });
  try {
    const clock = (await server.app.inject({ method: 'GET', url: '/sim/clock' })).json<{ timeUs: number }>();
    const baseNs = BigInt(clock.timeUs) * 1000n;
    const goodTilTimeUs = clock.timeUs + GTT_AHEAD_US;
    const wallets = benchWallets();
    const seeder = benchWallet(2 * PAIRS);
    await fundAndRegister(server, [...wallets, seeder]);
    restTopOfBook(server, seeder.address, clock.timeUs);

    const cpu = cpus();
    console.log(`gateway bench${QUICK ? ' (BENCH_QUICK)' : ''}: ${cpu.length} cores (${cpu[0]?.model ?? '?'}), Node ${process.version}, load average ${loadavg()[0]!.toFixed(2)} at start, loopback`);
    console.log(`perpsim ${server.url} (auth on, rate limits off, agents off, virtual clock), fastify hello world ${helloUrl}`);
    console.log(`load: autocannon in a child process, ${CONNECTIONS} connections, pipelining 1; ${PAIRS * 2} accounts on 4 markets`);

    // Verify baseline: one core, a payload the size of the bench's placeOrders.
    const samples = wallets.slice(0, 16).map((w) => ({ ...samplePayload(w, baseNs, goodTilTimeUs), apiKey: w.apiKey }));
    verifyJob = [samples[0]!.apiKey, samples[0]!.signature.toString('hex'), [samples[0]!.message.toString('utf8')]];
    const sigHex = samples.map((s) => s.signature.toString('hex'));
    // node:crypto itself (the gateway's fallback when sodium-native does not load): cached KeyObject, hex decoded per call.
    const nodeRate = verifyRate(samples.length, (i) => verify(null, samples[i]!.message, ed25519PublicKey(samples[i]!.apiKey)!, Buffer.from(sigHex[i]!, 'hex')), VERIFY_MS);
    const sodium = loadSodium();
    let baseline: number;
    if (typeof sodium === 'string') {
      baseline = nodeRate;
      console.log(`verify baseline: sodium-native unavailable (${sodium}); using node:crypto`);
      console.log(`${'Ed25519 verify, node:crypto, 1 core'.padEnd(34)} ${fmt(nodeRate).padStart(9)} verifies/s  (${samples[0]!.message.length}-byte placeOrder payload)`);
    } else {
      const s = sodium.sodium;
      baseline = verifyRate(samples.length, (i) => s.crypto_sign_verify_detached(samples[i]!.signature, samples[i]!.message, samples[i]!.publicKey), VERIFY_MS);
      console.log(`${`Ed25519 verify, sodium-native ${sodium.version}`.padEnd(34)} ${fmt(baseline).padStart(9)} verifies/s  1 core, ${samples[0]!.message.length}-byte placeOrder payload (the baseline)`);
      console.log(`${'Ed25519 verify, node:crypto'.padEnd(34)} ${fmt(nodeRate).padStart(9)} verifies/s  1 core, cached KeyObject (the gateway's fallback; it verifies with sodium-native)`);
    }

    // Hello world: the same body a placeOrder carries, parsed as JSON, answered with a constant.
    const sampleBody = signOrders(wallets, { first: 0, count: 1, baseNs, goodTilTimeUs })[0]!.body;
    const helloSource = (durationS: number, rate?: number, path = '/'): LoadTarget['source'] => ({ kind: 'fixed', method: 'POST', path, headers: { 'content-type': 'application/json' }, body: sampleBody, durationS, ...(rate === undefined ? {} : { rate }) });
    await drive(load, { url: helloUrl, connections: CONNECTIONS, source: helloSource(WARMUP_SECONDS) });
    const helloRun = await drive(load, { url: helloUrl, connections: CONNECTIONS, source: helloSource(SECONDS) });
    const helloRate = perSec(count(helloRun, is2xx), helloRun);
    console.log(line('fastify hello world POST /', helloRate, 'req/s', helloRun));

    // Hello world GET: no body to parse, a constant reply as long as perpsim's bbo reply.
    const bboReply = (await server.app.inject({ method: 'GET', url: '/v1/bbo/BTC-USD' })).body;
    bboSizedBody = JSON.stringify({ hello: 'x'.repeat(Math.max(0, Buffer.byteLength(bboReply) - '{"hello":""}'.length)) });
    const helloGetSource = (durationS: number): LoadTarget['source'] => ({ kind: 'fixed', method: 'GET', path: '/bbo-sized', durationS });
    await drive(load, { url: helloUrl, connections: CONNECTIONS, source: helloGetSource(WARMUP_SECONDS) });
    const helloGetRun = await drive(load, { url: helloUrl, connections: CONNECTIONS, source: helloGetSource(SECONDS) });
    const helloGetRate = perSec(count(helloGetRun, is2xx), helloGetRun);
    console.log(line(`fastify hello world GET (${Buffer.byteLength(bboSizedBody)} B)`, helloGetRate, 'req/s', helloGetRun));

    // GET /v1/bbo/BTC-USD against perpsim.
    const bboSource = (durationS: number): LoadTarget['source'] => ({ kind: 'fixed', method: 'GET', path: '/v1/bbo/BTC-USD', durationS });
    await drive(load, { url: server.url, connections: CONNECTIONS, source: bboSource(WARMUP_SECONDS) });
    const bboRun = await drive(load, { url: server.url, connections: CONNECTIONS, source: bboSource(SECONDS) });
    const bboRate = perSec(count(bboRun, is2xx), bboRun);
    console.log(line('perpsim GET /v1/bbo/BTC-USD', bboRate, 'req/s', bboRun));

    // Signed placeOrder: a warm-up batch sizes the timed batch; each request is sent once.
    const signed = async (first: number, n: number): Promise<Pass> => {
      const reply = await ask(load, { kind: 'sign', options: { first, count: n, baseNs: baseNs.toString(), goodTilTimeUs } });
      if (reply.kind !== 'signed' || reply.count !== n) throw new Error('pre-signing failed');
      return drive(load, { url: server.url, connections: CONNECTIONS, source: { kind: 'signed' } });
    };
    const warm = await signed(0, WARMUP_ORDERS);
    const warmRate = count(warm, (s) => s === 202) / warm.durationS;
    // The warm-up runs partly cold (about 2/3 of the warm rate here): 1.5 × brings the timed
    // pass close to BENCH_SECONDS.
    const orders = Math.max(CONNECTIONS * 10, Math.round(1.5 * warmRate * SECONDS));
    const orderRun = await signed(WARMUP_ORDERS, orders);
    const acked = count(orderRun, (s) => s === 202);
    const orderRate = perSec(acked, orderRun);
    const others = Object.entries(orderRun.statuses).filter(([code]) => code !== '202');
    const otherText = others.length === 0 ? 'none' : others.map(([code, n]) => `${n} × ${code}`).join(', ');
    console.log(line('perpsim signed POST /v1/placeOrder', orderRate, 'orders/s', orderRun, `  (${fmt(acked)} of ${fmt(orders)} ACKed in ${orderRun.durationS.toFixed(2)} s; other answers: ${otherText})`));
    if (acked < 0.99 * orders) throw new Error(`only ${acked} of ${orders} signed orders were ACKed (${otherText}): the bench's setup is broken`);

    // The same load with verification inline on the event loop (verifyThreads 0), for the ratio
    // the worker threads buy on this machine.
    const threadedVerifier = server.state.verifier;
    server.state.verifier = createVerifier({ threads: 0 });
    const inlineRun = await signed(WARMUP_ORDERS + orders, orders);
    server.state.verifier = threadedVerifier;
    const inlineRate = perSec(count(inlineRun, (s) => s === 202), inlineRun);
    console.log(line('  same, verification inline', inlineRate, 'orders/s', inlineRun, `  (worker threads: ${threadedVerifier?.threads ?? 0}; threaded / inline ${(orderRate / inlineRate).toFixed(2)} x)`));

    // Hello world again, paced at the signed orders' rate: a loop woken for fewer requests a
    // second reads and writes fewer at a time, so part of the gap between the two figures above
    // is the rate, not the route (docs/decisions.md "Event-loop cost per signed order").
    const pacedRun = await drive(load, { url: helloUrl, connections: CONNECTIONS, source: helloSource(SECONDS, orderRate) });
    console.log(line(`fastify hello world POST / at ${fmt(orderRate)}/s`, perSec(count(pacedRun, is2xx), pacedRun), 'req/s', pacedRun));
    const pacedRatio = perRequest(orderRun.mainThreadCpuUs, orderRun) / perRequest(pacedRun.mainThreadCpuUs, pacedRun);
    await drive(load, { url: helloUrl, connections: CONNECTIONS, source: helloSource(WARMUP_SECONDS, orderRate, '/verified') });
    const verifiedRun = await drive(load, { url: helloUrl, connections: CONNECTIONS, source: helloSource(SECONDS, orderRate, '/verified') });
    console.log(line(`  the same, verified on a thread`, perSec(count(verifiedRun, is2xx), verifiedRun), 'req/s', verifiedRun));
    if (count(verifiedRun, is2xx) < verifiedRun.responses) throw new Error('the verified hello world did not verify: the bench\'s setup is broken');

    // The exact floor: the inline pass's requests (still held by the load generator) sent again,
    // to the order-shaped hello world, at the signed orders' rate. Its reply: the next order of
    // the plan, placed through perpsim (status, body bytes, and the headers perpsim adds).
    const nextIndex = WARMUP_ORDERS + 2 * orders;
    const next = signOrders(wallets, { first: nextIndex, count: 1, baseNs, goodTilTimeUs })[0]!;
    const sampleReply = await server.app.inject({ method: 'POST', url: next.path, headers: next.headers, payload: next.body });
    if (sampleReply.statusCode !== 202) throw new Error(`the sample placeOrder answered ${sampleReply.statusCode} ${sampleReply.body}`);
    orderShaped.status = sampleReply.statusCode;
    orderShaped.body = sampleReply.body;
    for (const [name, value] of Object.entries(sampleReply.headers)) {
      if (!['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name) && typeof value === 'string') orderShaped.headers[name] = value;
    }
    orderShaped.payloads = orderPayloads(wallets, { first: WARMUP_ORDERS + orders, count: orders, baseNs, goodTilTimeUs });
    for (const [ts, payload] of orderPayloads(wallets, { first: nextIndex, count: 1, baseNs, goodTilTimeUs })) orderShaped.payloads.set(ts, payload);
    await drive(load, { url: helloUrl, connections: CONNECTIONS, source: { kind: 'fixed', method: 'POST', path: next.path, headers: next.headers, body: next.body, durationS: WARMUP_SECONDS, rate: orderRate } });
    const exactRun = await drive(load, { url: helloUrl, connections: CONNECTIONS, source: { kind: 'signed', rate: orderRate } });
    console.log(line(`  the same requests, verified, placeOrder's reply`, perSec(count(exactRun, is2xx), exactRun), 'req/s', exactRun, `  (${Buffer.byteLength(orderShaped.body)}-byte reply)`));
    if (count(exactRun, is2xx) < exactRun.responses) throw new Error(`the order-shaped hello world did not verify every request (${JSON.stringify(exactRun.statuses)}): the bench's setup is broken`);

    const signedRatio = orderRate / baseline;
    const bboRatio = bboRate / helloRate;
    const bboGetRatio = bboRate / helloGetRate;
    const verdict = (ratio: number, target: number): string => (ratio >= target ? 'met' : 'NOT met');
    console.log(`target signed orders/s >= ${TARGET_SIGNED_VS_VERIFY.toFixed(1)} x single-core verify: ${signedRatio.toFixed(2)} x (${fmt(orderRate)} / ${fmt(baseline)}): ${verdict(signedRatio, TARGET_SIGNED_VS_VERIFY)}`);
    console.log(`target GET /v1/bbo >= ${TARGET_BBO_VS_HELLO.toFixed(1)} x hello world POST:     ${bboRatio.toFixed(2)} x (${fmt(bboRate)} / ${fmt(helloRate)}): ${verdict(bboRatio, TARGET_BBO_VS_HELLO)}`);
    console.log(`target GET /v1/bbo >= ${TARGET_BBO_VS_HELLO.toFixed(1)} x hello world GET (same size): ${bboGetRatio.toFixed(2)} x (${fmt(bboRate)} / ${fmt(helloGetRate)}): ${verdict(bboGetRatio, TARGET_BBO_VS_HELLO)}`);
    const mainCpuRatio = perRequest(orderRun.mainThreadCpuUs, orderRun) / perRequest(helloRun.mainThreadCpuUs, helloRun);
    console.log(`target event-loop CPU per signed order <= ${TARGET_MAIN_CPU_VS_HELLO.toFixed(1)} x hello world POST's per request: ${mainCpuRatio.toFixed(2)} x (${perRequest(orderRun.mainThreadCpuUs, orderRun)} / ${perRequest(helloRun.mainThreadCpuUs, helloRun)} µs): ${mainCpuRatio <= TARGET_MAIN_CPU_VS_HELLO ? 'met' : 'NOT met'}`);
    console.log(`(the same against hello world paced at the signed orders' rate: ${pacedRatio.toFixed(2)} x (${perRequest(orderRun.mainThreadCpuUs, orderRun)} / ${perRequest(pacedRun.mainThreadCpuUs, pacedRun)} µs))`);
    const orderUs = perRequest(orderRun.mainThreadCpuUs, orderRun);
    const exactUs = perRequest(exactRun.mainThreadCpuUs, exactRun);
    const helloUs = perRequest(helloRun.mainThreadCpuUs, helloRun);
    console.log(`(the exact floor, the order pass's own requests verified and answered with placeOrder's reply: ${exactUs} µs; the order path's own work above it ${orderUs - exactUs} µs, the target leaves ${Math.round(TARGET_MAIN_CPU_VS_HELLO * helloUs) - exactUs} µs)`);
    console.log(`(signed orders / hello world: ${(orderRate / helloRate).toFixed(2)} x; run took ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    console.log(
      JSON.stringify({
        bench: 'gateway',
        signedOrdersPerSec: orderRate,
        verifyBaselinePerSec: baseline,
        bboReadsPerSec: bboRate,
        helloWorldPerSec: helloRate,
        helloWorldGetPerSec: helloGetRate,
        helloWorldGetReplyBytes: Buffer.byteLength(bboSizedBody),
        bboReplyBytes: Buffer.byteLength(bboReply),
        p99Ms: Math.round(orderRun.p99Ms * 100) / 100,
        inlineVerifySignedOrdersPerSec: inlineRate,
        // CPU per request (bench/thread-cpu.ts), for docs/decisions.md "Event-loop cost per signed order".
        mainThreadCpuUsPerOrder: perRequest(orderRun.mainThreadCpuUs, orderRun),
        serverCpuUsPerOrder: perRequest(orderRun.serverCpuUs, orderRun),
        loadGeneratorCpuUsPerOrder: perRequest(orderRun.loadCpuUs, orderRun),
        helloWorldMainThreadCpuUsPerReq: perRequest(helloRun.mainThreadCpuUs, helloRun),
        helloWorldLoadGeneratorCpuUsPerReq: perRequest(helloRun.loadCpuUs, helloRun),
        mainThreadCpuVsHelloWorld: Math.round(mainCpuRatio * 100) / 100,
        bboMainThreadCpuUsPerReq: perRequest(bboRun.mainThreadCpuUs, bboRun),
        helloWorldAtOrderRateMainThreadCpuUsPerReq: perRequest(pacedRun.mainThreadCpuUs, pacedRun),
        mainThreadCpuVsHelloWorldAtOrderRate: Math.round(pacedRatio * 100) / 100,
        helloWorldVerifiedAtOrderRateMainThreadCpuUsPerReq: perRequest(verifiedRun.mainThreadCpuUs, verifiedRun),
        // The exact floor: the order pass's requests, verified, answered with placeOrder's reply.
        orderShapedHelloWorldMainThreadCpuUsPerReq: exactUs,
        orderShapedHelloWorldPerSec: perSec(count(exactRun, is2xx), exactRun),
        orderShapedHelloWorldP99Ms: Math.round(exactRun.p99Ms * 100) / 100,
        placeOrderReplyBytes: Buffer.byteLength(orderShaped.body),
        mainThreadCpuOverOrderShapedUsPerOrder: orderUs - exactUs,
        mainThreadCpuVsOrderShapedHelloWorld: Math.round((orderUs / exactUs) * 100) / 100,
      }),
    );
  } finally {
    await stopLoad(load);
    await hello.close();
    await server.close();
  }
}

await main();
