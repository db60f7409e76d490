import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** One saved login. */
export interface Profile {
  url: string;
  token: string;
  /** Default organisation for a key reaching several. */
  orgId?: string;
  savedAt: string;
}

/** The per-user config file: named profiles and the default one. */
export interface ConfigFile {
  defaultProfile: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = "default";

/**
 * Where the config lives: CASHRUNWAY_CONFIG, else `$XDG_CONFIG_HOME/cashrunway/runway.json`,
 * else `~/.config/cashrunway/runway.json` (`%APPDATA%\cashrunway\runway.json` on Windows).
 */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.CASHRUNWAY_CONFIG) return env.CASHRUNWAY_CONFIG;
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === "win32" && env.APPDATA ? env.APPDATA : join(homedir(), ".config"));
  return join(base, "cashrunway", "runway.json");
}

/** The config file's contents; an empty config when there is no file yet. */
export async function readConfig(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      return { defaultProfile: DEFAULT_PROFILE, profiles: {} };
    }
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<ConfigFile>;
  return {
    defaultProfile: parsed.defaultProfile || DEFAULT_PROFILE,
    profiles: parsed.profiles && typeof parsed.profiles === "object" ? parsed.profiles : {},
  };
}

/**
 * Writes the config readable by its owner only (0600, in a 0700 folder): it holds API keys. The
 * file is written beside the old one and renamed over it, so a crash never leaves half a file,
 * and it is never readable by others, not even for an instant.
 */
export async function writeConfig(path: string, config: ConfigFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFile applies only to a new file (and is filtered by the umask).
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}
