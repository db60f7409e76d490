#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (`npm install` builds it: bin/build.mjs). Sources changed
// since that build (a pull, a merge, an edit) are compiled first, so this never runs stale code;
// `npm run dev` runs the TypeScript sources directly and reloads on change.
import { build, isStale } from "./build.mjs";

if (isStale()) {
  process.stderr.write("cashrunway: sources changed since the last build; compiling them first\n");
  await build();
}
await import("../dist/cli/main.js");
