import { isKeyPrefix } from "../../domain/keys.ts";
import { parseScopeList, SCOPES, type Scope } from "../../domain/scopes.ts";
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
import { type CliContext, defineCommand } from "../command.ts";

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

/** `keys create|list|rotate|revoke`: API key management (the settings screen's CLI twin). */
export const keysCommand = defineCommand({
  name: "keys",
  summary: "API keys for agents: create (the secret is shown once), list, rotate, revoke",
  flags: {
    org: {
      value: "ID",
      description:
        "create: the organisation the key reads (an organisation key); list: every key reaching it; revoke: for it only",
    },
    user: {
      value: "ID",
      description: "create: a user key, reaching every organisation the user belongs to",
    },
    partner: {
      value: "ID",
      description: "create: a partner key, reaching the partner's linked organisations",
    },
    label: { value: "L", description: "a name for the key, shown in lists and audit trails" },
    scopes: {
      value: "A,B",
      description: `comma-separated scopes (${SCOPES.filter((s) => s !== "READ_SENSITIVE").join(", ")}); partner keys have every scope`,
      choices: SCOPES.filter((s) => s !== "READ_SENSITIVE"),
    },
    sensitive: {
      description: "also grant READ_SENSITIVE: rows and names flagged sensitive become visible",
    },
    pinned: {
      value: "ORG,ORG",
      description: "partner keys: reach only these linked organisations instead of all of them",
    },
    owner: {
      value: "USER_ID",
      description:
        "partner keys: the owner of the partner who creates it (default: its only owner); the key works while they own it",
    },
  },
  subcommands: [
    {
      name: "create",
      summary: "a key for an organisation, a user or a partner; prints the secret once",
      usage: [
        "keys create --org ID --label L --scopes A,B [--sensitive]",
        "keys create --user ID --label L --scopes A,B [--sensitive]",
        "keys create --partner ID --label L [--pinned ORG,ORG] [--owner USER_ID]",
      ],
      flags: ["org", "user", "partner", "label", "scopes", "sensitive", "pinned", "owner"],
      examples: [
        'keys create --org org_tpxprxz2g0095ksv8z2r --label "Month-end agent" --scopes READ_BANK,READ_FORECAST',
        'keys create --partner prt_4k8m2q9x7v5b3n6c1d0f --label "Bookkeeper" --pinned org_tpxprxz2g0095ksv8z2r,org_7f3p2r5th5hb36m07w5v',
      ],
    },
    {
      name: "list",
      summary: "every key with its status, scopes and last use (--org: every key reaching it)",
      usage: ["keys list [--org ID]"],
      flags: ["org"],
      examples: ["keys list --org org_tpxprxz2g0095ksv8z2r --json"],
    },
    {
      name: "rotate",
      summary: "a new secret for a cr_live_ key; the old one stops working at once",
      usage: [
        "keys rotate PREFIX          (cr_live_ keys; crun_ keys: create the new one, then revoke)",
      ],
      flags: [],
      examples: ["keys rotate 7hq2m9x4ta"],
    },
    {
      name: "revoke",
      summary:
        "stops a key for good (every instance refuses it within its poll), or for one organisation",
      usage: ["keys revoke PREFIX [--org ID]"],
      flags: ["org"],
      examples: ["keys revoke 7hq2m9x4ta", "keys revoke 7hq2m9x4ta --org org_tpxprxz2g0095ksv8z2r"],
    },
  ],
  async run(args, ctx) {
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
          ...(reach.keys.length
            ? reach.keys.map(governedRow)
            : ["No keys reach this organisation."]),
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
  },
});
