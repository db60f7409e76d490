import { z } from "zod";
import type { DbOrTx } from "../../db/client.ts";
import { insertApiKey } from "../../db/queries/api-keys.ts";
import {
  findOrgOwnerUserId,
  findPartner,
  linkedOrgIds,
  membershipsForKeyRules,
  partnerOwnerIds,
  userExists,
} from "../../db/queries/tenancy.ts";
import type { KeyKind, KeyReach } from "../../db/schema/index.ts";
import { newId } from "../../domain/ids.ts";
import { roleMayHoldSensitive, sensitiveApplies } from "../../domain/key-governance.ts";
import { digestSecret, generateApiKey, keyFamilyForKind } from "../../domain/keys.ts";
import { PARTNER_SCOPES, SCOPES, type Scope } from "../../domain/scopes.ts";
import { InvalidParameterError, NotFoundError, ServiceError } from "../errors.ts";

const LabelSchema = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(200, "at most 200 characters");

/**
 * Capability scopes picked at creation. READ_SENSITIVE is refused here on purpose: it is granted
 * only through the separate, default-off `sensitive` option, so it is never picked by accident
 * (e.g. by pasting "all scopes").
 */
const ScopeListSchema = z
  .array(z.enum(SCOPES))
  .min(1, "pick at least one scope")
  .refine((s) => !s.includes("READ_SENSITIVE"), {
    message: "READ_SENSITIVE is granted only through the sensitive option",
  });

export const CreateApiKeyInputSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("ORG"),
    orgId: z.string().min(1),
    label: LabelSchema,
    scopes: ScopeListSchema,
    sensitive: z.boolean().default(false),
  }),
  z.object({
    kind: z.literal("USER"),
    userId: z.string().min(1),
    label: LabelSchema,
    scopes: ScopeListSchema,
    sensitive: z.boolean().default(false),
    mintedInOrgId: z.string().min(1).optional(),
  }),
  z.object({
    kind: z.literal("PARTNER"),
    partnerId: z.string().min(1),
    label: LabelSchema,
    /** Absent: reach follows every live link. Present: pinned to these (currently linked) orgs. */
    pinnedOrgIds: z.array(z.string().min(1)).min(1, "pin at least one organisation").optional(),
    createdByUserId: z.string().min(1).optional(),
  }),
]);

/**
 * ORG: a `cr_live_` key of one organisation, created by its owner. USER: a `crun_` key reaching
 * the user's organisations. PARTNER: a `crun_` full-access key reaching the partner's linked
 * clients (all of them, live, or a pinned subset). Scopes are strings so that callers such as the
 * CLI get one validation with a message naming the bad entry.
 */
export type CreateApiKeyInput =
  | { kind: "ORG"; orgId: string; label: string; scopes: readonly string[]; sensitive?: boolean }
  | {
      kind: "USER";
      userId: string;
      label: string;
      scopes: readonly string[];
      sensitive?: boolean;
      /**
       * The organisation the key is minted from (the settings screen's current one): with
       * `sensitive`, the user must be an owner or admin there and the organisation must allow
       * READ_SENSITIVE on personal keys. Absent (the CLI): in at least one organisation.
       */
      mintedInOrgId?: string;
    }
  | {
      kind: "PARTNER";
      partnerId: string;
      label: string;
      pinnedOrgIds?: readonly string[];
      /** The owner of the partner who creates it; absent: the partner's only owner. */
      createdByUserId?: string;
    };

/** The created key. `key` is the only copy of the secret: show it once, never log or store it. */
export interface CreatedApiKey {
  id: string;
  key: string;
  prefix: string;
  kind: KeyKind;
  family: "cr_live" | "crun";
  label: string;
  scopes: Scope[];
  reach: KeyReach;
  orgId: string | null;
  partnerId: string | null;
  pinnedOrgIds: string[] | null;
  createdByUserId: string;
}

/** The columns a new key row needs besides its id, prefix and digest. */
export interface KeyTemplate {
  kind: KeyKind;
  label: string;
  scopes: Scope[];
  reach: KeyReach;
  orgId: string | null;
  partnerId: string | null;
  pinnedOrgIds: string[] | null;
  createdByUserId: string;
}

const MAX_PREFIX_ATTEMPTS = 5;

/**
 * Inserts a key row for `template` with a fresh secret, drawing a new prefix on the (50-bit,
 * practically impossible) collision. Shared by create and rotate.
 */
export async function insertNewKey(
  db: DbOrTx,
  template: KeyTemplate,
  now: Date,
): Promise<CreatedApiKey> {
  const family = keyFamilyForKind(template.kind);
  for (let attempt = 0; attempt < MAX_PREFIX_ATTEMPTS; attempt++) {
    const generated = generateApiKey(family);
    const id = newId("key");
    const inserted = await insertApiKey(db, {
      id,
      family,
      prefix: generated.prefix,
      secretDigest: digestSecret(generated.secret),
      ...template,
      createdAt: now,
    });
    if (inserted) return { id, key: generated.key, prefix: generated.prefix, family, ...template };
  }
  throw new ServiceError("internal_error", "Could not allocate a unique key prefix.");
}

function invalid(error: z.ZodError): InvalidParameterError {
  const issue = error.issues[0];
  const parameter = String(issue?.path[0] ?? "input");
  return new InvalidParameterError(
    parameter,
    `${issue?.path.join(".") || parameter}: ${issue?.message}`,
  );
}

/**
 * Creates an API key. The creator is the organisation's owner (ORG), the user (USER), or an owner
 * of the partner (PARTNER). READ_SENSITIVE is added only with `sensitive: true` and can never be
 * added to an existing key; on a personal key only an owner or admin may ask for it
 * (`requireSensitiveRight`). Pinned organisations must be linked to the partner now.
 */
export async function createApiKey(
  db: DbOrTx,
  rawInput: CreateApiKeyInput,
  now: Date,
): Promise<CreatedApiKey> {
  const parsed = CreateApiKeyInputSchema.safeParse(rawInput);
  if (!parsed.success) throw invalid(parsed.error);
  const input = parsed.data;

  return db.transaction(async (tx) => {
    if (input.kind === "ORG") {
      const owner = await findOrgOwnerUserId(tx, input.orgId);
      if (!owner) throw new NotFoundError(`organisation ${input.orgId}`);
      return insertNewKey(
        tx,
        {
          kind: "ORG",
          label: input.label,
          scopes: withSensitive(input.scopes, input.sensitive),
          reach: "OWN_ORG",
          orgId: input.orgId,
          partnerId: null,
          pinnedOrgIds: null,
          createdByUserId: owner,
        },
        now,
      );
    }
    if (input.kind === "USER") {
      if (!(await userExists(tx, input.userId))) throw new NotFoundError(`user ${input.userId}`);
      if (input.sensitive) await requireSensitiveRight(tx, input.userId, input.mintedInOrgId);
      return insertNewKey(
        tx,
        {
          kind: "USER",
          label: input.label,
          scopes: withSensitive(input.scopes, input.sensitive),
          reach: "USER_MEMBERSHIPS",
          orgId: null,
          partnerId: null,
          pinnedOrgIds: null,
          createdByUserId: input.userId,
        },
        now,
      );
    }
    const partner = await findPartner(tx, input.partnerId);
    if (!partner) throw new NotFoundError(`partner ${input.partnerId}`);
    const creator = await partnerKeyCreator(tx, partner.id, input.createdByUserId);
    let pinned: string[] | null = null;
    if (input.pinnedOrgIds) {
      pinned = [...new Set(input.pinnedOrgIds)];
      const linked = new Set(await linkedOrgIds(tx, partner.id, pinned));
      const notLinked = pinned.filter((id) => !linked.has(id));
      if (notLinked.length > 0) {
        throw new InvalidParameterError(
          "pinnedOrgIds",
          `pinnedOrgIds: not linked to partner ${partner.id}: ${notLinked.join(", ")}`,
        );
      }
    }
    return insertNewKey(
      tx,
      {
        kind: "PARTNER",
        label: input.label,
        scopes: [...PARTNER_SCOPES],
        reach: pinned ? "PINNED" : "ALL_LINKED",
        orgId: null,
        partnerId: partner.id,
        pinnedOrgIds: pinned,
        createdByUserId: creator,
      },
      now,
    );
  });
}

/**
 * Only owners and admins may mint a personal key with READ_SENSITIVE, in an organisation that
 * does not restrict it to organisation keys: `orgId` when given (the screen's organisation),
 * else at least one of the user's organisations. (Where the user is not, or stops being, an owner
 * or admin, the key reads without it: `sensitiveApplies`.)
 */
async function requireSensitiveRight(
  db: DbOrTx,
  userId: string,
  orgId: string | undefined,
): Promise<void> {
  const rows = await membershipsForKeyRules(db, userId);
  const where = orgId === undefined ? rows : rows.filter((r) => r.orgId === orgId);
  if (where.some((r) => sensitiveApplies({ kind: "USER", ...r, creatorRole: r.role }))) return;
  const mayHold = where.some((r) => roleMayHoldSensitive(r.role));
  throw new SensitiveNotAllowedError(
    mayHold
      ? `sensitive: ${orgId === undefined ? "every organisation of this user" : "this organisation"} restricts READ_SENSITIVE to organisation keys`
      : `sensitive: only owners and admins may create a personal key with READ_SENSITIVE (this user is ${orgId === undefined ? "an owner or admin of no organisation" : "not an owner or admin here"})`,
  );
}

/** Refused: the creator may not hold READ_SENSITIVE (see requireSensitiveRight). */
class SensitiveNotAllowedError extends InvalidParameterError {
  constructor(message: string) {
    super("sensitive", message);
  }
}

/**
 * The user a partner key is created by: `requested` when it owns the partner, else (absent) the
 * partner's only owner. A partner key works only while its creator owns the partner.
 */
async function partnerKeyCreator(
  db: DbOrTx,
  partnerId: string,
  requested: string | undefined,
): Promise<string> {
  const owners = await partnerOwnerIds(db, partnerId);
  if (requested !== undefined) {
    if (!owners.includes(requested)) {
      throw new InvalidParameterError(
        "createdByUserId",
        `createdByUserId: ${requested} is not an owner of partner ${partnerId}`,
      );
    }
    return requested;
  }
  const [only, second] = owners;
  if (!only || second) {
    throw new InvalidParameterError(
      "createdByUserId",
      `createdByUserId: partner ${partnerId} has ${owners.length} owners: say which one creates the key`,
    );
  }
  return only;
}

/** Scopes in the canonical SCOPES order, deduplicated, plus READ_SENSITIVE when asked for. */
function withSensitive(scopes: readonly Scope[], sensitive: boolean): Scope[] {
  const wanted = new Set<Scope>(scopes);
  if (sensitive) wanted.add("READ_SENSITIVE");
  return SCOPES.filter((s) => wanted.has(s));
}
