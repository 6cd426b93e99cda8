/**
 * `pulumi-edis/testing`: unit tests of a program that uses pulumi-edis, in Pulumi's documented pattern
 * (`pulumi.runtime.setMocks`), without an EDIS account and without the network.
 *
 * The lookups (`getPlan`, `getOperatingSystem`, ...) call EDIS from the program itself, not through the
 * engine's invoke, so setMocks alone cannot answer them: `startTestAccount()` starts the EDIS simulator in the
 * test's own process (on 127.0.0.1) and points the program's `edis:*` config at it. `mocks()` answers the
 * registrations: a KvmServer gets the outputs an order would give it, and nothing is ordered anywhere.
 *
 * ```ts
 * import * as pulumi from "@pulumi/pulumi";
 * import * as edisTesting from "pulumi-edis/testing";
 *
 * let account: edisTesting.TestAccount;
 * beforeAll(async () => {
 *     pulumi.runtime.setMocks(edisTesting.mocks(), "project", "stack", false);
 *     account = await edisTesting.startTestAccount();
 * });
 * afterAll(() => account.stop());
 *
 * test("the web server gets the cheapest plan with 2 GB", async () => {
 *     const infra = await import("./index");
 *     // ...read infra's outputs with .apply() and assert
 * });
 * ```
 */
import * as pulumi from "@pulumi/pulumi";
import { lookupsSettled } from "./lookups/context";
import { checkOneSdk } from "./oneSdk";
import { CREDENTIAL_SETTINGS } from "./options";
import { EdisSimulator, SimulatorOptions } from "../simulator/server";
import { BILLING_CYCLE_MONTHS, CURRENCY, priceFor } from "../simulator/catalogue";
import { normalizeBillingCycle } from "../provider/client/model";

/** A plan's list price in the simulator's catalogue, as KvmServer's `listPrice` has it. */
function listPriceOf(monthly: number, cycle: string) {
    const billingCycle = normalizeBillingCycle(cycle) ?? "monthly";
    const amount = priceFor(monthly, billingCycle)!;
    return { amount, billingCycle, currency: CURRENCY, monthly: Math.round((amount / BILLING_CYCLE_MONTHS[billingCycle]) * 100) / 100 };
}

checkOneSdk();

/** A simulated EDIS account that the program's lookups use. */
export interface TestAccount {
    /** The simulator: its catalogue (`simulator.account.plans`), its request log (`simulator.log`), and more. */
    simulator: EdisSimulator;
    /** The `edis:*` config it set, as `pulumi config` would. */
    config: Record<string, string>;
    /**
     * Waits for the program's lookups and resource registrations to finish (a test that does not await an
     * output leaves them running), then stops the simulator.
     */
    stop(): Promise<void>;
}

/** The type token of a KvmServer registration, as setMocks' newResource sees it. */
export const KVM_SERVER_TYPE = "pulumi-nodejs:dynamic/edis:KvmServer";
/** The type token of a VncAccess registration. */
export const VNC_ACCESS_TYPE = "pulumi-nodejs:dynamic/edis:VncAccess";
/** The type token of a TrafficAlert registration. */
export const TRAFFIC_ALERT_TYPE = "pulumi-nodejs:dynamic/edis:TrafficAlert";

/**
 * Starts the simulator on 127.0.0.1 and sets the program's `edis:*` config to it (e-mail, password, both
 * URLs, payment method `credit`). Call it after `pulumi.runtime.setMocks`, which replaces the config.
 */
export async function startTestAccount(options: SimulatorOptions = {}): Promise<TestAccount> {
    const simulator = await EdisSimulator.start({ provisioningDelayMs: 0, ...options });
    current = simulator;
    const config = { ...simulator.stackConfig(), "edis:paymentMethod": "credit" };
    // As a stack holds them: the credentials as secrets (KvmServer refuses plain-text ones), other keys kept.
    const runtime = pulumi.runtime as unknown as { isConfigSecret?: (key: string) => boolean };
    const existing = pulumi.runtime.allConfig();
    const secretKeys = Object.keys(existing).filter((k) => runtime.isConfigSecret?.(k));
    pulumi.runtime.setAllConfig({ ...existing, ...config }, [...new Set([...secretKeys, ...CREDENTIAL_SETTINGS.map((c) => c.key)])]);
    return {
        simulator,
        config,
        // Stopped under running lookups, the program would fail after the test passed; bounded, as one may never end.
        stop: async () => {
            try {
                await Promise.race([lookupsSettled(), new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
            } finally {
                await simulator.stop();
            }
        },
    };
}

/** How long `stop()` waits for the program's lookups: longer than one lookup with its retries takes. */
const STOP_WAIT_MS = 60_000;

/** The account startTestAccount started last: the mocks take a plan's location from its catalogue. */
let current: EdisSimulator | undefined;

/**
 * Mocks for `pulumi.runtime.setMocks`. A KvmServer gets its inputs back plus the outputs of a provisioned
 * server (serviceId, kvmId, apiHost, powerState, ... from a counter; `overrides.kvmServer` may change them); a
 * VncAccess gets an enabled console, a TrafficAlert a hook id, both without their passwords; any other
 * resource gets its inputs back; calls are answered by `overrides.call`, or refused.
 */
export function mocks(overrides: { kvmServer?: (args: pulumi.runtime.MockResourceArgs) => Record<string, unknown>; call?: pulumi.runtime.Mocks["call"] } = {}): pulumi.runtime.Mocks {
    let next = 1000;
    return {
        newResource(args) {
            // Secret inputs are never outputs: the mocks drop them as the provider does.
            const { password, callbackPassword, ...inputs } = args.inputs;
            if (args.type === VNC_ACCESS_TYPE) {
                return { id: String(inputs.kvmId), state: { ...inputs, enabled: true, host: "vnc.edis-test.invalid", port: 5901, novncPort: 6080 } };
            }
            if (args.type === TRAFFIC_ALERT_TYPE) {
                const hookId = ++next;
                return { id: String(hookId), state: { ...inputs, callbackMethod: inputs.callbackMethod ?? "post", hookId } };
            }
            if (args.type !== KVM_SERVER_TYPE) return { id: `${args.name}-id`, state: args.inputs };
            const serviceId = ++next;
            // Every output a real create gives (test/testing.test.ts compares the keys): none reads as undefined here.
            const plan = current?.account.plans.find((p) => p.pid === args.inputs.planId);
            const state = {
                ...args.inputs,
                // The defaults the provider's check fills in.
                billingCycle: args.inputs.billingCycle ?? "monthly",
                applyCredit: args.inputs.applyCredit ?? true,
                locationId: args.inputs.locationId ?? plan?.locationId,
                serviceId,
                kvmId: `kvm_${serviceId}_000000`,
                orderId: serviceId + 4000,
                invoiceId: serviceId + 9000,
                invoicePaid: true,
                apiHost: "api.kvm.edis-test.invalid",
                apiRdns: "rdns.kvm.edis-test.invalid",
                description: args.inputs.hostname,
                suspended: false,
                lps: "edis-test",
                lpsIsPremium: false,
                // As the provider: power is read only where the program manages it.
                powerState: args.inputs.powerState,
                trafficSuspended: args.inputs.powerState === undefined ? undefined : false,
                // The plan's list price as the simulator's catalogue has it (add-ons left out); none for an adopted server.
                listPrice: plan && !args.inputs.adoptKvmId ? listPriceOf(plan.monthly, args.inputs.billingCycle ?? "monthly") : undefined,
                ...overrides.kvmServer?.(args),
            };
            return { id: String(state.serviceId), state };
        },
        call(args) {
            if (overrides.call) return overrides.call(args);
            throw new Error(`pulumi-edis/testing: no mock for the invoke ${args.token}; pass mocks({ call }) to answer it`);
        },
    };
}
