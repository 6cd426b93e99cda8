/** A KvmServer's power via the Management API, only with `powerState` set; powering off does not stop billing. */
import { mayRetry } from "../client/answers";
import { Clock, pause } from "../clock";
import { isEdisApiError } from "../client/errors";
import { ManagementClient } from "../client/management";
import { KvmSession, PowerState, PowerStatus } from "../client/model";
import { Context } from "../context";
import { KvmServerOutputs } from "./inputs";

/** How long a switch may take to show in get/power (a guest's ACPI shutdown can take a while). */
export const POWER_WAIT_SECONDS = 300;

export async function applyPowerState(ctx: Context, outs: KvmServerOutputs, want: PowerState): Promise<KvmServerOutputs> {
    const kvmId = outs.kvmId;
    if (!kvmId) throw new Error(`${outs.hostname} has no KVM id yet, so its power cannot be switched`);
    let now = await ctx.management.getPower(kvmId);
    if (now.state !== want) {
        ctx.log(`powering ${want} ${outs.hostname} (${kvmId}): EDIS reports "${now.text}"`);
        await ctx.management.setPower(kvmId, want);
        const deadline = ctx.clock.now() + POWER_WAIT_SECONDS * 1000;
        for (let pauseMs = ctx.config.provisioningPollSeconds * 1000; ; pauseMs = Math.min(pauseMs * 1.5, 10_000)) {
            now = await ctx.management.getPower(kvmId);
            if (now.state === want) break;
            if (ctx.clock.now() >= deadline) {
                throw new Error(
                    `asked EDIS to power ${want} ${outs.hostname} (${kvmId}), but after ${POWER_WAIT_SECONDS} s it still reports "${now.text}"; ` +
                        `run \`pulumi up\` again to check and retry`,
                );
            }
            await pause(ctx.clock, pauseMs, ctx.cancelled);
            if (ctx.cancelled.aborted) {
                throw new Error(`the deployment was cancelled while ${outs.hostname} (${kvmId}) was being powered ${want}; run \`pulumi up\` again to check it`);
            }
        }
    }
    return { ...outs, ...powerOutputs(now) };
}

/** The output that records whether the program manages the server's power (refresh is given only the outputs). */
export const MANAGES_POWER = "__managesPower";

/** Whether a refresh reads this server's power; state from before MANAGES_POWER has a `powerState` output only where power was read. */
export function managesPower(props: Record<string, unknown>): boolean {
    const marked = props[MANAGES_POWER];
    return typeof marked === "boolean" ? marked : props.powerState !== undefined;
}

/** How many power readings of a refresh are in flight at once, whatever the engine's parallelism. */
export const POWER_READ_CONCURRENCY = 16;
/** The pause before the one repeat of a reading that got an answered transient failure (a 503 blip). */
export const POWER_READ_RETRY_MS = 500;

/** A refresh's power readings, bounded so no management host costs more than one request time limit. */
export class PowerReadings {
    private inFlight = 0;
    private readonly waiting: Array<() => void> = [];
    private readonly failedHosts = new Set<string>();
    private stopped = false;
    private windowEnd?: number;
    private lastAnswerAt = -Infinity;
    private lastFailureAt = -Infinity;
    private reported = false;

    constructor(
        private readonly management: ManagementClient,
        private readonly clock: Clock,
        private readonly timeoutMs: number,
        private readonly log: (line: string) => void,
        private readonly cancelled?: AbortSignal,
    ) {}

    async read(session: KvmSession, hostname: string): Promise<PowerStatus | undefined> {
        const host = session.apiHost ?? "";
        const who = `${hostname} (${session.kvmId})`;
        if (this.skips(host)) return undefined;
        await this.slot();
        try {
            if (this.skips(host)) return undefined;
            const now = this.clock.now();
            // A window starts with the first reading, and again after a quiet spell whose last reading was answered.
            const quietAfterAnswer = this.inFlight === 1 && this.lastAnswerAt > this.lastFailureAt;
            if (this.windowEnd === undefined || (now >= this.windowEnd && quietAfterAnswer)) this.windowEnd = now + this.timeoutMs;
            const left = this.windowEnd - now;
            if (left <= 0) {
                this.fail(`no management host answered within ${Math.round(this.timeoutMs / 1000)} s`, who, true);
                return undefined;
            }
            const status = await this.getPower(session.kvmId, host);
            this.lastAnswerAt = this.clock.now();
            this.windowEnd = Math.max(this.windowEnd, this.lastAnswerAt + this.timeoutMs);
            return status;
        } catch (e) {
            const accessOff = isEdisApiError(e) && e.kind === "session";
            this.fail((e as Error).message, who, accessOff, host);
            return undefined;
        } finally {
            this.release();
        }
    }

    /** One reading, and once more after an answered transient failure while the host and the window allow it. */
    private async getPower(kvmId: string, host: string): Promise<PowerStatus> {
        const once = () => this.management.getPower(kvmId, { once: true, timeoutMs: Math.min(this.timeoutMs, this.windowEnd! - this.clock.now()) });
        try {
            return await once();
        } catch (e) {
            const answered = isEdisApiError(e) && mayRetry(e) && e.status !== undefined;
            const windowLeft = this.windowEnd! - this.clock.now();
            if (!answered || this.skips(host) || this.cancelled?.aborted || windowLeft < POWER_READ_RETRY_MS + 1_000) throw e;
            await pause(this.clock, POWER_READ_RETRY_MS, this.cancelled);
            if (this.cancelled?.aborted) throw e;
            return once();
        }
    }

    private skips(host: string): boolean {
        return this.stopped || this.failedHosts.has(host);
    }

    private fail(why: string, who: string, everyHost: boolean, host?: string): void {
        this.lastFailureAt = this.clock.now();
        if (everyHost) this.stopped = true;
        if (host !== undefined) this.failedHosts.add(host);
        if (this.reported) return;
        this.reported = true;
        this.log(
            `warning: the power state of ${who} could not be read: ${why}. powerState and trafficSuspended are left ` +
                `out for it and for the servers whose management host ${everyHost ? "is not asked after this" : "fails too"} in this deployment ` +
                `(reported once); a server that manages powerState shows as a change, which \`pulumi up\` checks again.`,
        );
    }

    private async slot(): Promise<void> {
        if (this.inFlight >= POWER_READ_CONCURRENCY) await new Promise<void>((resolve) => this.waiting.push(resolve));
        this.inFlight++;
    }

    private release(): void {
        this.inFlight--;
        this.waiting.shift()?.();
    }
}

/** The live power state for refresh, or none (see PowerReadings); never fails the refresh: the server's existence is what it must get right. */
export async function readPowerState(ctx: Context, session: KvmSession, hostname: unknown): Promise<Partial<KvmServerOutputs>> {
    ctx.management.remember(session);
    const now = await ctx.powerReadings.read(session, String(hostname ?? session.kvmId));
    return now ? powerOutputs(now) : { powerState: undefined, trafficSuspended: undefined };
}

function powerOutputs(now: PowerStatus): Partial<KvmServerOutputs> {
    return { powerState: now.state, trafficSuspended: now.trafficSuspended };
}
