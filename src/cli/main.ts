import { COMMANDS } from "./commands/index.ts";
import { exitWhenFlushed } from "./exit.ts";
import { runCli } from "./run-cli.ts";

const code = await runCli(process.argv.slice(2), COMMANDS);
// `serve` keeps running (its run() resolves once the server is listening); others exit now,
// once their output has reached the pipe or file it goes to.
if (code !== 0 || process.argv[2] !== "serve") await exitWhenFlushed(code);
