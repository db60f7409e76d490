#!/usr/bin/env node
import { register as registerHooks } from "node:module";
import { register } from "tsx/esm/api";

registerHooks("./workspace-source.mjs", import.meta.url);
register();
await import("../bench/run.ts");
