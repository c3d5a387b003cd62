import type { ServerResponse } from "node:http";

/** What a feed cursor needs from the HTTP connection its rows go to. */
export interface FeedConnection {
  /** True when the socket's write buffer is below its high-water mark. */
  hasRoom(): boolean;
  /** Calls `listener` whenever there may be room again (drain, or the stream connecting); returns an unsubscribe. */
  onRoom(listener: () => void): () => void;
  /** Closes the connection (the subscriber overflowed its buffer). */
  drop(): void;
}

/** The connection of one streaming response. */
export function responseConnection(res: ServerResponse): FeedConnection {
  return {
    hasRoom: () => !res.destroyed && !res.writableEnded && !res.writableNeedDrain,
    onRoom(listener) {
      res.on("drain", listener);
      return () => void res.off("drain", listener);
    },
    drop: () => void res.destroy(),
  };
}

/**
 * graphql-sse single-connection mode: operations are POSTed separately from the event stream they write to; both
 * carry the stream token. The stream handler registers each connected stream here so that an operation's cursor can
 * follow the room of the socket its rows are written to, even when the operation arrives before the stream connects.
 */
export class StreamRegistry {
  private readonly streams = new Map<string, ServerResponse>();
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Registers the connected stream of `token` until it closes. */
  attach(token: string, res: ServerResponse): void {
    this.streams.set(token, res);
    const fire = () => this.fire(token);
    res.on("drain", fire);
    res.once("close", () => {
      res.off("drain", fire);
      if (this.streams.get(token) === res) this.streams.delete(token);
    });
    fire();
  }

  get size(): number {
    return this.streams.size;
  }

  connection(token: string): FeedConnection {
    return {
      hasRoom: () => {
        const res = this.streams.get(token);
        return !!res && !res.destroyed && !res.writableEnded && !res.writableNeedDrain;
      },
      onRoom: (listener) => {
        let set = this.listeners.get(token);
        if (!set) this.listeners.set(token, (set = new Set()));
        set.add(listener);
        return () => {
          set.delete(listener);
          if (set.size === 0 && this.listeners.get(token) === set) this.listeners.delete(token);
        };
      },
      drop: () => void this.streams.get(token)?.destroy(),
    };
  }

  private fire(token: string): void {
    for (const listener of [...(this.listeners.get(token) ?? [])]) listener();
  }
}
