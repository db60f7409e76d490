import { UsageError } from "../args.ts";
import { defineCommand } from "../command.ts";
import { bashCompletion, zshCompletion } from "../completion.ts";

/** `completion bash|zsh`: prints the shell completion script (docs/cli.md). */
export const completionCommand = defineCommand({
  name: "completion",
  summary: "print the shell completion script for bash or zsh",
  flags: {},
  usage: ["completion bash|zsh   (source <(cashrunway completion bash))"],
  examples: [
    "completion bash > ~/.local/share/bash-completion/completions/cashrunway",
    "completion zsh > ~/.zfunc/_cashrunway   (a directory on $fpath)",
  ],
  positionals: ["bash", "zsh"],
  async run(args, ctx) {
    const shell = args.positional(0, "shell (bash or zsh)");
    if (args.positionals.length > 1) {
      throw new UsageError(`unexpected argument "${args.positionals[1]}"`);
    }
    if (args.has("json")) throw new UsageError("completion prints a script, not JSON");
    // The list of commands is read when run, as it includes this one.
    const { COMMANDS } = await import("./index.ts");
    if (shell !== "bash" && shell !== "zsh") {
      throw new UsageError(`unknown shell "${shell}" (bash or zsh)`);
    }
    const script = shell === "bash" ? bashCompletion(COMMANDS) : zshCompletion(COMMANDS);
    ctx.print({}, script.trimEnd());
  },
});
