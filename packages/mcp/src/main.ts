import { runStdio } from "./stdio.ts";

await runStdio();
