/**
 * Deployments killed mid-call, through the real dynamic-provider host (the harness can kill it at a chosen moment),
 * asserting both sides: servers ordered at EDIS, servers in Pulumi state, pending creates. kvmServer.test covers the
 * faults that need no kill on one core.
 */
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as edis from "../sdk";
import { TestStack } from "./harness";
import { OrderJournal } from "../provider/journal";
import { EdisSimulator } from "../simulator/server";
import { declareServers, simulatorAndStack, until } from "./support/sim";

const PROGRAM = join(__dirname, "programs", "servers");
const web1 = { planId: 101, osId: 1012, hostname: "web1.example.com" };

let sim: EdisSimulator;
let stack: TestStack;

beforeEach(async () => ({ sim, stack } = await simulatorAndStack(PROGRAM, { provisioningDelayMs: 300 })));
afterEach(async () => {
    stack.dispose();
    await sim.stop();
});

/** Both sides at once: orders and services at EDIS, resources and pending creates in Pulumi state. */
function finalState() {
    const state = stack.state();
    return {
        orders: sim.account.state.orders.length,
        active: sim.account.state.services.filter((s) => s.status !== "Cancelled").map((s) => s.hostname),
        inState: state.resources.map((r) => `${r.name}=${r.id}`),
        pending: state.pendingCreates.length,
        cancellations: sim.account.state.cancellations.map((c) => c.type),
    };
}

/** The account's KVMs as a user's program lists them (edis.getKvmSessions), with this stack's config. */
async function pulumiSessions() {
    pulumi.runtime.setAllConfig(stack.config, stack.secretKeys);
    return (await edis.getKvmSessions()).sessions;
}

function serviceOf(hostname: string): number {
    return sim.account.state.services.find((s) => s.hostname === hostname)!.serviceId;
}

describe("a deployment killed after add/order answered (a killed CI job): the next up resumes, never orders again", () => {
    test("the provider host alone dies during the wait: the create fails, and the next up resumes it", async () => {
        declareServers(stack, { web1 });
        // The host dies as its first provisioning poll (get/kvmid) reaches EDIS: after add/order answered, during the wait.
        stack.onHostStarted = (host) => (sim.holdByEndpoint["get/kvmid"] = () => host.stop("SIGKILL"));
        const up = await stack.up().finally(() => delete sim.holdByEndpoint["get/kvmid"]);
        stack.onHostStarted = undefined;
        expect(up.ok).toBe(false);
        expect(finalState()).toMatchObject({ orders: 1, inState: [], pending: 0 });

        const rerun = await stack.up();
        expect(rerun.errors).toEqual([]);
        expect(finalState()).toEqual({ orders: 1, active: ["web1.example.com"], inState: [`web1=${serviceOf("web1.example.com")}`], pending: 0, cancellations: [] });
    });
});

describe("an order whose outcome is unknown blocks a second order until the user says what happened", () => {
    test("killed while add/order was under way: the rerun orders nothing; the server EDIS did create is adopted", async () => {
        declareServers(stack, { web1 });
        // add/order reaches EDIS; the deployment is killed before EDIS acts on it, and EDIS makes the order all the same.
        sim.holdByEndpoint["add/order"] = () => stack.crash();
        await stack.up().finally(() => delete sim.holdByEndpoint["add/order"]);
        await until(() => sim.account.state.services.length > 0, "EDIS makes the order the dead deployment sent");

        const blocked = await stack.up();
        const text = blocked.errors.join("\n");
        expect(text).toContain("the order for web1.example.com may or may not have been made: the deployment that sent it at");
        expect(text).toContain("If the order exists, pay it (or cancel it there) and, once its server is provisioned, set adoptKvmId to its KVM id on this resource");
        expect(sim.calls("add/order")).toHaveLength(1);

        // The user finds it (by its description), and adopts it.
        await until(async () => (await pulumiSessions()).some((s) => s.description === "web1.example.com"), "EDIS provisions it");
        const kvmId = (await pulumiSessions()).find((s) => s.description === "web1.example.com")!.kvmId;
        declareServers(stack, { web1: { ...web1, adoptKvmId: kvmId } });
        expect((await stack.up()).errors).toEqual([]);
        // The killed run's pending create stays until the user clears it (`pulumi refresh --clear-pending-creates`).
        expect(finalState()).toEqual({ orders: 1, active: ["web1.example.com"], inState: [`web1=${serviceOf("web1.example.com")}`], pending: 1, cancellations: [] });
        // The adoption settled the order's entry; what remains is the adoption's record, under the server: only the delete
        // that carries its token (this resource's) may cancel it.
        expect((await new OrderJournal(join(stack.project.dir, ".pulumi-edis", "journal")).list()).map((e) => e.kind)).toEqual(["adoption"]);
    });
});
