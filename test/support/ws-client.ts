/**
 * A test client for perpsim's WebSocket: collects every frame and waits for the one a test
 * expects. Sockets are registered in `sockets` so an afterEach can close them.
 */
import WebSocket from 'ws';

export type Frame = Record<string, unknown>;

export interface Client {
  frames: Frame[];
  send(frame: unknown): void;
  /** The first frame (already received or still to come) that matches. */
  next(match: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  /** Frames of type channel_data on `channel`, in arrival order. */
  data(channel: string): Frame[];
}

export async function connectClient(baseUrl: string, sockets: WebSocket[]): Promise<Client> {
  const ws = new WebSocket(baseUrl.replace('http', 'ws') + '/v1/ws');
  sockets.push(ws);
  const frames: Frame[] = [];
  const waiters: { match: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  ws.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as Frame;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (!w.match(frame)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(frame);
    }
  });
  await new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
  });
  return {
    frames,
    send: (frame) => ws.send(JSON.stringify(frame)),
    next: (match, timeoutMs = 2000) =>
      new Promise((resolve, reject) => {
        const seen = frames.find(match);
        if (seen !== undefined) return resolve(seen);
        waiters.push({ match, resolve });
        setTimeout(() => reject(new Error('no matching frame')), timeoutMs).unref();
      }),
    data: (channel) => frames.filter((f) => f.type === 'channel_data' && f.channel === channel),
  };
}
