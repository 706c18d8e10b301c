/** Append-only typed arrays for building the index without knowing its sizes up front. */

type TypedArray = Int32Array | Uint16Array | Uint8Array | Float64Array;
type TypedArrayConstructor<T extends TypedArray> = new (length: number) => T;

export class Growable<T extends TypedArray> {
  private buffer: T;
  private readonly make: TypedArrayConstructor<T>;
  length = 0;

  constructor(make: TypedArrayConstructor<T>, initialCapacity = 1024) {
    this.make = make;
    this.buffer = new make(initialCapacity);
  }

  push(value: number): void {
    if (this.length === this.buffer.length) {
      const bigger = new this.make(this.buffer.length * 2);
      bigger.set(this.buffer);
      this.buffer = bigger;
    }
    this.buffer[this.length++] = value;
  }

  /** A right-sized copy of what was pushed. */
  toArray(): T {
    return this.buffer.slice(0, this.length) as T;
  }

  /** What was pushed, without copying: valid until the next push. */
  view(): T {
    return this.buffer.subarray(0, this.length) as T;
  }
}
