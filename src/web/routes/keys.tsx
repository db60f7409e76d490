import type { Hono } from "hono";
import type { Db } from "../../db/client.ts";
import type { ApiKeyRow } from "../../db/queries/api-keys.ts";
import type { AppEnv } from "../../http/env.ts";
import { listAuditEvents } from "../../services/audit/list-audit-events.ts";
import { InvalidParameterError } from "../../services/errors.ts";
import { createApiKey } from "../../services/keys/create-api-key.ts";
import {
  listOrgKeyReach,
  revokeKeyForOrg,
  setSensitiveKeyRestriction,
  withOrgRevocations,
} from "../../services/keys/govern-keys.ts";
import { type ApiKeySummary, toApiKeySummary } from "../../services/keys/key-views.ts";
import { keyByPrefix, listOrgKeys, listOwnUserKeys } from "../../services/keys/list-own-keys.ts";
import { revokeApiKey } from "../../services/keys/revoke-api-key.ts";
import { rotateApiKey } from "../../services/keys/rotate-api-key.ts";
import { orgNamesById } from "../../services/partners/list-links.ts";
import { isPartnerOwner } from "../../services/partners/partners.ts";
import { can } from "../../services/web-auth/roles.ts";
import type { WebDeps } from "../deps.ts";
import { AuditPage } from "../pages/audit.tsx";
import {
  ConfirmKeyActionPage,
  type CreateKeyForm,
  holderText,
  type KeyGovernanceView,
  KeySecretPage,
  KeysPage,
  type SensitiveRule,
} from "../pages/keys.tsx";
import { renderPage } from "../render.ts";
import {
  type CurrentOrg,
  readForm,
  requireRight,
  requireView,
  verifyCsrf,
  verifyOrgForm,
  type WebContext,
  WebError,
  type WebForm,
  type WebView,
} from "../request.ts";

const PREFIX = /^[0-9a-hjkmnp-tv-z]{10}$/;

/** A key as the viewer may see it: `manage` when they may also rotate or revoke it. */
interface ViewerKey {
  row: ApiKeyRow;
  summary: ApiKeySummary;
  manage: boolean;
  /** Where the key is listed: the keys page, or the partners page for partner keys. */
  home: string;
  timezone: string;
}

const NOT_FOUND = () => new WebError(404, "Not found", "No such key.");

/**
 * The key a prefix names, when the viewer may see it:
 * - organisation key: members of its organisation with `keys.view` (manage: `keys.manage`);
 * - USER key: its creator only;
 * - PARTNER key: the partner's owners.
 * (An organisation's owner sees every key reaching it on the keys page and revokes them for the
 * organisation through `governedKey`.)
 * Anything else answers 404, the same as an unknown prefix, so other organisations' keys are
 * neither shown nor confirmed to exist.
 */
async function keyForViewer(db: Db, view: WebView, prefix: string): Promise<ViewerKey> {
  if (!PREFIX.test(prefix)) throw NOT_FOUND();
  const row = await keyByPrefix(db, prefix);
  if (!row) throw NOT_FOUND();
  const summary = toApiKeySummary(row);
  const timezone = view.org?.timezone ?? "UTC";
  if (row.kind === "ORG") {
    const membership = view.memberships.find((m) => m.orgId === row.orgId);
    if (!membership || !can(membership.role, "keys.view")) throw NOT_FOUND();
    return {
      row,
      summary,
      manage: can(membership.role, "keys.manage"),
      home: "/settings/keys",
      timezone,
    };
  }
  if (row.kind === "USER") {
    if (row.createdByUserId !== view.session.userId) throw NOT_FOUND();
    return { row, summary, manage: true, home: "/settings/keys", timezone };
  }
  // Any owner of the partner sees and revokes every key of it.
  if (!row.partnerId || !(await isPartnerOwner(db, row.partnerId, view.session.userId))) {
    throw NOT_FOUND();
  }
  return { row, summary, manage: true, home: "/settings/partners", timezone };
}

function requireManage(key: ViewerKey): void {
  if (!key.manage) {
    throw new WebError(
      403,
      "Not allowed",
      "Your role can view this key but not rotate or revoke it.",
    );
  }
}

/**
 * An organisation key is rotated or revoked in its organisation's name: the form must carry that
 * organisation (`_org`), which must be the one now selected (see verifyOrgForm).
 */
function requireOrgOfKey(c: WebContext, view: WebView, form: WebForm, key: ViewerKey): void {
  if (key.row.kind !== "ORG") return;
  const org = verifyOrgForm(c, view, form);
  if (org.id !== key.row.orgId) throw NOT_FOUND();
}

/**
 * Who may tick "Include sensitive data" in this organisation (see SensitiveRule): the same rule
 * `createApiKey` enforces for personal keys (`mintedInOrgId`).
 */
function sensitiveRule(org: CurrentOrg): SensitiveRule {
  const personalRefusal = !can(org.role, "keys.sensitive")
    ? `only owners and admins may give a personal key READ_SENSITIVE (you are a ${org.role} of ${org.name}).`
    : org.restrictSensitiveToOrgKeys
      ? `${org.name} allows READ_SENSITIVE only on organisation keys (its owner's setting).`
      : null;
  return { org: can(org.role, "keys.manage"), personalRefusal };
}

function noStore(c: WebContext): void {
  c.header("Cache-Control", "no-store");
}

/** Settings → API keys: list, create, rotate, revoke, audit. */
export function registerKeyRoutes(web: Hono<AppEnv>, deps: WebDeps): void {
  const { db, clock } = deps;

  const renderKeys = async (
    c: WebContext,
    view: WebView,
    extra: {
      notice?: string | undefined;
      error?: string;
      form?: CreateKeyForm;
      status?: 200 | 400 | 403;
    } = {},
  ) => {
    const org = requireRight(view, "keys.view");
    const [orgKeys, userKeys, governance] = await Promise.all([
      listOrgKeys(db, org.id),
      listOwnUserKeys(db, view.session.userId).then((keys) => withOrgRevocations(db, keys)),
      can(org.role, "keys.govern") ? keyGovernance(org.id) : null,
    ]);
    return renderPage(
      c,
      <KeysPage
        view={view}
        org={org}
        canManageOrgKeys={can(org.role, "keys.manage")}
        sensitiveRule={sensitiveRule(org)}
        orgKeys={orgKeys}
        userKeys={userKeys}
        governance={governance}
        notice={extra.notice}
        error={extra.error}
        form={extra.form}
      />,
      extra.status ?? 200,
    );
  };

  const keyGovernance = async (orgId: string): Promise<KeyGovernanceView> => {
    const reach = await listOrgKeyReach(db, orgId);
    const pinned = reach.keys.flatMap((k) => k.pinnedOrgIds ?? []);
    return { reach, orgNames: await orgNamesById(db, pinned) };
  };

  /** A key reaching the current organisation, for its owner to revoke here; else 404. */
  const governedKey = async (view: WebView, prefix: string) => {
    const org = requireRight(view, "keys.govern");
    if (!PREFIX.test(prefix)) throw NOT_FOUND();
    const reach = await listOrgKeyReach(db, org.id);
    const key = reach.keys.find((k) => k.prefix === prefix);
    if (!key) throw NOT_FOUND();
    if (key.statusHere === "revoked" || key.statusHere === "revoked_here") {
      throw new WebError(409, "Already revoked", "This key is already revoked here.");
    }
    return { org, key };
  };

  web.get("/settings", (c) => c.redirect("/settings/keys", 303));

  web.get("/settings/keys", async (c) => {
    const view = await requireView(c, db, clock.now());
    const revoked = c.req.query("revoked");
    const here = c.req.query("revokedHere");
    const setting = c.req.query("sensitive");
    const org = view.org?.name ?? "this organisation";
    const notice =
      revoked && PREFIX.test(revoked)
        ? `Key ${revoked} revoked.`
        : here && PREFIX.test(here)
          ? `Key ${here} revoked for ${org}; it no longer reaches it.`
          : setting === "restricted"
            ? `Personal and partner keys read ${org} without READ_SENSITIVE from their next request.`
            : setting === "allowed"
              ? `Personal keys of owners and admins, and partner keys, may use READ_SENSITIVE in ${org} again.`
              : undefined;
    return renderKeys(c, view, { notice });
  });

  web.post("/settings/keys", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const kind = form.get("kind");
    if (kind !== "ORG" && kind !== "USER") {
      throw new WebError(400, "Bad request", "Choose the kind of key: organisation or personal.");
    }
    const org = requireRight(view, kind === "ORG" ? "keys.manage" : "keys.own");
    const input: CreateKeyForm = {
      kind,
      label: form.get("label") ?? "",
      scopes: form.getAll("scopes"),
      sensitive: form.get("sensitive") === "on",
    };
    const refusal = kind === "USER" ? sensitiveRule(org).personalRefusal : null;
    if (input.sensitive && refusal) {
      return renderKeys(c, view, {
        error: `Not created: ${refusal}`,
        form: { ...input, sensitive: false },
        status: 403,
      });
    }
    try {
      // createApiKey refuses READ_SENSITIVE among the scopes: only the separate box grants it.
      const created = await createApiKey(
        db,
        kind === "ORG"
          ? {
              kind,
              orgId: org.id,
              label: input.label,
              scopes: input.scopes,
              sensitive: input.sensitive,
            }
          : {
              kind,
              userId: view.session.userId,
              label: input.label,
              scopes: input.scopes,
              sensitive: input.sensitive,
              mintedInOrgId: org.id,
            },
        clock.now(),
      );
      c.get("logger").info(
        { keyPrefix: created.prefix, kind, userId: view.session.userId },
        "web key created",
      );
      noStore(c);
      return renderPage(
        c,
        <KeySecretPage
          view={view}
          title="Key created"
          secret={created.key}
          label={created.label}
          scopes={created.scopes}
          backHref="/settings/keys"
        />,
      );
    } catch (err) {
      if (err instanceof InvalidParameterError) {
        return renderKeys(c, view, { error: err.message, form: input, status: 400 });
      }
      throw err;
    }
  });

  web.get("/settings/keys/:prefix/audit", async (c) => {
    const view = await requireView(c, db, clock.now());
    const key = await keyForViewer(db, view, c.req.param("prefix"));
    const cursor = c.req.query("cursor");
    const page = await listAuditEvents(db, { keyId: key.row.id, cursor });
    const orgIds = [
      ...new Set(page.events.map((e) => e.orgId).filter((id): id is string => id !== null)),
    ];
    const orgNames = await orgNamesById(db, orgIds);
    return renderPage(
      c,
      <AuditPage
        view={view}
        k={key.summary}
        events={page.events}
        nextCursor={page.nextCursor}
        firstPage={!cursor}
        timezone={key.timezone}
        orgNames={orgNames}
        backHref={key.home}
      />,
    );
  });

  for (const action of ["rotate", "revoke"] as const) {
    web.get(`/settings/keys/:prefix/${action}`, async (c) => {
      const view = await requireView(c, db, clock.now());
      const key = await keyForViewer(db, view, c.req.param("prefix"));
      requireManage(key);
      if (key.row.revokedAt)
        throw new WebError(409, "Already revoked", "This key is already revoked.");
      if (action === "rotate" && key.row.family !== "cr_live") {
        throw new WebError(
          409,
          "No rotate for crun_ keys",
          "crun_ keys have no rotate operation: create the replacement, deploy and check it, then revoke the old key.",
        );
      }
      return renderPage(
        c,
        <ConfirmKeyActionPage view={view} k={key.summary} action={action} backHref={key.home} />,
      );
    });
  }

  web.post("/settings/keys/:prefix/rotate", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyCsrf(c, view, form);
    const key = await keyForViewer(db, view, c.req.param("prefix"));
    requireManage(key);
    requireOrgOfKey(c, view, form, key);
    const rotated = await rotateApiKey(db, key.row.prefix, clock.now());
    deps.keyCache?.clear(); // the old key stops here at once (other instances: within a poll)
    c.get("logger").info(
      { keyPrefix: rotated.prefix, replaced: rotated.replacedPrefix },
      "web key rotated",
    );
    noStore(c);
    return renderPage(
      c,
      <KeySecretPage
        view={view}
        title="Key rotated"
        secret={rotated.key}
        label={rotated.label}
        scopes={rotated.scopes}
        replacedPrefix={rotated.replacedPrefix}
        backHref={key.home}
      />,
    );
  });

  web.get("/settings/keys/:prefix/revoke-here", async (c) => {
    const view = await requireView(c, db, clock.now());
    const { org, key } = await governedKey(view, c.req.param("prefix"));
    return renderPage(
      c,
      <ConfirmKeyActionPage
        view={view}
        k={key}
        action="revoke-here"
        backHref="/settings/keys"
        here={{ org, holder: holderText(key) }}
      />,
    );
  });

  web.post("/settings/keys/:prefix/revoke-here", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const { org, key } = await governedKey(view, c.req.param("prefix"));
    const revoked = await revokeKeyForOrg(
      db,
      { prefix: key.prefix, orgId: org.id, byUserId: view.session.userId },
      clock.now(),
    );
    deps.keyCache?.clear(); // an organisation key stops here at once (others: within a poll)
    c.get("logger").info(
      {
        keyPrefix: revoked.prefix,
        orgId: org.id,
        revoked: revoked.revoked,
        userId: view.session.userId,
      },
      "web key revoked for organisation",
    );
    return c.redirect(
      revoked.revoked === "key"
        ? `/settings/keys?revoked=${revoked.prefix}`
        : `/settings/keys?revokedHere=${revoked.prefix}`,
      303,
    );
  });

  web.post("/settings/keys/sensitive-restriction", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "keys.govern");
    const value = form.get("restrict");
    if (value !== "on" && value !== "off") {
      throw new WebError(400, "Bad request", "The form is incomplete.");
    }
    await setSensitiveKeyRestriction(db, {
      orgId: org.id,
      restrictSensitiveToOrgKeys: value === "on",
    });
    c.get("logger").info(
      { orgId: org.id, restrictSensitiveToOrgKeys: value === "on", userId: view.session.userId },
      "web sensitive key setting",
    );
    return c.redirect(`/settings/keys?sensitive=${value === "on" ? "restricted" : "allowed"}`, 303);
  });

  web.post("/settings/keys/:prefix/revoke", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyCsrf(c, view, form);
    const key = await keyForViewer(db, view, c.req.param("prefix"));
    requireManage(key);
    requireOrgOfKey(c, view, form, key);
    const revoked = await revokeApiKey(db, key.row.prefix, clock.now());
    deps.keyCache?.clear(); // stops here at once (other instances: within a poll)
    c.get("logger").info({ keyPrefix: revoked.prefix }, "web key revoked");
    return c.redirect(`${key.home}?revoked=${revoked.prefix}`, 303);
  });
}
