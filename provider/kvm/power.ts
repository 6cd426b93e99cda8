/**
 * A KvmServer's power state through the Management API (`powerState`, `trafficSuspended`).
 *
 *   create (powerState set)  ─ after provisioning: get/power; switch if it differs; wait until EDIS reports it
 *   update (powerState set)  ─ the same; a failure carries the server id (the server exists, only power failed)
 *   refresh                  ─ get/power on the listing's session; the live state becomes the outputs, so a
 *                              server switched off behind Pulumi's back differs from `powerState: "on"`
 *
 * `powerState` unset means "not managed": nothing is switched, and create does not need API Access.
 * Powering off does not stop billing: only cancelling (delete) does.
 */
import { isEdisApiError } from "../client/errors";
import { KvmSession, PowerState, PowerStatus } from "../client/model";
import { Context } from "./context";
import { KvmServerOutputs } from "./inputs";

/** How long a switch may take to show in get/power (a guest's ACPI shutdown can take a while). */
export const POWER_WAIT_SECONDS = 300;

/** Brings the server to `want` and returns the outputs with the state EDIS then reports. */
export async function applyPowerState(ctx: Context, outs: KvmServerOutputs, want: PowerState): Promise<KvmServerOutputs> {
    if (!outs.kvmId) throw new Error(`${outs.hostname} has no KVM id yet, so its power cannot be switched`);
    let now = await ctx.management.getPower(outs.kvmId);
    if (now.state !== want) {
        ctx.log(`powering ${want} ${outs.hostname} (${outs.kvmId}): EDIS reports "${now.text}"`);
        await ctx.management.setPower(outs.kvmId, want);
        now = await waitForPower(ctx, outs, want);
    }
    return { ...outs, ...powerOutputs(now) };
}

async function waitForPower(ctx: Context, outs: KvmServerOutputs, want: PowerState): Promise<PowerStatus> {
    const deadline = Date.now() + POWER_WAIT_SECONDS * 1000;
    let pauseMs = ctx.config.provisioningPollSeconds * 1000;
    for (;;) {
        const now = await ctx.management.getPower(outs.kvmId!);
        if (now.state === want) return now;
        if (Date.now() >= deadline) {
            throw new Error(
                `asked EDIS to power ${want} ${outs.hostname} (${outs.kvmId}), but after ${POWER_WAIT_SECONDS} s it still reports "${now.text}"; ` +
                    `run \`pulumi up\` again to check and retry`,
            );
        }
        await new Promise((r) => setTimeout(r, pauseMs));
        pauseMs = Math.min(pauseMs * 1.5, 10_000);
    }
}

let accessWarned = false;

/**
 * The live power state for refresh, or nothing when it cannot be read: then `powerState` is left out of the
 * outputs, so a server whose power is managed shows as a change (unclear, not "same"), and one whose power
 * is not managed is unaffected. Never fails the refresh: the server's existence is what refresh must get right.
 */
export async function readPowerState(ctx: Context, session: KvmSession, hostname: unknown): Promise<Partial<KvmServerOutputs>> {
    ctx.management.remember(session);
    try {
        return powerOutputs(await ctx.management.getPower(session.kvmId));
    } catch (e) {
        if (isEdisApiError(e) && e.kind === "session") {
            if (!accessWarned) ctx.log(`note: powerState and trafficSuspended are not reported: ${e.message}`);
            accessWarned = true;
        } else {
            ctx.log(`warning: the power state of ${String(hostname ?? session.kvmId)} (${session.kvmId}) could not be read: ${(e as Error).message}`);
        }
        return { powerState: undefined, trafficSuspended: undefined };
    }
}

function powerOutputs(now: PowerStatus): Partial<KvmServerOutputs> {
    return { powerState: now.state, trafficSuspended: now.trafficSuspended };
}
