/**
 * A trade's notional in quote quantums, exact: price (ticks) · size (quantums) · valueMul. The
 * tick·quantum product is taken in doubles when it is a safe integer (a rounded product at or
 * past 2^53 is never taken for a safe one, so this is exact), which makes two bigints instead
 * of four: the read models and services compute it for every trade pair and fill.
 */
export function tradeNotional(price: number, size: number, valueMul: bigint): bigint {
  const product = price * size;
  return Number.isSafeInteger(product) ? BigInt(product) * valueMul : BigInt(price) * BigInt(size) * valueMul;
}

/** The notional of all the pairs of a trades event (its `entries`), quote quantums. */
export function tradesNotional(entries: readonly { price: number; size: number }[], valueMul: bigint): bigint {
  let sum = 0n;
  for (let i = 0; i < entries.length; i++) sum += tradeNotional(entries[i]!.price, entries[i]!.size, valueMul);
  return sum;
}
