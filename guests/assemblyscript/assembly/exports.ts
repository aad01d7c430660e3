// The module's ABI exports. Re-export them from the provider's entry file:
//
//   export * from "mcpw/assembly/exports";
//
// All six are exported (AssemblyScript cannot export conditionally);
// describe().operations tells the host which ones to call.

import { OP_CHANGES, OP_COMPLETE, OP_DESCRIBE, OP_LIST, OP_READ, OP_TEMPLATES, serve } from "./dispatch";

export function mcpw_v1_describe(inLen: i32): i32 {
  return serve(OP_DESCRIBE, inLen);
}

export function mcpw_v1_list(inLen: i32): i32 {
  return serve(OP_LIST, inLen);
}

export function mcpw_v1_templates(inLen: i32): i32 {
  return serve(OP_TEMPLATES, inLen);
}

export function mcpw_v1_read(inLen: i32): i32 {
  return serve(OP_READ, inLen);
}

export function mcpw_v1_complete(inLen: i32): i32 {
  return serve(OP_COMPLETE, inLen);
}

export function mcpw_v1_changes(inLen: i32): i32 {
  return serve(OP_CHANGES, inLen);
}
