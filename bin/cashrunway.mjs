#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npm install && npm start` needs no build.
import { register as registerHooks } from "node:module";
import { register } from "tsx/esm/api";

registerHooks("./workspace-source.mjs", import.meta.url);
register();
await import("../src/cli/main.ts");
