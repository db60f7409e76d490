import { startServer } from "../../main.ts";
import { defineCommand } from "../command.ts";

export const serveCommand = defineCommand({
  name: "serve",
  summary: "run the server: agent API, settings screen and dashboard (npm start)",
  flags: {
    demo: {
      description:
        "seed a demo organisation even when the database is not empty (an empty embedded one always gets one)",
    },
  },
  usage: ["serve [--demo]   (npm start; seeds a demo organisation on an empty embedded database)"],
  examples: ["serve", "serve --demo   (with DATABASE_URL=postgres://…)"],
  async run(args, ctx) {
    args.allowOnly("demo");
    const running = await startServer(ctx.config, {
      demo: args.bool("demo"),
      clock: ctx.clock,
      onDemo: (demo, url) => {
        const lines = [
          "",
          "Demo organisation created. Its API key (shown once, keep it):",
          "",
          `  ${demo.key}`,
          "",
          "Try it:",
          "",
          `  curl -s -H "Authorization: Bearer ${demo.key}" ${url}/api/agent/bank-accounts`,
          "",
          `Settings and dashboard: ${url}/settings/login`,
          `  email:    ${demo.ownerEmail}`,
          `  password: ${demo.ownerPassword}   (shown once; change it with: npx cashrunway password set --email ${demo.ownerEmail})`,
          "",
        ];
        process.stdout.write(`${lines.join("\n")}\n`);
      },
    });
    const stop = () => {
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  },
});
