// A growable byte buffer: the SDK builds each output in one and hands it
// to the host with a single output_write.

export class ByteBuffer {
  data: StaticArray<u8>;
  length: i32 = 0;

  constructor(capacity: i32 = 256) {
    this.data = new StaticArray<u8>(capacity);
  }

  /** Makes room for n more bytes. */
  reserve(n: i32): void {
    const need = this.length + n;
    if (need <= this.data.length) return;
    let cap = this.data.length * 2;
    while (cap < need) cap *= 2;
    const next = new StaticArray<u8>(cap);
    memory.copy(changetype<usize>(next), changetype<usize>(this.data), <usize>this.length);
    this.data = next;
  }

  byte(b: u8): void {
    this.reserve(1);
    unchecked((this.data[this.length++] = b));
  }

  /** Appends n bytes at ptr. */
  bytes(ptr: usize, n: i32): void {
    this.reserve(n);
    memory.copy(changetype<usize>(this.data) + <usize>this.length, ptr, <usize>n);
    this.length += n;
  }

  /** Appends an ASCII string (JSON punctuation, names, numbers). */
  ascii(s: string): void {
    const n = s.length;
    this.reserve(n);
    for (let i = 0; i < n; i++) unchecked((this.data[this.length + i] = <u8>s.charCodeAt(i)));
    this.length += n;
  }

  /** Appends a Uint8Array's bytes. */
  array(a: Uint8Array): void {
    this.bytes(a.dataStart, a.length);
  }

  /** The address of the first byte. */
  get ptr(): usize {
    return changetype<usize>(this.data);
  }

  /** A copy of the contents. */
  toBytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    memory.copy(out.dataStart, this.ptr, <usize>this.length);
    return out;
  }

  /** The contents decoded as UTF-8. */
  toString(): string {
    return String.UTF8.decodeUnsafe(this.ptr, <usize>this.length);
  }
}
