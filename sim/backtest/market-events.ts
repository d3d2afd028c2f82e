/**
 * The market-data events a backtest replays (oracle prices, trades, book snapshots and deltas),
 * in ticks and quantums: what the JSON-lines scanner (line-scanner.ts) and the binary format
 * (binary-format.ts) both produce. A leaf: the two import it, not each other's types.
 */
export interface OracleEvent { type: 'oracle'; ts: number; lts: number; marketId: number; price: number }
export interface TradeEvent { type: 'trade'; ts: number; lts: number; marketId: number; side: 0 | 1; price: number; size: number }
export interface BookEvent { type: 'book'; ts: number; lts: number; marketId: number; snapshot: boolean; bids: number[]; asks: number[] }
