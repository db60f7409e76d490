import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Test files run in parallel, each worker on its own database (test/helpers/global-setup.ts).
// Workers are reused between files (isolate: false): a worker loads the application and opens
// its database once, and its files run one after another on that database.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    setupFiles: ["test/helpers/worker-setup.ts"],
    pool: "forks",
    maxWorkers: Number(process.env.TEST_WORKERS) || availableParallelism() + 1,
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
