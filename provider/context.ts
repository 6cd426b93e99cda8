/**
 * The core's context: what every resource operation works with (clients, caches, the journal), built once per
 * provider process from the configuration (runtime.ts), whichever door the engine came through: the dynamic
 * provider's host or the native plugin.
 */
import { Catalogue } from "./catalogue";
import { Clock } from "./clock";
import { EdisClient } from "./client/client";
import { ManagementClient } from "./client/management";
import { ProviderConfig } from "./config";
import { OrderJournal } from "./journal";
import { SessionDirectory } from "./sessions";
import type { PowerReadings } from "./kvm/power";
import type { OrderBatcher } from "./kvm/orderBatch";
import { Flights } from "./flights";

export interface Context {
    config: ProviderConfig;
    client: EdisClient;
    /** The Management API (power, VNC, reverse DNS, traffic hooks), on the same credentials and redactor. */
    management: ManagementClient;
    catalogue: Catalogue;
    sessions: SessionDirectory;
    /** The creates in flight in this host, which shared listings and batched orders wait for (flights.ts). */
    flights: Flights;
    /** With `edis:batchOrders`: what puts the orders of creates in flight into one add/order. */
    batcher?: OrderBatcher;
    /** A refresh's power readings: bounded, and within one request time limit for all of them. */
    powerReadings: PowerReadings;
    journal: OrderJournal;
    /** The servers being replaced, by resource key, as diff saw them: the new half's order records it, so its errors tell old from new. */
    replacing: Map<string, Replacement>;
    /** Every wait's time (provisioning, power, back-off); tests run them at once. */
    clock: Clock;
    /** One line to the engine's log; already free of secrets. */
    log: (line: string) => void;
}

/**
 * A failure after the server exists at EDIS. The provider host turns an error carrying `id` into the
 * engine's "created but failed to initialise": the service id and these outputs reach state, the next
 * `pulumi up` calls update (which resumes), and `pulumi destroy` calls delete (which cancels).
 */
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

/** A replacement diff saw coming: the server it replaces, and the order its new half will place. */
export interface Replacement {
    serviceId: number;
    kvmId?: string;
    /** The new half's inputs, for the check a delete-before-replace makes before it cancels the old half. */
    order: Record<string, unknown>;
    /** Set when the new half's create has begun: the old half's delete then needs no check. */
    newHalfStarted?: boolean;
}
