import { isKeyPrefix } from "../../domain/keys.ts";
import { parseScopeList, type Scope } from "../../domain/scopes.ts";
import type { CreateApiKeyInput, CreatedApiKey } from "../../services/keys/create-api-key.ts";
import { createApiKey } from "../../services/keys/create-api-key.ts";
import {
  type GovernedKey,
  listOrgKeyReach,
  revokeKeyForOrg,
} from "../../services/keys/govern-keys.ts";
import type { ApiKeySummary } from "../../services/keys/key-views.ts";
import { listApiKeys } from "../../services/keys/list-api-keys.ts";
import { revokeApiKey } from "../../services/keys/revoke-api-key.ts";
import { rotateApiKey } from "../../services/keys/rotate-api-key.ts";
import { requireOrganisation } from "../../services/orgs/require-organisation.ts";
import { type ParsedArgs, UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

const SUBCOMMANDS = "create, list, rotate, revoke";

function scopesFlag(args: ParsedArgs): Scope[] {
  let scopes: Scope[];
  try {
    scopes = parseScopeList(args.requireString("scopes"));
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`--scopes: ${(e as Error).message}`);
  }
  if (scopes.length === 0) throw new UsageError("--scopes: pick at least one scope");
  if (scopes.includes("READ_SENSITIVE")) {
    throw new UsageError("--scopes: READ_SENSITIVE is granted only with --sensitive");
  }
  return scopes;
}

/** The create input named by exactly one of --org, --user, --partner. */
function createInput(args: ParsedArgs): CreateApiKeyInput {
  const owners = ["org", "user", "partner"].filter((f) => args.has(f));
  if (owners.length !== 1) {
    throw new UsageError("keys create needs exactly one of --org ID, --user ID, --partner ID");
  }
  const label = args.requireString("label");
  if (args.has("partner")) {
    args.allowOnly("partner", "label", "pinned", "owner");
    const owner = args.string("owner");
    const pinned = args.string("pinned");
    const pinnedOrgIds = pinned
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (pinned !== undefined && pinnedOrgIds?.length === 0) {
      throw new UsageError("--pinned needs at least one organisation id");
    }
    return {
      kind: "PARTNER",
      partnerId: args.requireString("partner"),
      label,
      ...(pinnedOrgIds ? { pinnedOrgIds } : {}),
      ...(owner !== undefined ? { createdByUserId: owner } : {}),
    };
  }
  const sensitive = args.bool("sensitive");
  if (args.has("org")) {
    args.allowOnly("org", "label", "scopes", "sensitive");
    return {
      kind: "ORG",
      orgId: args.requireString("org"),
      label,
      scopes: scopesFlag(args),
      sensitive,
    };
  }
  args.allowOnly("user", "label", "scopes", "sensitive");
  return {
    kind: "USER",
    userId: args.requireString("user"),
    label,
    scopes: scopesFlag(args),
    sensitive,
  };
}

function prefixArg(args: ParsedArgs, sub: string, ...flags: string[]): string {
  args.allowOnly(...flags);
  const prefix = args.positional(1, `key prefix (keys ${sub} PREFIX)`);
  if (args.positionals.length > 2) throw new UsageError(`keys ${sub} takes one PREFIX`);
  if (!isKeyPrefix(prefix)) {
    throw new UsageError(`"${prefix}" is not a key prefix (10 characters, as shown by keys list)`);
  }
  return prefix;
}

/** The new secret goes to stdout once, here, and nowhere else (never to a log). */
function printNewKey(ctx: CliContext, k: CreatedApiKey, extra: Record<string, unknown> = {}): void {
  ctx.print(
    {
      key: k.key,
      prefix: k.prefix,
      id: k.id,
      kind: k.kind,
      label: k.label,
      scopes: k.scopes,
      reach: k.reach,
      orgId: k.orgId,
      partnerId: k.partnerId,
      pinnedOrgIds: k.pinnedOrgIds,
      ...extra,
    },
    [
      `API key (shown once; store it now): ${k.key}`,
      `  prefix: ${k.prefix}   kind: ${k.kind}   reach: ${k.reach}`,
      `  scopes: ${k.scopes.join(", ")}`,
      ...(typeof extra.replacedPrefix === "string"
        ? [`  replaces ${extra.replacedPrefix} (revoked now)`]
        : []),
    ],
  );
}

function humanRow(k: ApiKeySummary): string {
  const owner = k.orgId ?? k.partnerId ?? k.createdByUserId;
  const used = k.lastUsedAt ? `last used ${k.lastUsedAt}` : "never used";
  return `${k.prefix}  ${k.status.padEnd(7)}  ${k.kind.padEnd(7)}  ${owner}  "${k.label}"  [${k.scopes.join(",")}]  ${used}`;
}

/** `keys list --org`: one key reaching the organisation, as its owner sees it. */
function governedRow(k: GovernedKey): string {
  const used = k.lastUsedAt ? `last used ${k.lastUsedAt}` : "never used";
  const holder =
    k.holder === "partner"
      ? `partner ${k.partnerName} (${k.creatorEmail})`
      : k.holder === "member"
        ? `member ${k.creatorEmail} (${k.creatorRole})`
        : "organisation";
  const reach = k.reach === "PINNED" ? `PINNED ${(k.pinnedOrgIds ?? []).join(",")}` : k.reach;
  const dropped = k.scopes.filter((s) => !k.scopesHere.includes(s));
  return `${k.prefix}  ${k.statusHere.padEnd(12)}  ${holder}  "${k.label}"  [${k.scopesHere.join(",")}]${dropped.length ? ` (not here: ${dropped.join(",")})` : ""}  reach ${reach}  ${used}`;
}

export async function runKeys(args: ParsedArgs, ctx: CliContext): Promise<void> {
  const sub = args.positional(0, `subcommand (${SUBCOMMANDS})`);
  let action: (db: Awaited<ReturnType<CliContext["openDatabase"]>>["db"]) => Promise<void>;
  if (sub === "create") {
    if (args.positionals.length > 1)
      throw new UsageError("keys create takes no positional arguments");
    const input = createInput(args);
    action = async (db) => printNewKey(ctx, await createApiKey(db, input, ctx.clock.now()));
  } else if (sub === "list") {
    args.allowOnly("org");
    const orgId = args.string("org");
    action = async (db) => {
      if (orgId === undefined) {
        const keys = await listApiKeys(db);
        ctx.print({ keys }, keys.length ? keys.map(humanRow) : "No keys.");
        return;
      }
      await requireOrganisation(db, orgId);
      const reach = await listOrgKeyReach(db, orgId);
      ctx.print({ ...reach }, [
        `READ_SENSITIVE on personal and partner keys: ${reach.restrictSensitiveToOrgKeys ? "forbidden (organisation keys only)" : "allowed"}`,
        ...(reach.keys.length ? reach.keys.map(governedRow) : ["No keys reach this organisation."]),
      ]);
    };
  } else if (sub === "rotate") {
    const prefix = prefixArg(args, sub);
    action = async (db) => {
      const k = await rotateApiKey(db, prefix, ctx.clock.now());
      printNewKey(ctx, k, { replacedPrefix: k.replacedPrefix });
    };
  } else if (sub === "revoke") {
    const prefix = prefixArg(args, sub, "org");
    const orgId = args.string("org");
    action = async (db) => {
      if (orgId !== undefined) {
        await requireOrganisation(db, orgId);
        const r = await revokeKeyForOrg(db, { prefix, orgId, byUserId: null }, ctx.clock.now());
        ctx.print(
          { ...r, orgId },
          r.revoked === "key"
            ? `Revoked ${r.prefix} ("${r.label}") at ${r.revokedAt}`
            : `Revoked ${r.prefix} ("${r.label}") for ${orgId} at ${r.revokedAt}; it keeps its other organisations`,
        );
        return;
      }
      const k = await revokeApiKey(db, prefix, ctx.clock.now());
      ctx.print(
        { prefix: k.prefix, status: k.status, revokedAt: k.revokedAt },
        `Revoked ${k.prefix} ("${k.label}") at ${k.revokedAt}`,
      );
    };
  } else {
    throw new UsageError(`unknown subcommand "keys ${sub}" (expected: ${SUBCOMMANDS})`);
  }
  const database = await ctx.openDatabase();
  try {
    await action(database.db);
  } finally {
    await database.close();
  }
}
