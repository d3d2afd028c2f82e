/**
 * Lockstep virtual time (`perpsim serve --clock virtual --lockstep <stepMs>`): the clock moves
 * one step only once every joined participant has acknowledged the current step, so a bot
 * written for the venue can be backtested over REST/WS without changes to its trading code —
 * only a small driver around it joins and acknowledges.
 *
 * Protocol (under /sim, so loopback or control token; docs/decisions.md "Lockstep virtual time"):
 * - POST /sim/lockstep/join {name?} → {participantId, step, timeUs, stepMs}
 * - POST /sim/lockstep/ack {participantId, step} → {step, timeUs, advanced}: the participant is
 *   done with `step` (it must be the current step: 409 otherwise). When the last participant
 *   acknowledges, the clock advances `stepMs`, timers fire, the simulated market (feeds and
 *   agents) catches up, WebSocket frames go out, and `step` increments.
 * - POST /sim/lockstep/leave {participantId}: a participant that leaves no longer holds the
 *   clock (if it was the last one waited for, the step completes).
 * - GET /sim/lockstep → {step, timeUs, stepMs, participants: [{participantId, name, ackedStep}], waitingFor}
 * With no participant the clock stands still.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Exchange } from '../../gateway/read-models/exchange.ts';
import { advance, nowMicros, type SimClock } from '../clock.ts';

export interface LockstepOptions {
  exchange: Exchange;
  clock: SimClock;
  stepMs: number;
  /** Moves the simulated market to the new time (sim/market.ts startMarket). */
  market?: ((now: number) => void) | undefined;
}

interface Participant {
  participantId: string;
  name: string;
  /** The last step acknowledged, -1 before the first. */
  ackedStep: number;
}

export function registerLockstep(app: FastifyInstance, options: LockstepOptions): void {
  const { exchange, clock, stepMs } = options;
  const participants = new Map<string, Participant>();
  let step = 0;
  let joined = 0;

  const waitingFor = (): string[] => [...participants.values()].filter((p) => p.ackedStep < step).map((p) => p.participantId);
  const state = (): Record<string, unknown> => ({ step, timeUs: nowMicros(clock), stepMs, participants: [...participants.values()], waitingFor: waitingFor() });

  /** Completes the step when nobody is waited for; answers whether it did. */
  const maybeAdvance = (): boolean => {
    if (participants.size === 0 || waitingFor().length > 0) return false;
    const now = advance(clock, stepMs * 1000);
    exchange.submit({ type: 'advanceTime' });
    options.market?.(now);
    step++;
    return true;
  };

  void app.register(async (sim) => {
    sim.get('/sim/lockstep', async () => state());

    sim.post('/sim/lockstep/join', { schema: { body: Type.Optional(Type.Object({ name: Type.Optional(Type.String({ maxLength: 64 })) })) } }, async (req) => {
      const participantId = `p${++joined}`;
      const name = (req.body as { name?: string } | undefined)?.name ?? participantId;
      // A newcomer joins the step in progress: it must acknowledge it before the clock moves.
      participants.set(participantId, { participantId, name, ackedStep: step - 1 });
      return { participantId, step, timeUs: nowMicros(clock), stepMs };
    });

    sim.post('/sim/lockstep/ack', { schema: { body: Type.Object({ participantId: Type.String({ maxLength: 64 }), step: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) }) } }, async (req, reply) => {
      const body = req.body as { participantId: string; step: number };
      const participant = participants.get(body.participantId);
      if (participant === undefined) return reply.code(404).send({ error: `unknown participant ${body.participantId}` });
      if (body.step !== step) return reply.code(409).send({ error: `step ${body.step} is not the current step ${step}`, step });
      participant.ackedStep = step;
      const advanced = maybeAdvance();
      return { step, timeUs: nowMicros(clock), advanced };
    });

    sim.post('/sim/lockstep/leave', { schema: { body: Type.Object({ participantId: Type.String({ maxLength: 64 }) }) } }, async (req, reply) => {
      const { participantId } = req.body as { participantId: string };
      if (!participants.delete(participantId)) return reply.code(404).send({ error: `unknown participant ${participantId}` });
      const advanced = maybeAdvance();
      return { step, timeUs: nowMicros(clock), advanced };
    });
  });
}
