import { describe, expect, it } from "vitest";
import type { EventRecord } from "../services/types.ts";
import { createSubscriberSet, type HubSubscriber } from "./createSubscriberSet.ts";
import type { FeedCloseReason, FeedKind } from "./types.ts";

const page = [{ id: 7n }, { id: 8n }] as unknown as readonly EventRecord[];

function recorder(kind: FeedKind, onRows?: (rows: readonly EventRecord[]) => void) {
  const pages: (readonly EventRecord[])[] = [];
  const closed: FeedCloseReason[] = [];
  const subscriber: HubSubscriber = {
    kind,
    onRows(rows) {
      pages.push(rows);
      onRows?.(rows);
    },
    onClose: (reason) => closed.push(reason),
  };
  return { subscriber, pages, closed };
}

describe("createSubscriberSet", () => {
  it("hands the same page array to every subscriber; one that throws is reported and the others still get it", () => {
    const errors: unknown[] = [];
    const set = createSubscriberSet((error) => errors.push(error));
    const a = recorder("sse");
    const failing = recorder("graphql", () => {
      throw new Error("boom");
    });
    const b = recorder("graphql");
    set.add(a.subscriber);
    set.add(failing.subscriber);
    set.add(b.subscriber);
    set.push(page);
    expect(a.pages).toEqual([page]);
    expect(a.pages[0]).toBe(page);
    expect(b.pages[0]).toBe(page);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe("boom");
  });

  it("pushes to the subscribers present when the push starts, and removal is idempotent", () => {
    const set = createSubscriberSet(() => {});
    const late = recorder("sse");
    let removeLate = () => {};
    const first = recorder("sse", () => (removeLate = set.add(late.subscriber)));
    const removeFirst = set.add(first.subscriber);
    set.push(page);
    expect(late.pages).toEqual([]);
    expect(set.count()).toBe(2);
    removeFirst();
    removeFirst();
    removeLate();
    expect(set.count()).toBe(0);
    set.push(page);
    expect(first.pages).toHaveLength(1);
    expect(late.pages).toHaveLength(0);
  });

  it("counts subscriptions and drops per surface; dropped() is a copy", () => {
    const set = createSubscriberSet(() => {});
    set.add(recorder("sse").subscriber);
    set.add(recorder("graphql").subscriber);
    set.add(recorder("graphql").subscriber);
    expect(set.count()).toBe(3);
    expect(set.count("graphql")).toBe(2);
    expect(set.countByKind()).toEqual({ sse: 1, graphql: 2 });
    set.recordDrop("sse");
    const dropped = set.dropped();
    dropped.sse = 99;
    expect(set.dropped()).toEqual({ sse: 1, graphql: 0 });
  });

  it("closeAll closes every subscriber with the reason and forgets them", () => {
    const set = createSubscriberSet(() => {});
    const a = recorder("sse");
    const b = recorder("graphql");
    set.add(a.subscriber);
    set.add(b.subscriber);
    set.closeAll("server_stop");
    expect(a.closed).toEqual(["server_stop"]);
    expect(b.closed).toEqual(["server_stop"]);
    expect(set.count()).toBe(0);
    set.push(page);
    expect(a.pages).toEqual([]);
  });
});
