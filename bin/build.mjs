#!/usr/bin/env node
// Compiles the TypeScript sources to JavaScript once (`npm install` runs it as `prepare`), so
// `npm start` and the `cashrunway` bin load a few JavaScript files instead of transpiling three
// hundred modules on each run. esbuild, not tsc: it only strips types (`npm run typecheck`
// checks them) and takes about a second, which keeps `npm ci` fast.
//
// One bundle in dist/cli/: the CLI, with the server in a chunk of its own that only `serve`
// loads. The pure-JavaScript dependencies (zod, drizzle-orm, hono, pg, …) are bundled in too:
// loading their hundreds of small files was most of a command's start-up. Packages that find
// files next to their own code (PGlite's WebAssembly, pino's worker transports, the Scalar
// bundle, the MCP SDK's, ioredis's) stay imports of node_modules. The workspace packages the
// server uses (@cashrunway/mcp, @cashrunway/client) are bundled from their sources, so they need
// no build of their own. Every output file sits two folders below the repository, as the sources
// do, so paths a module finds relative to itself (../../package.json, ../../drizzle) hold.
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist", "cli");
/** Holds the newest source time the output was built from (see `isStale`). */
const STAMP = join(OUT, ".built-from");

/** Folders whose sources end up in the bundle. */
const SOURCES = ["src", "packages/client/src", "packages/mcp/src"];

const isSource = (name) => /\.(tsx?|json)$/.test(name) && !/\.(test|d)\.tsx?$/.test(name);

/**
 * The newest modification time among the sources and their folders (a folder's time changes when
 * a file in it is added, removed or renamed), this script, package.json and tsconfig.json.
 */
function newestSourceTime() {
  let newest = 0;
  const see = (path) => {
    newest = Math.max(newest, statSync(path).mtimeMs);
  };
  for (const file of ["package.json", "tsconfig.json", "bin/build.mjs"]) see(join(ROOT, file));
  const walk = (folder) => {
    see(folder);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (isSource(entry.name)) see(path);
    }
  };
  // A copy without sources (dist/ alone, deployed) has nothing newer to compare.
  for (const folder of SOURCES) if (existsSync(join(ROOT, folder))) walk(join(ROOT, folder));
  return newest;
}

/**
 * True when a source changed after the last build (a pull, a merge, an edit), or there is no
 * build: the bin then builds before it runs, so it never runs stale code. About 10 ms.
 */
export function isStale() {
  let built;
  try {
    built = Number(readFileSync(STAMP, "utf8"));
  } catch {
    return true;
  }
  return !(built >= newestSourceTime());
}

/**
 * Bundles the sources into a fresh folder beside dist/cli/, stamps it with the sources' time and
 * swaps it in whole: a process starting meanwhile (or another build: two test workers, say) sees
 * the old bundle or the new one, never a mix.
 */
export async function build() {
  const esbuild = await import("esbuild");
  const builtFrom = newestSourceTime();
  const fresh = `${OUT}.building-${process.pid}`;
  const old = `${OUT}.old-${process.pid}`;
  rmSync(fresh, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, "src/cli/main.ts")],
    outdir: fresh,
    bundle: true,
    // `serve` imports the server on demand: its own chunk, which other commands never load.
    splitting: true,
    chunkNames: "[name]-[hash]",
    plugins: [someDependenciesStayExternal],
    // Bundled CommonJS dependencies require() Node's modules; an ES module has no require.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    conditions: ["@cashrunway/source"],
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    tsconfig: join(ROOT, "tsconfig.json"),
    logLevel: "warning",
  });
  writeFileSync(join(fresh, ".built-from"), `${builtFrom}\n`);
  try {
    renameSync(OUT, old);
  } catch {
    // No earlier build, or another build swapped it away a moment ago.
  }
  try {
    renameSync(fresh, OUT);
  } catch {
    // Another build of the same sources got there first; its output stays.
  }
  rmSync(old, { recursive: true, force: true });
  rmSync(fresh, { recursive: true, force: true });
}

/** Dependencies that read files next to their own code, left as imports of node_modules. */
const EXTERNAL =
  /^(@electric-sql\/|pino($|\/)|thread-stream|pg-native|ioredis|@scalar\/|@modelcontextprotocol\/|esbuild)/;

const someDependenciesStayExternal = {
  name: "some-dependencies-stay-external",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      EXTERNAL.test(args.path) ? { path: args.path, external: true } : undefined,
    );
  },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  await build();
  const ms = Math.round(performance.now() - started);
  process.stdout.write(`cashrunway: compiled the sources into dist/cli in ${ms} ms\n`);
}
