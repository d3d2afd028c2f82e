/**
 * The control API's state images: `POST /sim/reset`, `POST /sim/snapshot {name}`,
 * `POST /sim/restore {name}` (viem's test actions reset / snapshot / revert).
 *
 * - reset: back to the configured initial state — the engine, read models, keys, nonces and
 *   pools as right after start-up, before seeding — then the configured oracle prices and the
 *   liquidity agents start again from the same seed.
 * - snapshot: saves the whole durable state under a name (in the SQLite file with --db, in
 *   memory with --memory, at most MAX_MEMORY_IMAGES names there: a new name past it is 409);
 *   a later snapshot of the same name replaces it.
 * - restore: the state becomes that image (404 for an unknown name); the simulated market
 *   restarts on it. With --db both reset and restore are journal records, so a restart
 *   recovers through them.
 * The clock is not part of an image: time never goes back. WebSocket subscribers should
 * subscribe again after a reset or restore (their snapshots came from the state before).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { MAX_MEMORY_IMAGES, type Persistence } from '../gateway/persistence/index.ts';

const NAME = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' });

export interface StateControlOptions {
  persistence: Persistence;
  /** Returns the state to the initial image and seeds it again. */
  reset(): void;
  /** Called after an image was restored. */
  restored(): void;
}

export function registerStateControl(app: FastifyInstance, options: StateControlOptions): void {
  const { persistence } = options;
  // Registered as a plugin so the OpenAPI document (registered before) lists them.
  void app.register(async (sim) => {
    sim.post('/sim/reset', {
      // No body schema: the route takes none, and fastify would refuse an absent body against one.
      schema: { description: 'Back to the configured initial state (same seed). Takes no body.' },
    }, async () => {
      options.reset();
      return { status: 'reset' };
    });

    sim.post('/sim/snapshot', {
      schema: { description: 'Saves the whole state under a name.', body: Type.Object({ name: NAME }, { additionalProperties: false }) },
    }, async (req, reply) => {
      const { name } = req.body as { name: string };
      if (!persistence.saveImage(name)) {
        return reply.code(409).send({ error: `too many snapshots: ${MAX_MEMORY_IMAGES} names are kept in memory; save under a name already used, or run with --db` });
      }
      return { name, status: 'saved' };
    });

    sim.post('/sim/restore', {
      schema: { description: 'Replaces the state by a saved image.', body: Type.Object({ name: NAME }, { additionalProperties: false }) },
    }, async (req, reply) => {
      const { name } = req.body as { name: string };
      if (!persistence.restoreImage(name)) return reply.code(404).send({ error: `no snapshot named ${name}` });
      options.restored();
      return { name, status: 'restored' };
    });
  });
}
