/**
 * One answer per request: the problems of a request gathered field by field (a bad `partner_id`
 * and bad lines together), then thrown as one 422. A check that throws an InputError joins it
 * instead of cutting the request short.
 */
import { InputError, type FieldErrors } from './errors.js';

export class Problems {
  readonly errors: FieldErrors = {};

  /** A copy to add to (a transaction's attempt starts from the problems found before it, never from an earlier attempt's). */
  copy(): Problems {
    const copy = new Problems();
    for (const [field, messages] of Object.entries(this.errors)) for (const message of messages) copy.add(field, message);
    return copy;
  }

  add(field: string, message: string): void {
    const messages = (this.errors[field] ??= []);
    if (!messages.includes(message)) messages.push(message);
  }

  /** Adds every field error of `error` when it is an InputError; throws anything else. */
  absorb(error: unknown): void {
    if (!(error instanceof InputError)) throw error;
    for (const [field, messages] of Object.entries(error.errors)) for (const message of messages) this.add(field, message);
  }

  /** The value of `check()`, or undefined when it threw an InputError (which joins the problems). */
  attempt<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (error) {
      this.absorb(error);
      return undefined;
    }
  }

  /** The value of `check`, or undefined when it failed with an InputError (which joins the problems). */
  async collect<T>(check: Promise<T>): Promise<T | undefined> {
    try {
      return await check;
    } catch (error) {
      this.absorb(error);
      return undefined;
    }
  }

  has(field: string): boolean {
    return this.errors[field] !== undefined;
  }

  get any(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  /** Throws the gathered problems (there must be one: the caller met it). */
  fail(): never {
    this.throwIfAny();
    throw new Error('Problems.fail() with no problem gathered');
  }

  /**
   * Throws the gathered problems as one 422. Its message is the problem itself when there is only
   * one, on a field of the body's top level (`partner_id`); else the general one (a line's problem,
   * `items.0.quantity_um3pl`, is read from `errors`).
   */
  throwIfAny(message?: string): void {
    if (!this.any) return;
    const fields = Object.entries(this.errors);
    const single = fields.length === 1 && fields[0]![1].length === 1 && !fields[0]![0].includes('.') ? fields[0]![1][0] : undefined;
    throw new InputError(this.errors, message ?? single);
  }
}
