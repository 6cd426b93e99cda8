/**
 * The provider host's configuration and context, shared by every resource type in one host process. The context is
 * built on first use, so that check and diff work without credentials (e.g. in preview).
 */
import { Catalogue } from "./catalogue";
import { withhold } from "./client/withhold";
import { ManagementClient } from "./client/management";
import { ProviderConfig, clientFromConfig, resolveConfig } from "./config";
import { OrderJournal, journalStoreAt, settle } from "./journal";
import { Context } from "./context";
import { PowerReadings } from "./kvm/power";
import { Clock, systemClock } from "./clock";
import { Flights } from "./flights";
import { packageVersion } from "./version";
import { OrderBatcher } from "./kvm/orderBatch";
import { SessionDirectory } from "./sessions";
import { Holders } from "./kvm/holders";

export interface ConfigureRequest {
    config: { get(key: string): string | undefined };
}

let config: ProviderConfig | undefined;
/** Diff runs without credentials (no context), so it lives here. */
const replacing: Context["replacing"] = new Map();
let context: Context | undefined;
/** Kept across configurations, like `replacing`. */
export const holders = new Holders();

/** The CLI that read stderr was killed: lines would only pile up in memory. */
let stderrGone = false;
process.stderr.on?.("error", () => (stderrGone = true));

let sink: ((line: string) => void) | undefined;

export function setLogSink(next: (line: string) => void): void {
    sink = next;
}

export function log(raw: string): void {
    const line = withhold(raw, { scope: "composed" });
    if (sink) return sink(`pulumi-edis: ${line}`);
    if (stderrGone || process.stderr.destroyed) return;
    process.stderr.write(`pulumi-edis: ${line}\n`);
}

const said = new Set<string>();

/** The engine calls diff more than once for a resource in one preview. */
export function logOnce(line: string): void {
    if (said.has(line)) return;
    said.add(line);
    log(line);
}

/** Nothing is validated here: the first operation that needs a setting reports it. */
export function configure(req: ConfigureRequest): void {
    const next = resolveConfig((key) => req.config.get(`edis:${key}`));
    if (config && JSON.stringify(config) === JSON.stringify(next)) return;
    config = next;
    context = undefined;
}

export function currentConfig(): ProviderConfig {
    return config ?? resolveConfig(() => undefined);
}

/** Needs no credentials, so diff (in preview) can settle entries. */
export function journal(): OrderJournal {
    return new OrderJournal(journalStoreAt((config ?? resolveConfig(() => undefined)).journal));
}

export function ctx(): Context {
    context ??= createContext(config ?? resolveConfig(() => undefined), { log });
    return context;
}

export function createContext(cfg: ProviderConfig, options: { clock?: Clock; log: (line: string) => void }): Context {
    const clock = options.clock ?? systemClock;
    const client = clientFromConfig(cfg, { userAgent: `pulumi-edis/${packageVersion()}`, log: options.log, clock });
    const management = new ManagementClient(client, { urlTemplate: cfg.managementUrl, now: () => clock.now() });
    const flights = new Flights();
    const journal = new OrderJournal(journalStoreAt(cfg.journal));
    return {
        config: cfg,
        client,
        management,
        catalogue: new Catalogue(client),
        sessions: new SessionDirectory(client, flights, clock),
        flights,
        batcher: cfg.batchOrders ? new OrderBatcher(client, flights, journal, clock, options.log) : undefined,
        powerReadings: new PowerReadings(management, clock, cfg.requestTimeoutSeconds * 1000, options.log),
        journal,
        replacing,
        clock,
        log: options.log,
    };
}

export function noteReplacement(key: unknown, serviceId: number, kvmId: unknown, order: Record<string, unknown>): void {
    if (typeof key === "string") replacing.set(key, { serviceId, kvmId: typeof kvmId === "string" ? kvmId : undefined, order });
}

/** Never fails the operation. */
export async function settleJournal(props: Record<string, unknown>): Promise<void> {
    try {
        await settle(journal(), props, log);
    } catch (e) {
        log(`warning: the order journal could not be tidied: ${(e as Error).message}`);
    }
}
