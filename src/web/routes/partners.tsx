import type { Hono } from "hono";
import type { AppEnv } from "../../http/env.ts";
import { ServiceError } from "../../services/errors.ts";
import { createApiKey } from "../../services/keys/create-api-key.ts";
import { listPartnerKeys } from "../../services/keys/govern-keys.ts";
import {
  listPartnerClients,
  listPartnersLinkedTo,
  orgNamesById,
} from "../../services/partners/list-links.ts";
import {
  addPartnerOwner,
  linkPartner,
  listPartnerOwners,
  listPartnersOwnedBy,
  removePartnerOwner,
  transferPartner,
  unlinkPartner,
} from "../../services/partners/partners.ts";
import { can } from "../../services/web-auth/roles.ts";
import type { WebDeps } from "../deps.ts";
import { KeySecretPage } from "../pages/keys.tsx";
import { type OwnPartnerView, PartnersPage } from "../pages/partners.tsx";
import { renderPage } from "../render.ts";
import {
  readForm,
  requireRight,
  requireView,
  verifyCsrf,
  verifyOrgForm,
  type WebContext,
  WebError,
  type WebView,
} from "../request.ts";

const PREFIX = /^[0-9a-hjkmnp-tv-z]{10}$/;

/** Notices after a redirect, by code (never free text from the URL). */
const NOTICES: Record<string, string> = {
  linked: "Partner linked: its keys reach this organisation as their reach allows.",
  unlinked: "Partner unlinked: none of its keys reaches this organisation any more.",
  "owner-added": "Owner added.",
  "owner-removed": "Owner removed: the partner keys they created have stopped working.",
  transferred: "Partner transferred: the partner keys you created have stopped working.",
};

/**
 * Settings → Partners: the partners linked to the current organisation (owners and admins link
 * and unlink them), and the partners the user owns (owners, clients, keys).
 */
export function registerPartnerRoutes(web: Hono<AppEnv>, deps: WebDeps): void {
  const { db, clock } = deps;

  const ownPartners = async (view: WebView): Promise<OwnPartnerView[]> => {
    const owned = await listPartnersOwnedBy(db, view.session.userId);
    return Promise.all(
      owned.map(async (partner) => {
        const [owners, clients, keys] = await Promise.all([
          listPartnerOwners(db, partner.id),
          listPartnerClients(db, partner.id),
          listPartnerKeys(db, partner.id),
        ]);
        const pinned = keys.flatMap((k) => k.pinnedOrgIds ?? []);
        return { partner, owners, clients, keys, orgNames: await orgNamesById(db, pinned) };
      }),
    );
  };

  const renderPartners = async (
    c: WebContext,
    view: WebView,
    extra: { notice?: string | undefined; error?: string; status?: 200 | 400 | 404 } = {},
  ) => {
    const linkedToOrg =
      view.org && can(view.org.role, "partners.view")
        ? await listPartnersLinkedTo(db, view.org.id)
        : null;
    return renderPage(
      c,
      <PartnersPage
        view={view}
        linkedToOrg={linkedToOrg}
        canManageLinks={can(view.org?.role, "partners.manage")}
        own={await ownPartners(view)}
        notice={extra.notice}
        error={extra.error}
      />,
      extra.status ?? 200,
    );
  };

  /** A service refusal (unknown partner or user, last owner) shown on the page, not as a crash. */
  const refused = (c: WebContext, view: WebView, err: unknown) => {
    if (err instanceof ServiceError && err.status < 500) {
      return renderPartners(c, view, {
        error: err.message,
        status: err.status === 404 ? 404 : 400,
      });
    }
    throw err;
  };

  /** The partner of the path, when the signed-in user owns it; else 404. */
  const ownedPartner = async (view: WebView, partnerId: string) => {
    const owned = await listPartnersOwnedBy(db, view.session.userId);
    const partner = owned.find((p) => p.id === partnerId);
    if (!partner) throw new WebError(404, "Not found", "No such partner.");
    return partner;
  };

  web.get("/settings/partners", async (c) => {
    const view = await requireView(c, db, clock.now());
    const revoked = c.req.query("revoked");
    const code = c.req.query("notice");
    return renderPartners(c, view, {
      notice:
        revoked && PREFIX.test(revoked)
          ? `Key ${revoked} revoked.`
          : code && Object.hasOwn(NOTICES, code)
            ? NOTICES[code]
            : undefined,
    });
  });

  // Links are the organisation's decision: its owners and admins make and remove them.
  web.post("/settings/partners/link", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "partners.manage");
    const partnerId = (form.get("partnerId") ?? "").trim();
    if (!partnerId) throw new WebError(400, "Bad request", "Give the partner's id.");
    try {
      await linkPartner(db, partnerId, org.id, clock.now());
    } catch (err) {
      return refused(c, view, err);
    }
    c.get("logger").info(
      { orgId: org.id, partnerId, userId: view.session.userId },
      "web partner linked",
    );
    return c.redirect("/settings/partners?notice=linked", 303);
  });

  web.post("/settings/partners/:partnerId/unlink", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "partners.manage");
    const partnerId = c.req.param("partnerId");
    const linked = await listPartnersLinkedTo(db, org.id);
    if (!linked.some((p) => p.partnerId === partnerId)) {
      throw new WebError(404, "Not found", "No such partner is linked to this organisation.");
    }
    await unlinkPartner(db, partnerId, org.id);
    c.get("logger").info(
      { orgId: org.id, partnerId, userId: view.session.userId },
      "web partner unlinked",
    );
    return c.redirect("/settings/partners?notice=unlinked", 303);
  });

  // The partner's own business: its owners create keys and manage who owns it.
  web.post("/settings/partners/:partnerId/keys", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyCsrf(c, view, form);
    const partner = await ownedPartner(view, c.req.param("partnerId"));
    const pinned = form.get("reach") === "PINNED" ? form.getAll("pinned") : undefined;
    let created: Awaited<ReturnType<typeof createApiKey>>;
    try {
      created = await createApiKey(
        db,
        {
          kind: "PARTNER",
          partnerId: partner.id,
          label: form.get("label") ?? "",
          ...(pinned ? { pinnedOrgIds: pinned } : {}),
          createdByUserId: view.session.userId,
        },
        clock.now(),
      );
    } catch (err) {
      return refused(c, view, err);
    }
    c.get("logger").info(
      { keyPrefix: created.prefix, partnerId: partner.id, userId: view.session.userId },
      "web partner key created",
    );
    c.header("Cache-Control", "no-store");
    return renderPage(
      c,
      <KeySecretPage
        view={view}
        title="Partner key created"
        secret={created.key}
        label={created.label}
        scopes={created.scopes}
        backHref="/settings/partners"
      />,
    );
  });

  web.post("/settings/partners/:partnerId/owners", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyCsrf(c, view, form);
    const partner = await ownedPartner(view, c.req.param("partnerId"));
    try {
      await addPartnerOwner(
        db,
        { partnerId: partner.id, email: form.get("email") ?? "" },
        clock.now(),
      );
    } catch (err) {
      return refused(c, view, err);
    }
    c.get("logger").info(
      { partnerId: partner.id, userId: view.session.userId },
      "web partner owner added",
    );
    return c.redirect("/settings/partners?notice=owner-added", 303);
  });

  web.post("/settings/partners/:partnerId/owners/:userId/remove", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyCsrf(c, view, form);
    const partner = await ownedPartner(view, c.req.param("partnerId"));
    const userId = c.req.param("userId");
    try {
      await removePartnerOwner(db, { partnerId: partner.id, userId });
    } catch (err) {
      return refused(c, view, err);
    }
    // Their keys stop here at once (other instances: within a poll of the auth epoch).
    deps.keyCache?.clear();
    c.get("logger").info(
      { partnerId: partner.id, removedUserId: userId, userId: view.session.userId },
      "web partner owner removed",
    );
    return c.redirect("/settings/partners?notice=owner-removed", 303);
  });

  web.post("/settings/partners/:partnerId/transfer", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyCsrf(c, view, form);
    const partner = await ownedPartner(view, c.req.param("partnerId"));
    let moved: Awaited<ReturnType<typeof transferPartner>>;
    try {
      moved = await transferPartner(
        db,
        {
          partnerId: partner.id,
          fromUserId: view.session.userId,
          toEmail: form.get("email") ?? "",
        },
        clock.now(),
      );
    } catch (err) {
      return refused(c, view, err);
    }
    deps.keyCache?.clear();
    c.get("logger").info(
      { partnerId: partner.id, toUserId: moved.toUserId, userId: view.session.userId },
      "web partner transferred",
    );
    return c.redirect("/settings/partners?notice=transferred", 303);
  });
}
