// Domain errors with the ABI's codes (abi/ABI.md §6.6). AssemblyScript has
// no exceptions: an operation reports an error by calling notFound,
// invalidParams or internalError and returning null.

export const NOT_FOUND = "not_found";
export const INVALID_PARAMS = "invalid_params";
export const INTERNAL = "internal";

/** A domain error. The message goes to the operator's log, never to the MCP client. */
export class ProviderError {
  constructor(public code: string, public message: string) {}
}

let pending: ProviderError | null = null;

/** The requested resource does not exist. Then return null. */
export function notFound(message: string): void {
  pending = new ProviderError(NOT_FOUND, message);
}

/** The request cannot be accepted (a malformed URI, an unknown cursor). Then return null. */
export function invalidParams(message: string): void {
  pending = new ProviderError(INVALID_PARAMS, message);
}

/** A failure inside the provider. Then return null. */
export function internalError(message: string): void {
  pending = new ProviderError(INTERNAL, message);
}

/** Takes the error recorded during this call, if any. */
export function takeError(): ProviderError | null {
  const e = pending;
  pending = null;
  return e;
}
