// The journal in S3 via the real CLI; runners share nothing on disk (own dir, backend, home): two CI jobs on two hosts.
import { runNamedCommand } from "../support/journalCommand";
import { OrderJournal, journalStoreAt, parseJournalUrl } from "../../provider/journal";
import { EdisSimulator } from "../../simulator/server";
import { stackConfigFor, startSimulator, until } from "../support/sim";
import { S3Server, startS3Server } from "../support/s3Server";
import { CliResult, CliStack } from "./pulumi";
import { SECRET_KEYS, SERVERS, failed, ok, paidWrites, upKilledWhileProvisioning } from "./support";

const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };

let s3: S3Server;
const savedEnv = { ...process.env };
const opened: Array<{ dispose(): unknown }> = [];

beforeAll(async () => {
    s3 = await startS3Server();
    // For the test's own look at the store and for the `orders` commands it runs: what the runners have.
    Object.assign(process.env, s3.env);
});

afterEach(async () => {
    for (const o of opened.splice(0).reverse()) await o.dispose();
});

afterAll(async () => {
    process.env = savedEnv;
    await s3?.stop();
});

async function simulator(options: Parameters<typeof startSimulator>[0] = {}): Promise<EdisSimulator> {
    const sim = await startSimulator({ provisioningDelayMs: 300, ...options });
    opened.push({ dispose: () => sim.stop() });
    return sim;
}

/** A fresh runner with the journal in S3: its own file:// backend or `backendUrl`; or a checkout of another's stack. */
async function runner(sim: EdisSimulator, journalUrl: string, options: { backendUrl?: string; checkoutOf?: CliStack; config?: Record<string, string> } = {}): Promise<CliStack> {
    const stack = await CliStack.create({
        programDir: SERVERS,
        config: options.checkoutOf ? {} : { ...stackConfigFor(sim), "edis:journalUrl": journalUrl, "edis-servers:servers": JSON.stringify({ web }), "edis-servers:options": "{}", ...options.config },
        secretKeys: SECRET_KEYS,
        env: { ...s3.env, ...(options.backendUrl ? { PULUMI_BACKEND_URL: options.backendUrl } : {}) },
        checkoutOf: options.checkoutOf,
    });
    opened.push(stack);
    return stack;
}

function journalAt(url: string): OrderJournal {
    const location = parseJournalUrl(url, "journalUrl");
    if ("problem" in location) throw new Error(location.problem);
    return new OrderJournal(journalStoreAt(location));
}

test("the README's recipe, state and journal in one bucket: a runner killed after add/order answered; the next runner cancels the dead run's lock and orders nothing", async () => {
    const sim = await simulator({ provisioningDelayMs: 5000 });
    const bucket = await s3.bucket();
    const url = s3.journalUrl(bucket);
    // Pulumi's own s3:// backend in the same bucket, with the same parameters.
    const backendUrl = `s3://${bucket}?${url.split("?")[1]}`;
    const first = await runner(sim, url, { backendUrl });
    await upKilledWhileProvisioning(sim, first);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    expect(await journalAt(url).list()).toEqual([expect.objectContaining({ kind: "order", state: "ordered", serviceId: 1003, writer: expect.stringMatching(/ pid \d+/) })]);
    const second = await runner(sim, url, { backendUrl, checkoutOf: first });
    first.dispose();

    // The engine checkpointed a pending create and no resource; the backend keeps the dead run's lock.
    expect((await second.deployment()).pending_operations).toEqual([expect.objectContaining({ type: "creating", resource: expect.objectContaining({ urn: expect.stringMatching(/::web$/) }) })]);
    expect(await second.resources()).toEqual({});
    expect(failed(await second.up()).output).toContain("the stack is currently locked");
    ok(await second.run(["cancel", "--yes"]));
    const up = ok(await second.up());
    expect(up.output).toContain("pending operations from previous deployment");
    expect(up.output).toContain("it is in the order journal, so it is waited for, not ordered again");
    expect(up.ops.web).toEqual(["create"]);
    expect((await second.resources()).web.outputs).toMatchObject({ serviceId: 1003, kvmId: expect.stringMatching(/^kvm_/) });
    ok(await second.refresh(["--clear-pending-creates"]));
    expect((await second.deployment()).pending_operations ?? []).toEqual([]);
    ok(await second.preview(["--expect-no-changes"]));
    expect(paidWrites(sim)).toEqual(["add/order"]);
    // What stays is the server's holder record, until it is cancelled.
    expect((await journalAt(url).list()).map((e) => `${e.kind} ${e.state}`)).toEqual(["adoption held"]);
    ok(await second.destroy());
    expect(paidWrites(sim)).toEqual(["add/order", "cancel/product"]);
});

test("a second runner that starts while the first one's add/order is in flight sends none: it stops naming the first's entry", async () => {
    const sim = await simulator();
    // EDIS holds the first runner's add/order until the second runner has stopped: no clock decides who is first.
    let release!: () => void;
    const secondStopped = new Promise<void>((resolve) => (release = resolve));
    sim.holdByEndpoint["add/order"] = () => secondStopped;
    const url = s3.journalUrl(await s3.bucket());
    const first = await runner(sim, url, { config: { "edis:requestTimeoutSeconds": "600" } });
    const second = await runner(sim, url);
    const firstUp = first.up();
    await until(async () => (await journalAt(url).list()).some((e) => e.state === "sending"), "the first runner's entry is sending");
    let secondUp;
    try {
        secondUp = failed(await second.up());
    } finally {
        release();
    }
    expect(secondUp.output).toMatch(/the order for web1\.example\.com may or may not have been made: the deployment that sent it at \S+ \(.+ pid \d+ \([0-9a-f]{8}\)\) has recorded no answer/);
    expect(secondUp.output).toContain("still running on another machine that shares the order journal");
    // The command the error names works on the shared store.
    expect(secondUp.output).toContain(`--journal '${url}'`);
    ok(await firstUp);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    expect((await first.resources()).web.outputs).toMatchObject({ serviceId: 1003 });
    expect(ok(await first.destroy()).ops.web).toEqual(["delete"]);
});

test("two runners that deploy the same resource at the same moment send one add/order between them", async () => {
    const sim = await simulator();
    // EDIS holds an add/order until the other runner has ended or sent one too: neither runner can finish (and settle
    // its entry) before the other has tried, however the machine schedules them; no clock decides the overlap.
    let ups: Array<Promise<CliResult>> = [];
    let orders = 0;
    let secondOrder!: () => void;
    const bothOrdered = new Promise<void>((resolve) => (secondOrder = resolve));
    sim.holdByEndpoint["add/order"] = () => {
        if (++orders === 2) secondOrder();
        return Promise.race([bothOrdered, ...ups]);
    };
    const url = s3.journalUrl(await s3.bucket());
    const config = { "edis:requestTimeoutSeconds": "600" };
    const runners = [await runner(sim, url, { config }), await runner(sim, url, { config })];
    ups = runners.map((r) => r.up());
    const results = await Promise.all(ups);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    const succeeded = results.filter((r) => r.code === 0);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.code !== 0)) {
        expect(r.output).toMatch(/another deployment is sending the same order|has recorded no answer/);
    }
    expect(sim.account.state.services).toHaveLength(1);
});

test("a journal that cannot be reached or read stops the order before money: preview says so, up orders nothing; the orders CLI works on the store", async () => {
    const sim = await simulator();
    const bucket = await s3.bucket();
    const closed = `s3://${bucket}/edis-journal?endpoint=127.0.0.1:9&disableSSL=true&s3ForcePathStyle=true&region=us-east-1`;
    const stack = await runner(sim, closed);
    const preview = failed(await stack.preview());
    expect(preview.output).toContain(`the order journal at ${closed} could not be read`);
    expect(preview.output).toContain("nothing can be ordered until the order journal can be read");
    const up = failed(await stack.up());
    expect(up.output).toContain(`the order journal at ${closed} could not be`);
    expect(paidWrites(sim)).toEqual([]);

    // No credentials in the runner's environment: the same, with what to set.
    const url = s3.journalUrl(bucket);
    const anonymous = await runner(sim, url);
    anonymous.env = { AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_EC2_METADATA_DISABLED: "true", AWS_CONFIG_FILE: "/nonexistent", AWS_SHARED_CREDENTIALS_FILE: "/nonexistent" };
    const refused = failed(await anonymous.up());
    expect(refused.output).toContain("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
    expect(paidWrites(sim)).toEqual([]);

    // A URL the provider cannot use is named, with what it takes, in preview.
    const typo = await runner(sim, `${url}&endpont=x`);
    expect(failed(await typo.preview()).output).toMatch(/config `edis:journalUrl` \(or EDIS_JOURNAL_URL\) has the unknown parameter "endpont"/);
    expect(failed(await typo.up()).output).toContain('has the unknown parameter "endpont"');
    expect(paidWrites(sim)).toEqual([]);

    // The orders CLI, by the same URL: an entry left by a deployment is listed and forgotten in the store.
    await journalAt(url).claim({ kind: "order", state: "sending", key: "urn:pulumi:dev::edis-servers::pulumi-nodejs:dynamic/edis:KvmServer::web", hostname: web.hostname, sentAt: new Date().toISOString(), inputs: web });
    const blocked = failed(await (await runner(sim, url)).up());
    expect(blocked.output).toContain("may or may not have been made");
    expect(await runNamedCommand(blocked.output, "forget", undefined, s3.env)).toContain("forgot: urn:pulumi:dev::edis-servers::pulumi-nodejs:dynamic/edis:KvmServer::web  order  sending");
    expect(await journalAt(url).list()).toEqual([]);
    expect(paidWrites(sim)).toEqual([]);
});

/** The requests a command sent to the store (counted by the relay in front of MinIO). */
async function storeRequests(command: () => Promise<CliResult>): Promise<Record<string, number>> {
    const before = await s3.requestCounts();
    ok(await command());
    const after = await s3.requestCounts();
    return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]).filter(([, n]) => n !== 0));
}

test("what the journal in S3 costs, counted: three servers ordered, 13 requests a paid write (and up to 2 reads of creates that overlap it) and 4 once a process; preview one listing a server; refresh writes nothing, destroy one tombstone a server", async () => {
    const sim = await simulator();
    const url = s3.journalUrl(await s3.bucket());
    const stack = await runner(sim, url);
    const fleet = Object.fromEntries([1, 2, 3].map((i) => [`web${i}`, { ...web, hostname: `web${i}.example.com` }]));
    await stack.setConfig({ "edis-servers:servers": JSON.stringify(fleet) });
    const up = await storeRequests(() => stack.up());
    expect(paidWrites(sim)).toEqual(["add/order", "add/order", "add/order"]);
    // Each create reads its holder record before writing it, and lists the journal for a renamed resource's unfinished
    // order (entryFor), reading the entries of the other creates in flight that it finds unsettled: 0 to 2 each.
    const { GetObject: reads, ...rest } = up;
    expect(rest).toEqual({ ListObjectsV2: 3 * 3, PutObject: 3 * 5 + 3, DeleteObject: 1 });
    expect(reads).toBeGreaterThanOrEqual(3 * 5);
    expect(reads).toBeLessThanOrEqual(3 * 5 + 3 * 2);
    expect((await journalAt(url).list()).map((e) => e.kind)).toEqual(["adoption", "adoption", "adoption"]);
    expect(await storeRequests(() => stack.preview())).toEqual({ ListObjectsV2: 3 });
    expect(Object.keys(await storeRequests(() => stack.refresh())).filter((k) => k !== "ListObjectsV2" && k !== "GetObject")).toEqual([]);
    const destroy = await storeRequests(() => stack.destroy());
    expect(Object.keys(destroy).filter((k) => k !== "ListObjectsV2" && k !== "GetObject")).toEqual(["PutObject"]);
    expect(destroy.PutObject).toBe(3);
    expect(paidWrites(sim).filter((w) => w === "cancel/product")).toHaveLength(3);
});
