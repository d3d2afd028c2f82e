/**
 * A view's lifetime: its WebSocket subscriptions and timers, all undone when the user leaves it.
 * A view is a function that renders into its root and registers what to undo in the scope.
 */
import type { ChannelFrame, ChannelName, SubscribeRequest, Subscription } from '../../client/index.ts';
import type { Console } from './context.ts';

export class Scope {
  private readonly subs: Promise<Subscription | undefined>[] = [];
  private readonly timers: number[] = [];
  private readonly cleanups: (() => void)[] = [];
  disposed = false;

  constructor(
    readonly ctx: Console,
    private readonly onError: (message: string) => void,
  ) {}

  /** Subscribes; frames stop reaching `handler` once the view is left. */
  subscribe<C extends ChannelName>(request: SubscribeRequest<C>, handler: (frame: ChannelFrame<C>) => void): Promise<Subscription<C> | undefined> {
    const sub = this.ctx.client.ws
      .subscribe(request, (frame) => {
        // Some channels answer `subscribed` without contents (oraclePrices: no snapshot).
        if (!this.disposed && frame.contents !== undefined) handler(frame);
      })
      .then(
        (s) => {
          if (this.disposed) void s.unsubscribe().catch(() => undefined);
          return s;
        },
        (error: unknown) => {
          if (!this.disposed) this.onError(`subscribe ${request.channel}${request.id === undefined ? '' : ` ${request.id}`}: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        },
      );
    this.subs.push(sub as Promise<Subscription | undefined>);
    return sub;
  }

  /** Runs `task` now and every `ms` while the view is shown (never two at once). */
  every(ms: number, task: () => Promise<void> | void): void {
    let running = false;
    const run = (): void => {
      if (running || this.disposed) return;
      running = true;
      Promise.resolve()
        .then(task)
        .catch((error: unknown) => this.onError(error instanceof Error ? error.message : String(error)))
        .finally(() => {
          running = false;
        });
    };
    run();
    this.timers.push(window.setInterval(run, ms));
  }

  onDispose(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.timers) window.clearInterval(timer);
    for (const cleanup of this.cleanups) cleanup();
    for (const sub of this.subs) void sub.then((s) => s?.unsubscribe()).catch(() => undefined);
  }
}

export type View = (scope: Scope, root: HTMLElement, param: string | undefined) => void | Promise<void>;

/** A channel's snapshot contents (`isSnapshot: true`), or undefined for an update. */
export function snapshotOf<S>(contents: unknown): S | undefined {
  return contents !== null && typeof contents === 'object' && (contents as { isSnapshot?: unknown }).isSnapshot === true ? (contents as S) : undefined;
}
