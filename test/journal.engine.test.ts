/**
 * What the order journal in S3 costs, counted: the requests each operation sends to the store (MinIO on
 * 127.0.0.1, through the counting relay of test/support/s3Server.ts), through the engine path. The bench
 * (`npm run bench:journal`) reports the times.
 */
import { join } from "node:path";
import { OrderJournal, journalStoreAt, parseJournalUrl } from "../provider/journal";
import { PACKAGE_ROOT, TestStack } from "./harness";
import { S3Server, startS3Server } from "./support/s3Server";
import { stackConfigFor, startSimulator } from "./support/sim";
import { EdisSimulator } from "../simulator/server";

let s3: S3Server;
let sim: EdisSimulator;
let stack: TestStack;
let url: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
    s3 = await startS3Server();
    // The test's own look at the store, with the credentials the runner has.
    Object.assign(process.env, s3.env);
    sim = await startSimulator();
    url = s3.journalUrl(await s3.bucket());
    const fleet = Object.fromEntries([1, 2, 3].map((i) => [`web${i}`, { planId: 101, osId: 1012, hostname: `web${i}.example.com` }]));
    stack = TestStack.create({
        programDir: join(PACKAGE_ROOT, "test", "programs", "servers"),
        config: { ...stackConfigFor(sim), "edis:journalUrl": url, "edis-servers:servers": JSON.stringify(fleet) },
        secretKeys: ["edis:email", "edis:password"],
        env: s3.env,
    });
});

afterAll(async () => {
    process.env = savedEnv;
    stack?.dispose();
    await sim?.stop();
    await s3?.stop();
});

/** The requests an operation sent to the store. */
async function counted(operation: () => Promise<{ errors: string[] }>): Promise<Record<string, number>> {
    const before = await s3.requestCounts();
    const result = await operation();
    expect(result.errors).toEqual([]);
    const after = await s3.requestCounts();
    return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]).filter(([, n]) => n !== 0));
}

test("three servers ordered with the journal in S3: 10 requests a paid write, 4 once a process; the journal is empty after", async () => {
    const up = await counted(() => stack.up());
    expect(sim.calls("add/order")).toHaveLength(3);
    // Each order: GET in check (preview's journal read), GET and LIST before the claim, PUT "sending" (the claim),
    // PUT "ordered", GET and PUT "created"; once the engine saved it, the program's LIST and GET of the resource's entries
    // (the provider's own settle) and a conditional PUT of a tombstone. Once a process: the probe of conditional writes
    // (3 PUT, 1 DELETE).
    expect(up).toEqual({ GetObject: 3 * 4, ListObjectsV2: 3 * 2, PutObject: 3 * 4 + 3, DeleteObject: 1 });
    const location = parseJournalUrl(url, "journalUrl");
    if ("problem" in location) throw new Error(location.problem);
    expect(await new OrderJournal(journalStoreAt(location)).list()).toEqual([]);
});

test("a preview costs one listing a server and writes nothing; a refresh and a destroy write nothing to the store", async () => {
    expect(await counted(() => stack.preview())).toEqual({ ListObjectsV2: 3 });
    const refresh = await counted(() => stack.refresh());
    expect(Object.keys(refresh).filter((k) => k !== "ListObjectsV2" && k !== "GetObject")).toEqual([]);
    const destroy = await counted(() => stack.destroy());
    expect(Object.keys(destroy).filter((k) => k !== "ListObjectsV2" && k !== "GetObject")).toEqual([]);
    expect(sim.calls("cancel/product")).toHaveLength(3);
});
