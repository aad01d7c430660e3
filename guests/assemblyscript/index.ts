// The package entry: `import { ... } from "mcpw"` resolves here.
export * from "./assembly/index";
