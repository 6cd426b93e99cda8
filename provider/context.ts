/** What every resource operation works with, built once per provider process, whichever door the engine came through. */
import { Catalogue } from "./catalogue";
import { Clock } from "./clock";
import { EdisClient } from "./client/client";
import { ManagementClient } from "./client/management";
import { ProviderConfig } from "./config";
import { EngineProvider, OrderJournal } from "./journal";
import { SessionDirectory } from "./sessions";
import type { PowerReadings } from "./kvm/power";
import type { OrderBatcher } from "./kvm/orderBatch";
import { Flights } from "./flights";

export interface Context {
    config: ProviderConfig;
    client: EdisClient;
    management: ManagementClient;
    catalogue: Catalogue;
    sessions: SessionDirectory;
    /** Creates in flight, which shared listings and batched orders wait for. */
    flights: Flights;
    batcher?: OrderBatcher;
    powerReadings: PowerReadings;
    journal: OrderJournal;
    /** By resource key, as diff saw them: the new half's errors tell old from new. */
    replacing: Map<string, Replacement>;
    clock: Clock;
    /** Aborted when the deployment is cancelled (Ctrl-C): waits stop, and what was ordered stays in state. */
    cancelled: AbortSignal;
    /** Already free of secrets. */
    log: (line: string) => void;
    /** The engine's provider resource, when the door is told it (the plugin): order entries record it. */
    provider?: EngineProvider;
}

/** "Created but failed to initialise": the service id reaches state; `pulumi up` resumes, `pulumi destroy` cancels. */
export class ServerInitError extends Error {
    readonly reasons: string[];

    constructor(
        readonly id: string,
        readonly properties: object,
        message: string,
    ) {
        super(message);
        this.name = "ServerInitError";
        this.reasons = [message];
    }
}

export interface Replacement {
    serviceId: number;
    kvmId?: string;
}
