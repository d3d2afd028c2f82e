/** Bench settings from the environment: positive integers, `_` allowed as a digit separator. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw.replaceAll('_', ''));
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return v;
}
