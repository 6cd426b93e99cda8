/**
 * The diff rules of a KvmServer: pure, no network. Every input is in exactly one of three classes, and two
 * states of the server itself count as a change: a suspension, and a server missing from the listing (STATUS_DRIFT).
 */
import { normalizeBillingCycle } from "../client/model";
import { INPUT_NAMES, UNKNOWN, sameHostname } from "./inputs";

/** Changing these needs a different server: a new order (create before delete) and a cancel of the old. */
export const REPLACE_ON_CHANGE = [
    "osId",
    "hostname",
    "locationId",
    "additionalRamId",
    "additionalVcpuId",
    "additionalIpId",
    "diskBoostId",
    "sshPublicKey",
    "adoptKvmId",
] as const;

/** Changed in place through add/upgrade (EDIS resizes within a location). */
export const UPGRADE_IN_PLACE = ["planId", "billingCycle"] as const;

// The rest change in place without an order: powerState through the Management API (unset: not managed, never
// differs); paymentMethod, applyCredit, cancellationType, provisioningTimeoutSeconds and replaceOnPlanChange are
// recorded in state only, as they matter at order or cancel time.

/**
 * With `replaceOnPlanChange: true`, a change of planId replaces the server instead of an in-place add/upgrade, which EDIS
 * makes only within a location. This is an input, not the `replaceOnChanges` resource option, because the engine applies
 * that option only to keys that the provider's own Diff reports, and the dynamic-provider host reports none: for a
 * dynamic resource `replaceOnChanges: ["planId"]` does nothing.
 */
export const REPLACE_WHEN_ASKED = ["planId"] as const;

/**
 * Live state that differs from what every program declares (a running server), reported as an in-place
 * change. The engine's refresh asks the provider's Diff whether a refreshed resource changed (it diffs outputs
 * only with PULUMI_ENABLE_LEGACY_REFRESH_DIFF), so without this a server suspended at EDIS would show as
 * unchanged in `pulumi refresh` and `pulumi preview --refresh`, and `--expect-no-changes` would pass. The
 * update it leads to re-reads the server and says what to do; it cannot resume it. `notListed`: see KvmServerOutputs.
 */
export const STATUS_DRIFT = ["suspended", "notListed"] as const;

/**
 * A server whose create stopped after its order (unpaid invoice, provisioning time limit, a lost answer of
 * get/kvmid): it has a service id but no KVM yet. The engine forces an update of such a resource only while
 * it carries init errors, and a successful refresh clears them (`options.refresh: always` refreshes before every
 * up), so the diff itself must say that it is unfinished; the update resumes the wait, it never orders again.
 */
export const UNFINISHED = "provisioning";

/** The diff rules' ruling: the engine's DiffResult plus the inputs that changed, by meaning. */
export interface KvmServerDiff {
    changes: boolean;
    replaces: string[];
    /** Inputs that differ, for callers that explain the change. */
    changed: string[];
    deleteBeforeReplace: false;
}

/** An SSH key's meaning: its type and key data; the comment and spacing do not change the server. */
function sshKeyOf(key: string): string {
    return key.trim().split(/\s+/).slice(0, 2).join(" ");
}

/**
 * Whether input `name` means the same server with value `a` before and `b` now. Compared by meaning, not bytes, because a
 * difference in a replacing input orders a new server: host names are case-insensitive (RFC 4343), SSH keys compare by type
 * and data, and a `locationId` left out leaves the server where it is (its outputs record where it was ordered).
 */
function same(name: string, a: unknown, b: unknown): boolean {
    if (typeof a === "string" && typeof b === "string") {
        if (name === "billingCycle") return normalizeBillingCycle(a) === normalizeBillingCycle(b);
        if (name === "hostname") return sameHostname(a, b);
        if (name === "sshPublicKey") return sshKeyOf(a) === sshKeyOf(b);
    }
    if (name === "locationId" && b == null) return true;
    // Only an adopted server's program may leave the billing cycle out (every other gets the default): it keeps
    // the cycle it has, like a locationId left out.
    if (name === "billingCycle" && b == null) return true;
    // Adoption is a one-time import: once adopted, removing adoptKvmId (as one removes `import:`) changes nothing.
    if (name === "adoptKvmId" && b == null) return true;
    // The stored value is what EDIS last reported; a program that does not manage power accepts any.
    if (name === "powerState" && b == null) return true;
    if (name === "applyCredit") return (a ?? true) === (b ?? true);
    return a === b || (a == null && b == null);
}

/**
 * An adopted or imported server's state may lack what it was ordered with (EDIS does not report a plan, an
 * operating system or add-ons). The first value the program gives such an input describes the server, it does
 * not change it: recorded in place by an update that sends nothing, never a replacement or an upgrade order.
 */
export function learned(name: string, olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
    // An unknown value (preview) is learned too: it becomes a value, which up records.
    return typeof olds.adoptKvmId === "string" && olds[name] == null && news[name] != null && name !== "adoptKvmId" && name !== "powerState";
}

/** `olds` are the stored outputs (which include the inputs); `news` the checked new inputs. */
export function diffKvmServer(olds: Record<string, unknown>, news: Record<string, unknown>): KvmServerDiff {
    const changed: string[] = INPUT_NAMES.filter((name) => news[name] === UNKNOWN || !same(name, olds[name], news[name]));
    const learnedNow = changed.filter((name) => learned(name, olds, news));
    for (const status of STATUS_DRIFT) if (olds[status] === true) changed.push(status);
    if (olds.serviceId != null && !olds.kvmId) changed.push(UNFINISHED);
    // A state without a recorded location (adopted, or ordered by an older version) learns it in place: the
    // update checks that the plan is there, and refuses if it is not.
    const learnsLocation = olds.locationId == null && news.locationId !== UNKNOWN;
    // An unknown flag (preview) may turn out true: the plan shows the replacement it may be, not an update.
    const asked = news.replaceOnPlanChange === true || news.replaceOnPlanChange === UNKNOWN;
    const replacing: readonly string[] = asked ? [...REPLACE_ON_CHANGE, ...REPLACE_WHEN_ASKED] : REPLACE_ON_CHANGE;
    const replaces = changed.filter((name) => replacing.includes(name) && !(name === "locationId" && learnsLocation) && !learnedNow.includes(name));
    // A new half adopting the KVM this resource holds: the old half's delete would cancel the one server. Refused in preview.
    if (replaces.length && typeof news.adoptKvmId === "string" && news.adoptKvmId.toLowerCase() === String(olds.kvmId).toLowerCase()) {
        throw new Error(
            `${String(olds.hostname)} (service ${String(olds.serviceId)}) would be replaced (${replaces.join(", ")} changed), but its ` +
                `adoptKvmId "${news.adoptKvmId}" is the KVM it already is: the new half would adopt the same server and the old half's ` +
                `delete would cancel it. Remove adoptKvmId first (once adopted, that changes nothing), then make the change.`,
        );
    }
    return { changes: changed.length > 0, replaces, changed, deleteBeforeReplace: false };
}

/** True when an update must call add/upgrade. */
export function needsUpgrade(olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
    return UPGRADE_IN_PLACE.some((name) => !same(name, olds[name], news[name]) && !learned(name, olds, news));
}
