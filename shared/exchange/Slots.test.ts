import { describe, it, expect } from "vitest";
import { Slots } from "./Slots.ts";

/** Lets every pending promise callback run. */
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("Slots", () => {
  it("grants up to `size` slots at once and makes the rest wait", async () => {
    const slots = new Slots(2);
    const granted: number[] = [];
    for (let i = 0; i < 4; i++) void slots.acquire().then(() => granted.push(i));
    await flush();
    expect(granted).toEqual([0, 1]);
    expect(slots.running).toBe(2);
  });

  it("hands a released slot to the oldest waiter, first in first out", async () => {
    const slots = new Slots(1);
    const granted: number[] = [];
    await slots.acquire();
    for (let i = 1; i <= 3; i++) void slots.acquire().then(() => granted.push(i));
    await flush();
    expect(granted).toEqual([]);
    slots.release();
    await flush();
    expect(granted).toEqual([1]);
    slots.release();
    slots.release();
    await flush();
    expect(granted).toEqual([1, 2, 3]);
    expect(slots.running).toBe(1);
  });

  it("frees the slot when nobody is waiting", async () => {
    const slots = new Slots(1);
    await slots.acquire();
    expect(slots.running).toBe(1);
    slots.release();
    expect(slots.running).toBe(0);
    await slots.acquire();
    expect(slots.running).toBe(1);
  });

  it("never runs more than `size` tasks under load", async () => {
    const slots = new Slots(3);
    let running = 0;
    let peak = 0;
    const task = async () => {
      await slots.acquire();
      running++;
      peak = Math.max(peak, running);
      await flush();
      running--;
      slots.release();
    };
    await Promise.all(Array.from({ length: 20 }, task));
    expect(peak).toBe(3);
    expect(slots.running).toBe(0);
  });

  it("fails loudly when released more often than acquired", async () => {
    const slots = new Slots(2);
    await slots.acquire();
    slots.release();
    expect(() => slots.release()).toThrow(/no slot held/);
    expect(slots.running).toBe(0);
  });
});
