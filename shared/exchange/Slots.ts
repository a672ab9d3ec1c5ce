/**
 * A counting semaphore with a FIFO wait list: caps how many handlers of one session run at once.
 * Waiters are bounded by the queue's admission rule (each waiting request holds a reservation),
 * so the wait list cannot grow without limit.
 */
export class Slots {
  #free: number;
  #waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    this.#free = size;
  }

  get running(): number {
    return this.size - this.#free;
  }

  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    if (this.#free === this.size) throw new Error(`Slots.release() called with no slot held (size ${this.size})`);
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
