import { createRequire } from "node:module";

/** The package's version (package.json is two folders up from src/cli and from dist/cli). */
export const VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version;
