export { CLI_VERSION, commandPaths, EXIT, helpText, type Io, run } from "./cli.ts";
export { READ_COMMANDS, type ReadCommand } from "./commands.ts";
export { type ConfigFile, configPath, type Profile, readConfig, writeConfig } from "./config.ts";
