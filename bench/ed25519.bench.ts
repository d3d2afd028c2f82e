/**
 * Ed25519 verification, in the same run, on the same signatures: node:crypto itself with the
 * gateway's cached KeyObjects (`ed25519PublicKey`, hex decoding included), @noble/ed25519's
 * synchronous verify (SHA-512 from node:crypto), and — when sodium-native loads — the gateway's
 * `verifyEd25519`, which then verifies with libsodium (`gateway/auth/ed25519.ts`), so that figure
 * is labelled sodium.
 *
 * Workload: 64 API keys, each signing Scheme 1 placeOrder payloads (about 190 bytes, the
 * gateway's common case); BENCH_OPS verifications per library (default 20,000), round-robin
 * over the keys so the KeyObject cache is warm, as it is for a gateway serving a few bots.
 * Every verification must succeed; a mismatch aborts the run. A warm-up pass precedes each
 * timed pass. Ends with one JSON line:
 * {"bench":"ed25519","nodeCryptoVerifiesPerSec":…,"nobleVerifiesPerSec":…,"sodiumVerifiesPerSec":…,
 * "gatewayBackend":"sodium-native"}; without sodium-native, sodiumVerifiesPerSec is absent and
 * gatewayBackend is "node:crypto".
 */
import { createHash, verify } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { SIGNED_OPS } from '../engine/spec.ts';
import { clearEd25519KeyCache, ED25519_BACKEND, ed25519PublicKey, verifyEd25519 } from '../gateway/auth/ed25519.ts';
import { hexToBytes } from '../gateway/auth/hex.ts';
import { scheme1Payload } from '../gateway/auth/scheme1.ts';
import { envInt } from './env.ts';

ed.hashes.sha512 = (message) => new Uint8Array(createHash('sha512').update(message).digest());


const OPS = envInt('BENCH_OPS', 20_000);
const KEYS = 64;
const SIGNATURES_PER_KEY = 4;

interface Sample {
  keyHex: string;
  keyBytes: Uint8Array;
  message: Uint8Array;
  messageText: string;
  signatureHex: string;
  signatureBytes: Uint8Array;
}

function samples(): Sample[] {
  const out: Sample[] = [];
  for (let k = 0; k < KEYS; k++) {
    const secret = new Uint8Array(32).fill(k + 1);
    const keyBytes = ed.getPublicKey(secret);
    const keyHex = Buffer.from(keyBytes).toString('hex');
    for (let i = 0; i < SIGNATURES_PER_KEY; i++) {
      const messageText = scheme1Payload(SIGNED_OPS.placeOrder, {
        address: `0x${(k + 1).toString(16).padStart(40, '0')}`,
        accountIndex: k % 10,
        clientId: `bench-${k}-${i}`,
        clientTimeNs: 1_700_000_000_000_000_000n + BigInt(i),
        goodTilTimeNs: 1_703_456_000_000_000_000n,
        marketId: 1 + (i % 3),
        priceTicks: 1_000_000 + i,
        sizeQuantums: 150_000,
        reduceOnly: false,
        side: (i % 2) as 0 | 1,
        timeInForce: 0,
      });
      const message = new TextEncoder().encode(messageText);
      const signatureBytes = ed.sign(message, secret);
      out.push({ keyHex, keyBytes, message, messageText, signatureHex: Buffer.from(signatureBytes).toString('hex'), signatureBytes });
    }
  }
  return out;
}

function time(label: string, verifyOne: (s: Sample) => boolean, set: Sample[]): number {
  const pass = (n: number): void => {
    for (let i = 0; i < n; i++) {
      if (!verifyOne(set[i % set.length]!)) throw new Error(`${label}: a valid signature failed to verify`);
    }
  };
  pass(Math.min(OPS, 2_000));
  const t = performance.now();
  pass(OPS);
  return Math.round(OPS / ((performance.now() - t) / 1000));
}

const set = samples();
clearEd25519KeyCache();
// The gateway verifies the hex it received; the cost of decoding it is part of each path.
const node = time('node:crypto', (s) => verify(null, s.message, ed25519PublicKey(s.keyHex)!, hexToBytes(s.signatureHex)!), set);
// noble is given bytes (its best case), and ZIP-215 off to match RFC 8032 as OpenSSL does.
const noble = time('@noble/ed25519', (s) => ed.verify(s.signatureBytes, s.message, s.keyBytes, { zip215: false }), set);
// verifyEd25519 is libsodium only when it loaded; otherwise it is the node:crypto path above.
const sodium = ED25519_BACKEND === 'sodium-native' ? time('sodium-native', (s) => verifyEd25519(s.keyHex, s.message, s.signatureHex), set) : undefined;
console.log(`node:crypto (cached KeyObject)          ${node.toLocaleString('en-US').padStart(10)} verifies/s`);
console.log(`@noble/ed25519 (sync)                   ${noble.toLocaleString('en-US').padStart(10)} verifies/s  (node:crypto ${(node / noble).toFixed(1)}x)`);
if (sodium === undefined) console.log('sodium-native: not loaded; the gateway verifies with node:crypto');
else console.log(`sodium-native (gateway's verifyEd25519) ${sodium.toLocaleString('en-US').padStart(10)} verifies/s  (${(sodium / node).toFixed(2)}x node:crypto)`);
console.log(JSON.stringify({ bench: 'ed25519', nodeCryptoVerifiesPerSec: node, nobleVerifiesPerSec: noble, ...(sodium !== undefined && { sodiumVerifiesPerSec: sodium }), gatewayBackend: ED25519_BACKEND }));
