import { describe, expect, it } from "vitest";
import { decidePoll } from "./decidePoll.ts";

const t0 = new Date("2026-11-22T10:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

describe("decidePoll", () => {
  it("first poll and polls after the interval pass", () => {
    expect(decidePoll(null, 5, t0)).toEqual({ ok: true });
    expect(decidePoll(t0, 5, at(5000))).toEqual({ ok: true });
    expect(decidePoll(t0, 5, at(4600))).toEqual({ ok: true }); // within the jitter tolerance
  });
  it("too fast → slow_down with the seconds left", () => {
    expect(decidePoll(t0, 5, at(100))).toEqual({ ok: false, retryAfterSeconds: 5 });
    expect(decidePoll(t0, 5, at(3000))).toEqual({ ok: false, retryAfterSeconds: 2 });
    expect(decidePoll(t0, 5, at(4400))).toEqual({ ok: false, retryAfterSeconds: 1 });
  });
  it("interval 0 never limits", () => expect(decidePoll(t0, 0, t0)).toEqual({ ok: true }));
  it("a negative interval never limits; a poll exactly at the tolerance edge passes", () => {
    expect(decidePoll(t0, -1, t0)).toEqual({ ok: true });
    expect(decidePoll(t0, 0, at(-2000))).toEqual({ ok: true }); // even when the clocks disagree
    expect(decidePoll(t0, 5, at(4500))).toEqual({ ok: true });
    expect(decidePoll(t0, 5, at(4499))).toEqual({ ok: false, retryAfterSeconds: 1 });
  });
});
