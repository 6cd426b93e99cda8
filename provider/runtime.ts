/**
 * The core: configuration, context and per-deployment memory. The plugin builds one per provider process; the dynamic
 * door has one per host process (processCore): the host caches a provider per resource type, and the four types must
 * share one listing and journal. The context is built on first use, so check and diff need no credentials (preview).
 */
import type { Ordering } from "./kvm/preflight";
import { Catalogue } from "./catalogue";
import { withhold } from "./client/withhold";
import { ManagementClient } from "./client/management";
import { ProviderConfig, clientFromConfig, resolveConfig } from "./config";
import { EngineProvider, OrderJournal, journalStoreAt, settle } from "./journal";
import { Context } from "./context";
import { PowerReadings } from "./kvm/power";
import { systemClock } from "./clock";
import { Flights } from "./flights";
import { packageVersion } from "./version";
import { OrderBatcher } from "./kvm/orderBatch";
import { SessionDirectory } from "./sessions";
import { Holders } from "./kvm/holders";

export interface ConfigureRequest {
    config: { get(key: string): string | undefined };
    /** The engine's provider resource this process serves (the plugin door; the engine says so in Configure). */
    provider?: EngineProvider;
}

/** The CLI that read stderr was killed: lines would only pile up in memory. */
let stderrGone = false;
process.stderr.on?.("error", () => (stderrGone = true));

export class Core {
    private config: ProviderConfig | undefined;
    private context: Context | undefined;
    private orderJournal: OrderJournal | undefined;
    private sink: ((line: string) => void) | undefined;
    private readonly said = new Set<string>();
    private provider: EngineProvider | undefined;
    /** Diff runs without credentials (no context), so what it notes lives here, across configurations. */
    readonly replacing: Context["replacing"] = new Map();
    readonly holders = new Holders();
    /** What this deployment orders (edis:maxNewServers, the running price): one provider process is one deployment. */
    readonly ordering: Ordering = { servers: new Set(), prices: new Map() };
    private readonly cancellation = new AbortController();

    cancel = (): void => this.cancellation.abort();

    setLogSink = (next: (line: string) => void): void => {
        this.sink = next;
    };

    log = (raw: string): void => {
        const line = withhold(raw, { scope: "composed" });
        if (this.sink) return this.sink(`pulumi-edis: ${line}`);
        if (stderrGone || process.stderr.destroyed) return;
        process.stderr.write(`pulumi-edis: ${line}\n`);
    };

    /** The engine calls diff more than once for a resource in one preview. */
    logOnce = (line: string): void => {
        if (this.said.has(line)) return;
        this.said.add(line);
        this.log(line);
    };

    /** Nothing is validated here: the first operation that needs a setting reports it. */
    configure = (req: ConfigureRequest): void => {
        const next = resolveConfig((key) => req.config.get(`edis:${key}`));
        if (this.config && JSON.stringify(this.config) === JSON.stringify(next) && this.provider?.id === req.provider?.id) return;
        this.provider = req.provider;
        this.config = next;
        this.context = undefined;
        this.orderJournal = undefined;
    };

    currentConfig = (): ProviderConfig => this.config ?? resolveConfig(() => undefined);

    /** Needs no credentials, so diff (in preview) can settle entries; the context uses the same one. */
    journal = (): OrderJournal => (this.orderJournal ??= new OrderJournal(journalStoreAt(this.currentConfig().journal)));

    ctx = (): Context =>
        (this.context ??= createContext(this.currentConfig(), { log: this.log, replacing: this.replacing, cancelled: this.cancellation.signal, journal: this.journal(), provider: this.provider }));

    noteReplacement = (key: unknown, serviceId: number, kvmId: unknown): void => {
        if (typeof key === "string") this.replacing.set(key, { serviceId, kvmId: typeof kvmId === "string" ? kvmId : undefined });
    };

    /** Never fails the operation. */
    settleJournal = async (props: Record<string, unknown>): Promise<void> => {
        try {
            await settle(this.journal(), props, this.log);
        } catch (e) {
            this.log(`warning: the order journal could not be tidied: ${(e as Error).message}`);
        }
    };
}

export const processCore = new Core();

export function createContext(
    cfg: ProviderConfig,
    options: Pick<Context, "log"> & Partial<Pick<Context, "clock" | "replacing" | "cancelled" | "journal" | "provider">>,
): Context {
    const { log, clock = systemClock, cancelled = new AbortController().signal } = options;
    const client = clientFromConfig(cfg, { userAgent: `pulumi-edis/${packageVersion()}`, log, clock, cancelled });
    const management = new ManagementClient(client, { urlTemplate: cfg.managementUrl, now: () => clock.now() });
    const flights = new Flights();
    const journal = options.journal ?? new OrderJournal(journalStoreAt(cfg.journal));
    return {
        config: cfg,
        client,
        management,
        catalogue: new Catalogue(client),
        sessions: new SessionDirectory(client, flights, clock),
        flights,
        batcher: cfg.batchOrders ? new OrderBatcher(client, flights, journal, clock, log, cancelled) : undefined,
        powerReadings: new PowerReadings(management, clock, cfg.requestTimeoutSeconds * 1000, log, cancelled),
        journal,
        replacing: options.replacing ?? new Map(),
        clock,
        cancelled,
        log,
        provider: options.provider,
    };
}
