import { VERSION } from "./version.ts";

const argv = process.argv.slice(2);
const [first] = argv;
if (argv.length === 1 && (first === "--version" || first === "-V" || first === "version")) {
  // Answered before the commands (and what they import) are loaded.
  process.stdout.write(`cashrunway ${VERSION}\n`);
} else {
  const { COMMANDS } = await import("./commands/index.ts");
  const { exitWhenFlushed } = await import("./exit.ts");
  const { runCli } = await import("./run-cli.ts");
  const code = await runCli(argv, COMMANDS);
  // `serve` keeps running (its run() resolves once the server is listening); others exit now,
  // once their output has reached the pipe or file it goes to.
  if (code !== 0 || first !== "serve") await exitWhenFlushed(code);
}
