/**
 * A JSON body that is already serialized (say GraphQL's result, which yoga writes with the
 * serializer compiled for the query): the platform writes the text as it is instead of parsing it
 * into objects only to serialize them again. `T` is the documented body it holds; anything that
 * serializes the reply another way (idempotency's stored answer) gets the same JSON.
 */
export class JsonText<T> {
  declare private readonly body?: T;

  constructor(readonly text: string) {}

  toJSON(): T {
    return JSON.parse(this.text) as T;
  }
}
