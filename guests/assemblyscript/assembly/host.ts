// Host services: logging, config values, and the raw mcpw_v1 imports.

// @ts-ignore: decorator
@external("mcpw_v1", "input_read")
export declare function input_read(ptr: usize, len: i32): i32;

// @ts-ignore: decorator
@external("mcpw_v1", "output_write")
export declare function output_write(ptr: usize, len: i32): i32;

// @ts-ignore: decorator
@external("mcpw_v1", "log")
declare function host_log(level: i32, ptr: usize, len: i32): void;

// @ts-ignore: decorator
@external("mcpw_v1", "config_get")
declare function config_get(keyPtr: usize, keyLen: i32, valPtr: usize, valCap: i32): i32;

/** Hands a read content's bytes to the host as they are (ABI §6.3): their index, or -2 past the output limit. */
// @ts-ignore: decorator
@external("mcpw_v1", "content_write")
export declare function content_write(ptr: usize, len: i32): i32;

/** Log levels, as the host's log import numbers them. */
export enum Level {
  Debug = 0,
  Info = 1,
  Warn = 2,
  Error = 3,
}

/**
 * Sends msg to the host log. The host keeps at most 64 messages of at most
 * 4 KiB per call. Valid only during an operation (not in top-level code,
 * which runs in _initialize).
 */
export function log(level: Level, msg: string): void {
  if (msg.length == 0) return;
  const b = String.UTF8.encode(msg);
  host_log(<i32>level, changetype<usize>(b), min(b.byteLength, 4096));
}

/**
 * The value of an operator-granted config key, or null if the operator did
 * not grant it. Declare every key you read in describe's requests.config.
 */
export function configGet(key: string): string | null {
  if (key.length == 0) return null;
  const k = String.UTF8.encode(key);
  let cap = 256;
  // A value longer than the buffer is not copied; the host returns its
  // length, so the second try fits (the value cannot change mid-call).
  for (let attempt = 0; attempt < 2; attempt++) {
    const buf = new ArrayBuffer(cap);
    const n = config_get(changetype<usize>(k), k.byteLength, changetype<usize>(buf), cap);
    if (n < 0) return null;
    if (n <= cap) return String.UTF8.decodeUnsafe(changetype<usize>(buf), <usize>n);
    cap = n;
  }
  return null;
}
