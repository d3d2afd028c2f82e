/**
 * The simulator's clock: one source of time for the engine and every timer.
 *
 * Modes: `realtime` follows the wall clock; `accelerated` runs `speed` times faster from where
 * it was when the mode was set; `virtual` moves only when told (`advance`). Time is unix
 * microseconds and never goes back.
 */
export type ClockMode = 'realtime' | 'accelerated' | 'virtual';

export interface SimClock {
  mode: ClockMode;
  speed: number;
  /** Simulated µs at the moment of the last mode change, and the wall µs then. */
  anchorSim: number;
  anchorWall: number;
  /** The virtual clock's current value. */
  virtual: number;
  /** The last value handed out: time never goes back. */
  last: number;
}

export function wallMicros(): number {
  return Math.floor(performance.timeOrigin * 1000 + performance.now() * 1000);
}

export function createClock(mode: ClockMode, start: number = wallMicros(), speed = 1): SimClock {
  return { mode, speed, anchorSim: start, anchorWall: wallMicros(), virtual: start, last: start };
}

export function nowMicros(clock: SimClock): number {
  let t: number;
  switch (clock.mode) {
    case 'realtime':
      t = clock.anchorSim + (wallMicros() - clock.anchorWall);
      break;
    case 'accelerated':
      t = clock.anchorSim + Math.floor((wallMicros() - clock.anchorWall) * clock.speed);
      break;
    case 'virtual':
      t = clock.virtual;
      break;
  }
  if (t > clock.last) clock.last = t;
  return clock.last;
}

/** Moves a virtual clock forward (other modes: shifts their anchor, i.e. jumps ahead). */
export function advance(clock: SimClock, micros: number): number {
  if (clock.mode === 'virtual') clock.virtual = Math.max(clock.virtual, clock.last) + micros;
  else clock.anchorSim += micros;
  return nowMicros(clock);
}

export function setMode(clock: SimClock, mode: ClockMode, speed = 1): void {
  const now = nowMicros(clock);
  clock.mode = mode;
  clock.speed = speed;
  clock.anchorSim = now;
  clock.anchorWall = wallMicros();
  clock.virtual = now;
}
