/**
 * Shared set-up for tests: a simulator on 127.0.0.1 and a client or a stack config pointed at it.
 */
import { EdisClient, EdisClientOptions } from "../../provider/client/client";
import { EdisSimulator, SimulatorOptions } from "../../simulator/server";

export async function startSimulator(options: SimulatorOptions = {}): Promise<EdisSimulator> {
    return EdisSimulator.start({ provisioningDelayMs: 200, ...options });
}

export function clientFor(sim: EdisSimulator, options: Partial<EdisClientOptions> = {}): EdisClient {
    const state = sim.account.state;
    return new EdisClient({
        email: state.email,
        password: state.password,
        baseUrl: sim.url,
        authUrl: sim.url,
        timeoutMs: 5_000,
        retry: { baseDelayMs: 20, maxDelayMs: 100 },
        ...options,
    });
}

/** The stack config a user would set, pointed at the simulator, with fast polling for tests. */
export function stackConfigFor(sim: EdisSimulator, extra: Record<string, string> = {}): Record<string, string> {
    return {
        "edis:email": sim.account.state.email,
        "edis:password": sim.account.state.password,
        "edis:baseUrl": sim.url,
        "edis:authUrl": sim.url,
        "edis:paymentMethod": "paypal",
        "edis:provisioningPollSeconds": "0.1",
        ...extra,
    };
}
