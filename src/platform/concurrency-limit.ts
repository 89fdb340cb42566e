/**
 * At most `running` tasks at once and at most `waiting` more in line (first come, first served);
 * a task beyond that is refused at once with the error `full()` makes, instead of waiting behind
 * an unbounded queue. For work that is expensive on purpose (password hashing).
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly line: Array<() => void> = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
    private readonly full: () => Error,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.running) {
      this.active++;
    } else {
      if (this.line.length >= this.waiting) throw this.full();
      // The task that finishes hands its place over (active stays the same).
      await new Promise<void>((resolve) => this.line.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.line.shift();
      if (next) next();
      else this.active--;
    }
  }
}
