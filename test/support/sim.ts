// Shared set-up for tests: a simulator on 127.0.0.1 and a client or a stack config pointed at it.
import { EdisClient, EdisClientOptions } from "../../provider/client/client";
import { EdisApiError } from "../../provider/client/errors";
import { EdisSimulator, SimulatorOptions } from "../../simulator/server";
import { observeAnswer } from "../spec/conformance";

export { runNamedCommand } from "./journalCommand";
export { stackConfigFor } from "./workspace";

/** A simulator whose every answer is checked against the specification (test/spec). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<EdisSimulator> {
    return EdisSimulator.start({
        provisioningDelayMs: 200,
        ...options,
        onAnswer: (answer) => {
            observeAnswer(answer);
            options.onAnswer?.(answer);
        },
    });
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

/** Orders one server through the client and waits until it has a KVM id: a server to manage in client tests. */
export async function orderProvisioned(client: EdisClient, hostname = "a.example.com"): Promise<{ serviceId: number; kvmId: string }> {
    const order = await client.addOrder({
        billingCycle: "monthly",
        paymentMethod: "paypal",
        applyCredit: true,
        items: [{ pid: 101, os: 1012, hostname }],
    });
    const serviceId = order.serviceIds[0];
    for (let i = 0; i < 100; i++) {
        const kvmId = await client.getKvmId(serviceId);
        if (kvmId) return { serviceId, kvmId };
        await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("not provisioned");
}

/** The EdisApiError a call fails with; the test fails if it succeeds or fails otherwise. */
export async function failureOf(p: Promise<unknown>): Promise<EdisApiError> {
    try {
        await p;
    } catch (e) {
        expect(e).toBeInstanceOf(EdisApiError);
        return e as EdisApiError;
    }
    throw new Error("expected the call to fail");
}

/** Waits until the condition holds; `ms` bounds a wait that takes milliseconds, so only a broken run reaches it. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await condition())) {
        if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
        await new Promise((r) => setTimeout(r, 50));
    }
}
