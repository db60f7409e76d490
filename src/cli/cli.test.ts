import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nearest, UsageError } from "./args.ts";
import { type Command, parseCommandLine, usageLines } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";
import { keysCommand } from "./commands/keys.ts";
import { bashCompletion, zshCompletion } from "./completion.ts";
import { runCli } from "./run-cli.ts";

/** Runs a command line that needs no database; returns its exit code and output. */
async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, COMMANDS, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}

/** Every command line whose help is asked for: each command, and each of its subcommands. */
const helpTargets: [Command, string[]][] = COMMANDS.flatMap((c): [Command, string[]][] => [
  [c, [c.name]],
  ...(c.subcommands ?? []).map((s): [Command, string[]] => [c, [c.name, ...s.name.split(" ")]]),
]);

/** Help text with its wrapping and column padding undone. */
const oneLine = (text: string) => text.replace(/\s+/g, " ");

/** The words of an example line as a shell would split them (quotes; a trailing comment, `<`). */
function words(example: string): string[] {
  const line = example.replace(/\s+\(.*\)$/, "").replace(/\s+<\s+\S+$/, "");
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "");
}

describe("command help", () => {
  it.each(helpTargets.map(([c, w]) => [w.join(" "), c, w] as const))(
    "%s --help describes every flag and shows an example",
    async (_, command, target) => {
      const sub = command.subcommands?.find((s) => s.name === target.slice(1).join(" "));
      const viaFlag = await cli(...target, "--help");
      expect(viaFlag.code, viaFlag.stderr).toBe(0);
      expect(viaFlag.stderr).toBe("");
      const help = viaFlag.stdout;
      expect(help.startsWith(`cashrunway ${target.join(" ")}: `)).toBe(true);
      for (const u of sub ? sub.usage : usageLines(command))
        expect(help).toContain(`cashrunway ${u}`);
      const flags = sub ? sub.flags : Object.keys(command.flags);
      for (const name of flags) {
        const flag = command.flags[name];
        expect(flag?.description, `--${name}`).toMatch(/\w/);
        const label = `--${name}${flag?.value ? ` ${flag.value}` : ""}`;
        expect(oneLine(help)).toContain(` ${label} ${flag?.description}`);
      }
      expect(help).toContain("--json");
      expect(help).toContain("-h, --help");
      expect(help).toMatch(/\nExamples:\n {2}cashrunway \S/);
      // -h and `help …` print the same.
      expect((await cli(...target, "-h")).stdout).toBe(help);
      expect(await cli("help", ...target)).toEqual({ code: 0, stdout: help, stderr: "" });
    },
  );

  it("every example parses with its command's flags", () => {
    for (const command of COMMANDS) {
      const examples = command.subcommands
        ? command.subcommands.flatMap((s) => s.examples)
        : (command.examples ?? []);
      expect(examples.length, command.name).toBeGreaterThan(0);
      for (const example of examples) {
        const [name, ...rest] = words(example);
        expect(name, example).toBe(command.name);
        expect(() => parseCommandLine(command, rest), example).not.toThrow();
      }
    }
  });

  it("lists every command with its summary, and exits 2 when no command is given", async () => {
    const help = await cli("help");
    expect(help.code).toBe(0);
    for (const c of COMMANDS) expect(oneLine(help.stdout)).toContain(` ${c.name} ${c.summary}`);
    expect(await cli("--help")).toEqual(help);
    expect(await cli("-h")).toEqual(help);
    expect(await cli()).toEqual({ ...help, code: 2 });
  });

  it("prints one subcommand's help exactly", async () => {
    expect((await cli("keys", "list", "--help")).stdout).toBe(
      [
        "cashrunway keys list: every key with its status, scopes and last use (--org: every key reaching it)",
        "",
        "Usage:",
        "  cashrunway keys list [--org ID]",
        "",
        "Options:",
        "  --org ID    create: the organisation the key reads (an organisation key); list: every key reaching",
        "              it; revoke: for it only",
        "  --json      print one JSON object instead of lines (errors stay one line on stderr)",
        "  -h, --help  show this help",
        "",
        "Examples:",
        "  cashrunway keys list --org org_tpxprxz2g0095ksv8z2r --json",
        "",
      ].join("\n"),
    );
  });
});

describe("unknown flags, commands and subcommands", () => {
  it("names an unknown flag and suggests the nearest valid one, exit 2", async () => {
    expect(await cli("keys", "list", "--jsn")).toEqual({
      code: 2,
      stdout: "",
      stderr: "cashrunway keys: unknown flag --jsn (did you mean --json?)\n",
    });
    expect((await cli("keys", "create", "--lable", "x")).stderr).toBe(
      "cashrunway keys: unknown flag --lable (did you mean --label?)\n",
    );
    expect((await cli("forecast", "explain", "--org", "o", "--weeks", "3")).stderr).toBe(
      "cashrunway forecast: unknown flag --weeks (did you mean --week?)\n",
    );
    expect((await cli("billing", "set", "--trial-end", "2026-01-01")).stderr).toBe(
      "cashrunway billing: unknown flag --trial-end (did you mean --trial-ends?)\n",
    );
  });

  it("lists the flags there are when none is close, and knows which subcommand takes which", async () => {
    expect((await cli("org", "create", "--colour", "red")).stderr).toBe(
      "cashrunway org: unknown flag --colour (org create takes --name, --currency, --timezone, --plan, --owner-email, --json, --help)\n",
    );
    // --sensitive is a flag of keys create, not of keys list.
    expect((await cli("keys", "list", "--sensitive")).stderr).toBe(
      "cashrunway keys: unknown flag --sensitive (keys list takes --org, --json, --help)\n",
    );
    expect((await cli("keys", "list", "-x")).stderr).toMatch(/^cashrunway keys: unknown flag -x /);
  });

  it("suggests the nearest command and subcommand", async () => {
    expect(await cli("kyes", "list")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'cashrunway kyes: unknown command "kyes" (did you mean "keys"? run "cashrunway help")\n',
    });
    expect((await cli("keys", "lst")).stderr).toBe(
      'cashrunway keys: unknown subcommand "keys lst" (did you mean "list"? expected: create, list, rotate, revoke)\n',
    );
    expect((await cli("cash", "item", "ad")).stderr).toBe(
      'cashrunway cash: unknown subcommand "cash item ad" (did you mean "add"? expected: add, list, remove)\n',
    );
    expect((await cli("keys")).stderr).toBe(
      "cashrunway keys: missing subcommand (create, list, rotate, revoke)\n",
    );
  });

  it("keeps the parsing rules: values, repeats, empties, switches", () => {
    const parse = (...argv: string[]) => parseCommandLine(keysCommand, argv).args;
    expect(parse("list", "--org=org_a").string("org")).toBe("org_a");
    expect(parse("create", "--sensitive").bool("sensitive")).toBe(true);
    expect(parse("create", "--sensitive=false").bool("sensitive")).toBe(false);
    expect(() => parse("list", "--org")).toThrow(new UsageError("--org needs a value"));
    expect(() => parse("list", "--org", "--json")).toThrow(new UsageError("--org needs a value"));
    expect(() => parse("list", "--org", "a", "--org", "b")).toThrow(
      new UsageError("--org is given more than once"),
    );
    expect(() => parse("list", "--org", "").string("org")).toThrow(
      new UsageError("--org needs a value"),
    );
    expect(parse("rotate", "--", "--odd").positionals).toEqual(["rotate", "--odd"]);
  });

  it("suggests within a third of the word's length, swaps counting once", () => {
    expect(nearest("jsn", ["json", "org"])).toBe("json");
    expect(nearest("lable", ["label"])).toBe("label");
    expect(nearest("colour", ["name", "currency", "plan"])).toBeUndefined();
    expect(nearest("x", ["org"])).toBeUndefined();
  });
});

/** Runs `script` in `shell` with the completion script loaded; returns its stdout lines. */
function inShell(shell: "bash" | "zsh", completion: string, script: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "cr-completion-"));
  try {
    const file = join(dir, `completion.${shell}`);
    writeFileSync(file, completion);
    const r = spawnSync(shell, ["-c", `source ${file}\n${script}`], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    return r.stdout.split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("shell completion", () => {
  const bash = bashCompletion(COMMANDS);
  /** What bash offers after `cashrunway <line>` (the last word is the one being completed). */
  const complete = (line: string) =>
    inShell(
      "bash",
      bash,
      `COMP_WORDS=(cashrunway ${line}); COMP_CWORD=\${#COMP_WORDS[@]}; ${
        line.endsWith(" ") ? "COMP_WORDS+=(''); " : "COMP_CWORD=$((COMP_CWORD-1)); "
      }_cashrunway; printf '%s\\n' "\${COMPREPLY[@]}"`,
    );

  it("bash completes commands, subcommands, a subcommand's flags and their values", () => {
    expect(complete("ke")).toEqual(["keys"]);
    expect(complete("keys ")).toEqual(["create", "list", "rotate", "revoke"]);
    expect(complete("keys list --")).toEqual(["--org", "--json", "--help"]);
    expect(complete("keys create --org org_1 --la")).toEqual(["--label"]);
    expect(complete("billing set --status ")).toEqual([
      "trialing",
      "active",
      "past_due",
      "canceled",
      "trial_ended",
    ]);
    // A flag's value is not taken for a subcommand: `--org list` then `--` is keys create's.
    expect(complete("keys create --org list --sen")).toEqual(["--sensitive"]);
    expect(complete("cash item ")).toEqual(["add", "list", "remove"]);
    expect(complete("cash item add --pro")).toEqual(["--probability"]);
    expect(complete("sensitive --org o --account 200 ")).toEqual(["on", "off"]);
    expect(complete("help ba")).toEqual(["baselines", "backtest"]);
  });

  // .ci/run installs zsh; a machine without it skips this one.
  const hasZsh = spawnSync("zsh", ["-c", "true"]).status === 0;
  it.skipIf(!hasZsh)(
    "zsh finds the same places and offers the same words with their descriptions",
    () => {
      const zsh = zshCompletion(COMMANDS);
      const out = inShell(
        "zsh",
        zsh,
        [
          'print -r -- "$(_cashrunway_node keys create --org list)"',
          'print -r -- "$(_cashrunway_node cash item add --amount 5)"',
          "_cashrunway_flags 'keys list'; print -rl -- $reply",
          "_cashrunway_values billing plan; print -r -- $reply",
          "_cashrunway_children 'cash item'; print -rl -- $reply",
        ].join("\n"),
      );
      expect(out).toEqual([
        "keys create",
        "cash item add",
        "--org:create: the organisation the key reads (an organisation key); list: every key reaching it; revoke: for it only",
        "--json:print one JSON object instead of lines (errors stay one line on stderr)",
        "--help:show this help",
        "Free Pocket Wallet Vault Reserve none",
        "add:a manual item (or, with --probability, a pipeline item) in the forecast",
        "list:the organisation's manual and pipeline items",
        "remove:removes a manual or pipeline item",
      ]);
    },
  );
});
