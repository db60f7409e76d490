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
    const { runServe } = await import("./serve-run.ts");
    await runServe(args, ctx);
  },
});
