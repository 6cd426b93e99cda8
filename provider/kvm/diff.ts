/** The diff rules of a KvmServer: pure, no network; a suspension and a server missing from the listing count as changes too. */
import { normalizeBillingCycle } from "../client/model";
import { INPUT_NAMES, ORDER_BATCH, UNKNOWN, sameHostname } from "./inputs";

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

// The rest change in place without an order; powerState unset is not managed and never differs.

/** Server states shown as an in-place change, so that a server suspended at EDIS fails `--expect-no-changes` after a refresh. */
export const STATUS_DRIFT = ["suspended", "notListed"] as const;

/** A create stopped after its order (service id, no KVM): the diff says so itself, since a refresh clears the engine's init errors. */
export const UNFINISHED = "provisioning";

/** A batched server whose place in the order no description has confirmed (batchCheck.ts): the update checks it first. */
export const UNCONFIRMED = "orderPlace";

export interface KvmServerDiff {
    changes: boolean;
    replaces: string[];
    changed: string[];
    deleteBeforeReplace: false;
}

/** An SSH key's meaning: its type and key data; the comment and spacing do not change the server. */
function sshKeyOf(key: string): string {
    return key.trim().split(/\s+/).slice(0, 2).join(" ");
}

/** Whether `a` and `b` mean the same server: by meaning, not bytes, since a difference in a replacing input orders a new server. */
function same(name: string, a: unknown, b: unknown): boolean {
    if (typeof a === "string" && typeof b === "string") {
        if (name === "billingCycle") return normalizeBillingCycle(a) === normalizeBillingCycle(b);
        if (name === "hostname") return sameHostname(a, b);
        if (name === "sshPublicKey") return sshKeyOf(a) === sshKeyOf(b);
    }
    // Left out, these keep what the server has: location; billing cycle (only an adopted server may omit it); adoption
    // (one-time, like `import:`); power (stored is what EDIS last reported; unmanaged accepts any).
    if (b == null && ["locationId", "billingCycle", "adoptKvmId", "powerState"].includes(name)) return true;
    if (name === "applyCredit") return (a ?? true) === (b ?? true);
    return a === b || (a == null && b == null);
}

/** An adopted server's first value of an input EDIS never reported describes it: recorded in place, never a replacement or upgrade. */
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
    else if (olds[ORDER_BATCH]) changed.push(UNCONFIRMED);
    // A state without a recorded location learns it in place: the update checks that the plan is there.
    const learnsLocation = olds.locationId == null && news.locationId !== UNKNOWN;
    // A planId change replaces when asked (`replaceOnPlanChange`: the `replaceOnChanges` option does nothing for a dynamic
    // provider). An unknown flag (preview) may turn out true: the plan shows the replacement it may be, not an update.
    const asked = news.replaceOnPlanChange === true || news.replaceOnPlanChange === UNKNOWN;
    const replacing: readonly string[] = asked ? [...REPLACE_ON_CHANGE, "planId"] : REPLACE_ON_CHANGE;
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

export function needsUpgrade(olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
    return UPGRADE_IN_PLACE.some((name) => !same(name, olds[name], news[name]) && !learned(name, olds, news));
}
