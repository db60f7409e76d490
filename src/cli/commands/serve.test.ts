import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../config.ts";
import { checkPortFree, closingLines, startFailure, startProgress } from "./serve-run.ts";

const config = ConfigSchema.parse({ PORT: "3999", DATA_DIR: "/srv/cr" });

describe("serve's lines for people", () => {
  it("prints each step with its time, and the demo's generation as a bar, one line a part off a terminal", () => {
    let text = "";
    let t = 0;
    const p = startProgress(
      {
        write: (s) => {
          text += s;
        },
        isTTY: false,
      },
      () => t,
    );
    p.step({ step: "database", embedded: true });
    t = 1500;
    p.step({ step: "generate", done: 0, total: 2, part: "sales" });
    p.step({ step: "generate", done: 2, total: 2, part: "written" });
    t = 2000;
    p.step({ step: "import" });
    t = 4250;
    p.step({ step: "done" });
    expect(text.split("\n")).toEqual([
      "Opening the embedded database and applying migrations… done (1.5 s)",
      "  [------------------------] 0/2 sales",
      "  [########################] 2/2 written",
      "Generating two years of demo ledger data… done (0.5 s)",
      "Importing it, computing forecasts, baselines and summaries… done (2.3 s)",
      "",
    ]);
  });

  it("redraws one line on a terminal and marks a step that failed", () => {
    let text = "";
    const p = startProgress(
      {
        write: (s) => {
          text += s;
        },
        isTTY: true,
      },
      () => 0,
    );
    p.step({ step: "generate", done: 0, total: 4, part: "sales" });
    p.step({ step: "generate", done: 1, total: 4, part: "bills" });
    p.fail();
    expect(text).toContain("\r\x1b[KGenerating two years of demo ledger data… [######");
    expect(
      text.endsWith("\r\x1b[KGenerating two years of demo ledger data… failed (0.0 s)\n"),
    ).toBe(true);
  });

  it("ends every start with the settings URL, each owner's e-mail and the command for a new key", () => {
    const lines = closingLines(
      "http://127.0.0.1:3000",
      { total: 4, orgs: [{ orgId: "org_a", name: "A Pty Ltd", ownerEmail: "o@a.test" }] },
      "stderr (json)",
    ).join("\n");
    expect(lines).toContain("Settings and dashboard: http://127.0.0.1:3000/settings/login");
    expect(lines).toContain("owner:                o@a.test");
    expect(lines).toContain(
      'npx cashrunway keys create --org org_a --label "My agent" --scopes READ_BANK,READ_FORECAST',
    );
    expect(lines).toContain("…and 3 more organisations");
    expect(closingLines("http://h", { total: 0, orgs: [] }, "x").join("\n")).toContain(
      "npx cashrunway org create",
    );
  });
});

describe("serve's start-up failures", () => {
  it("finds a busy port before any work, as one line naming the port", async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, "127.0.0.1", done));
    const port = (holder.address() as { port: number }).port;
    try {
      const err = await checkPortFree(port, "127.0.0.1").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(startFailure(err, { ...config, PORT: port, HOST: "127.0.0.1" })).toBe(
        `port ${port} on 127.0.0.1 is already in use (another cashrunway serve?); stop it or start with PORT=<another port>`,
      );
    } finally {
      holder.close();
    }
    await expect(checkPortFree(port, "127.0.0.1")).resolves.toBeUndefined();
  });

  it("names an unusable data directory and leaves other errors alone", () => {
    const denied = Object.assign(new Error("EACCES: permission denied"), {
      code: "EACCES",
      syscall: "open",
      path: "/srv/cr/pgdata",
    });
    expect(startFailure(denied, config)).toBe(
      "the data directory cannot be used: /srv/cr/pgdata (EACCES); fix its permissions or set DATA_DIR",
    );
    expect(startFailure(new Error("boom"), config)).toBeNull();
  });
});
