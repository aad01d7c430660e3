// The provider interface and its registration.

import { internalError } from "./errors";
import {
  ChangesRequest,
  ChangesResult,
  CompleteRequest,
  CompleteResult,
  Describe,
  ListResult,
  ReadResult,
  TemplatesResult,
} from "./types";

/**
 * What a provider extends. Override describe and the operations you serve,
 * and name exactly those in describe().operations. An operation returns its
 * result, or null after calling notFound, invalidParams or internalError.
 */
export abstract class Provider {
  /** Called once per instance, before any operation. Must not read config. */
  abstract describe(): Describe;

  /** One page of resources; cursor is "" for the first page. */
  list(cursor: string): ListResult | null {
    internalError("list is declared but not implemented: override Provider.list");
    return null;
  }

  /** One page of URI templates. */
  templates(cursor: string): TemplatesResult | null {
    internalError("templates is declared but not implemented: override Provider.templates");
    return null;
  }

  /** The contents of uri; notFound for an unknown one. */
  read(uri: string): ReadResult | null {
    internalError("read is declared but not implemented: override Provider.read");
    return null;
  }

  /** Values for a template argument. */
  complete(req: CompleteRequest): CompleteResult | null {
    internalError("complete is declared but not implemented: override Provider.complete");
    return null;
  }

  /** What changed since req.cursor (abi/ABI.md §11). */
  changes(req: ChangesRequest): ChangesResult | null {
    internalError("changes is declared but not implemented: override Provider.changes");
    return null;
  }
}

let registered: Provider | null = null;

/** Makes p the provider this module serves. Call it once, from top-level code. */
export function register(p: Provider): void {
  registered = p;
}

/** The registered provider, or null. */
export function current(): Provider | null {
  return registered;
}
