import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// One worker and a shared module graph: every suite uses one initialised database (PGlite in
// memory, or the PostgreSQL named by DATABASE_URL) and creates its own organisations in it.
export default defineConfig({
  ssr: { resolve: { conditions: ["@cashrunway/source", ...defaultServerConditions] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    pool: "forks",
    maxWorkers: 1,
    isolate: false,
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
