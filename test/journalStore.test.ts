// The journal's stores, a directory and S3 (a real MinIO, test/support/s3Server.ts), keep the same promises: a claim is
// created only if absent, a write replaces only the version it saw, a failure names the store.
import { configFromRequest } from "../provider/plugin/server";
import { UNKNOWN } from "../provider/fields";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { FileJournalStore, JournalClaimError, entryFor, JournalConflictError, JournalStore, JournalStoreError, OrderEntry, OrderJournal, parseJournalUrl } from "../provider/journal";
import { runOrdersCli } from "../provider/cli";
import { resolveConfig } from "../provider/config";
import { journalLocationFrom } from "../provider/journal/location";
import { S3JournalStore } from "../provider/journal/s3Store";
import { failureMessage } from "./support/inProcess";
import { S3Server, startS3Server } from "./support/s3Server";
import { PACKAGE_ROOT } from "./support/workspace";

let s3: S3Server;
const dirs: string[] = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
    s3 = await startS3Server();
    // The S3 store takes its credentials from the AWS SDK's standard chain, here the environment.
    Object.assign(process.env, s3.env);
});

afterAll(async () => {
    process.env = savedEnv;
    await s3?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function s3Store(bucket: string, prefix = "journal", url = s3.journalUrl(bucket, prefix)): S3JournalStore {
    const location = parseJournalUrl(url, "edis:journalUrl");
    if ("problem" in location || location.kind !== "s3") throw new Error(JSON.stringify(location));
    return new S3JournalStore(location);
}

const stores: Array<[string, () => Promise<JournalStore>]> = [
    [
        "a directory",
        async () => new FileJournalStore(join(tempDir(), "journal")),
    ],
    ["S3 (MinIO)", async () => s3Store(await s3.bucket())],
];

const order = (key: string, extra: Partial<OrderEntry> = {}): OrderEntry => ({
    kind: "order",
    state: "sending",
    key,
    hostname: "web1.example.com",
    sentAt: new Date().toISOString(),
    inputs: { hostname: "web1.example.com" },
    ...extra,
});
function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "edis-journal-"));
    dirs.push(dir);
    return dir;
}
/** The order entry a deployment of `key` would act on, from the directory journal at `dir`. */
const lookUp = (dir: string, key: string) => entryFor(new OrderJournal(dir), { key, aliases: [] }, "order", () => undefined);
const urn = (stack: string, name = "web1") => `urn:pulumi:${stack}::servers::pulumi-nodejs:dynamic/edis:KvmServer::${name}`;

describe.each(stores)("the journal in %s", (_title, open) => {
    test("create writes only where nothing is; replace only at the version it saw", async () => {
        const store = await open();
        expect(await store.get("a.json")).toBeUndefined();
        const v1 = await store.create("a.json", "one");
        expect(await store.get("a.json")).toEqual({ body: "one", version: v1 });
        await expect(store.create("a.json", "two")).rejects.toThrow(JournalConflictError);
        // Bodies of an entry's size: a listing skips objects shorter than a real entry (the S3 store's tombstones).
        const three = `three ${"x".repeat(64)}`;
        const v2 = await store.replace("a.json", three, v1);
        expect(v2).not.toBe(v1);
        await expect(store.replace("a.json", "four", v1)).rejects.toThrow(JournalConflictError);
        expect((await store.get("a.json"))?.body).toBe(three);
        await store.create("b.json", `b ${"x".repeat(64)}`);
        await store.create("ab.json", `ab ${"x".repeat(64)}`);
        expect((await store.list("a")).sort()).toEqual(["a.json", "ab.json"]);
        expect("remove" in store).toBe(false);
    });

    test("removal is a compare-and-swap too: a clear at a stale version keeps the newer entry; a claim takes a removed entry's place once", async () => {
        const store = await open();
        const key = urn("ci");
        const preview = new OrderJournal(store);
        const runner = new OrderJournal(store);
        await runner.claim(order(key));
        // A preview reads the entry; meanwhile the runner records the order.
        expect(await preview.read(key, "order")).toMatchObject({ state: "sending" });
        await runner.write(order(key, { state: "ordered", serviceId: 1003 }));
        // The preview's settle would remove what it read: it is refused, and the newer entry stays.
        await expect(preview.clear(key, "order")).rejects.toThrow(JournalConflictError);
        expect(await new OrderJournal(store).read(key, "order")).toMatchObject({ state: "ordered", serviceId: 1003 });
        // Removed at the version it has: every reader finds no entry, and a listing passes the tombstone over.
        await runner.clear(key, "order");
        expect(await new OrderJournal(store).read(key, "order")).toBeUndefined();
        expect(await new OrderJournal(store).list()).toEqual([]);
        await runner.clear(key, "order");
        // Two deployments claim over the tombstone at once: one wins, the other stops.
        const claims = await Promise.allSettled([new OrderJournal(store).claim(order(key)), new OrderJournal(store).claim(order(key))]);
        expect(claims.map((c) => c.status).sort()).toEqual(["fulfilled", "rejected"]);
        expect((claims.find((c) => c.status === "rejected") as PromiseRejectedResult).reason).toBeInstanceOf(JournalClaimError);
        expect(await new OrderJournal(store).read(key, "order")).toMatchObject({ state: "sending" });
    });

    test("eight deployments claim one write at once: exactly one claims it, each other stops naming the entry and its writer", async () => {
        const store = await open();
        const key = urn("ci");
        const results = await Promise.allSettled(Array.from({ length: 8 }, () => new OrderJournal(store).claim(order(key))));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const losers = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        expect(losers).toHaveLength(7);
        for (const l of losers) {
            expect(l.reason).toBeInstanceOf(JournalClaimError);
            expect(String(l.reason.message)).toMatch(/another deployment is sending the same order for .*: its entry \(sending, sent .* by .* pid \d+ \([0-9a-f]{8}\)\)/);
            expect(String(l.reason.message)).toContain("Nothing was sent");
        }
        // Keys that differ only in case are two entries, on any file system.
        await new OrderJournal(store).claim(order(urn("ci", "WEB1")));
        expect((await new OrderJournal(store).list()).map((e) => e.key).sort()).toEqual([urn("ci", "WEB1"), key]);
    });

    test("a transition replaces only what this deployment saw: a change by another deployment meanwhile is not overwritten", async () => {
        const store = await open();
        const key = urn("ci");
        const mine = new OrderJournal(store);
        await mine.claim(order(key));
        const other = new OrderJournal(store);
        const seen = await other.read(key, "order");
        await other.write({ ...seen!, state: "unknown", problem: "the user's own note" });
        await expect(mine.write(order(key, { state: "ordered", serviceId: 7 }))).rejects.toThrow(JournalConflictError);
        expect(await new OrderJournal(store).read(key, "order")).toMatchObject({ state: "unknown", problem: "the user's own note" });
        // A journal that reads again sees the other's entry and may then move it on.
        await mine.read(key, "order");
        await mine.write(order(key, { state: "ordered", serviceId: 7 }));
        expect(await other.read(key, "order")).toMatchObject({ state: "ordered", serviceId: 7 });
    });

    test("one listing finds a resource's own entries, and its entries under other stacks (in S3, nothing else)", async () => {
        const store = await open();
        const journal = new OrderJournal(store);
        await journal.claim(order(urn("prod")));
        await journal.claim(order(urn("staging")));
        await journal.claim(order(urn("prod", "web2")));
        await journal.write({ kind: "hook", state: "done", key: urn("prod"), hostname: "kvm1", kvmId: "kvm1", sentAt: "now", callbackUrl: "https://x", triggerPercent: 80, hookId: 3 });
        expect((await journal.entriesOf(urn("prod"))).map((e) => e.kind).sort()).toEqual(["hook", "order"]);
        const related = (await journal.related(urn("prod"))).map((e) => `${e.key} ${e.kind}`).sort();
        expect(related).toEqual(expect.arrayContaining([`${urn("prod")} hook`, `${urn("prod")} order`, `${urn("staging")} order`]));
        // By prefix: nothing of another resource is read, in a directory as in S3.
        expect(related).toHaveLength(3);
        expect(await journal.list()).toHaveLength(4);
        await journal.clear(urn("prod"), "order");
        expect((await journal.entriesOf(urn("prod"))).map((e) => e.kind)).toEqual(["hook"]);
    });
});

test("in a directory, a write is one exclusive create: nothing a killed writer leaves blocks another, and a writer behind changes nothing", async () => {
    const dir = tempDir();
    const store = new FileJournalStore(dir);
    // A process killed while writing leaves at most its temporary file: never read, never in the way.
    writeFileSync(join(dir, "e.json.1.4242.00ff00ff.tmp"), "half a");
    const first = await store.create("e.json", "one");
    expect(await store.list("")).toEqual(["e.json"]);
    const second = await store.replace("e.json", "two", first);
    await store.replace("e.json", "three", second);
    // Behind by one or two: its next number is taken, as no file is ever removed.
    for (const stale of [first, second]) await expect(store.replace("e.json", "stale", stale)).rejects.toThrow(JournalConflictError);
    for (const forged of ["-1", "0"]) await expect(store.replace("e.json", "forged", forged)).rejects.toThrow(JournalConflictError);
    expect(await store.get("e.json")).toEqual({ body: "three", version: "3" });
    expect(readdirSync(dir).sort()).toEqual(["e.json.1", "e.json.1.4242.00ff00ff.tmp", "e.json.2", "e.json.3"]);
    await expect(store.create("e.json", "again")).rejects.toThrow(JournalConflictError);
});

test("six processes that change one entry at the version they read: exactly one change is made", async () => {
    const dir = tempDir();
    const store = new FileJournalStore(dir);
    const version = await store.create("e.json", "the entry as every process read it");
    const child = `const { FileJournalStore } = require(${JSON.stringify(join(PACKAGE_ROOT, "dist", "provider", "journal", "store.js"))});
        new FileJournalStore(${JSON.stringify(dir)}).replace("e.json", "written by " + process.pid, ${JSON.stringify(version)})
            .then(() => console.log("changed"), (e) => console.log(e.name));`;
    const run = () => new Promise<string>((resolve) => execFile(process.execPath, ["-e", child], (_e, out) => resolve(out.trim())));
    const runs = await Promise.all(Array.from({ length: 6 }, run));
    expect(runs.sort()).toEqual([...Array(5).fill("JournalConflictError"), "changed"]);
    expect(readdirSync(dir).sort()).toEqual(["e.json.1", "e.json.2"]);
});

describe("what the journal never guesses", () => {
    test("a read that fails in a listing is an error, never taken for no entry (which would order, or cancel, on a guess)", async () => {
        const dir = tempDir();
        const inner = new FileJournalStore(dir);
        await new OrderJournal(inner).claim(order(urn("old-stack")));
        await new OrderJournal(inner).write({ kind: "extra", state: "unclaimed", key: urn("prod", "web2"), hostname: "h", sentAt: "now", orderIds: [], serviceIds: [9] });
        const failing = new FileJournalStore(dir);
        failing.get = async () => {
            throw new JournalStoreError("the order journal could not be read: SlowDown (HTTP 503)");
        };
        const journal = new OrderJournal(failing);
        await expect(journal.related(urn("new-stack"))).rejects.toThrow("SlowDown");
        await expect(journal.ofKind("extra")).rejects.toThrow("SlowDown");
        await expect(journal.entriesOf(urn("old-stack"))).rejects.toThrow("SlowDown");
        // A half-written entry is passed over.
        writeFileSync(join(dir, "0123456789abcdef0123456789abcdef01234567.order.json.1"), "{ half");
        expect((await new OrderJournal(inner).list()).map((e) => e.key).sort()).toEqual([urn("old-stack"), urn("prod", "web2")]);
    });

    test("no write drops an id the entry it replaces holds: it is refused, and the entry stays as it was", async () => {
        const dir = tempDir();
        const journal = new OrderJournal(dir);
        await journal.claim(order(urn("dev")));
        await journal.write(order(urn("dev"), { state: "ordered", serviceId: 5, orderId: 7 }));
        for (const dropping of [order(urn("dev"), { state: "created" }), order(urn("dev"), { state: "created", serviceId: 6, orderId: 7 })]) {
            await expect(journal.write(dropping)).rejects.toThrow(/holds service 5.*which a write would drop/);
            await expect(new OrderJournal(dir).write(dropping)).rejects.toThrow(/which a write would drop/);
        }
        expect(await new OrderJournal(dir).read(urn("dev"), "order")).toMatchObject({ state: "ordered", serviceId: 5, orderId: 7 });
        // Once removed (the engine has the server), the next order of the resource starts afresh.
        await journal.clear(urn("dev"), "order");
        await journal.claim(order(urn("dev")));
        await journal.write(order(urn("dev"), { state: "ordered", serviceId: 6 }));
    });

    test("orders move refuses a target that is not the entry's resource under another stack: a cut-off or mistyped word moves nothing", async () => {
        const dir = tempDir();
        await new OrderJournal(dir).write(order(urn("old"), { state: "unknown" }));
        const error = await failureMessage(lookUp(dir, urn("new")));
        const [, from, target] = /orders move ([0-9a-f]{16}) (urn64:[A-Za-z0-9_-]+) --dir/.exec(error)!;
        const run = async (...args: string[]) => {
            const out: string[] = [];
            return { code: await runOrdersCli(["orders", "move", ...args, "--dir", dir], (l) => out.push(l)), out: out.join("\n") };
        };
        for (const wrong of [target.slice(0, 50), "0123456789abcdef", urn("old", "web2"), `${target}x`]) {
            const r = await run(from, wrong);
            expect(r.code).toBe(2);
            expect(r.out).toContain("nothing was moved");
        }
        expect((await new OrderJournal(dir).list()).map((e) => e.key)).toEqual([urn("old")]);
        const r = await run(from, target);
        expect(r.code).toBe(0);
        expect((await new OrderJournal(dir).list()).map((e) => e.key)).toEqual([urn("new")]);
    });

    test("no entry is passed over for a tag: one written for another account or endpoint spelling is this resource's; another stack's blocks, the stack that may exist named first; an unparsable one stops the write", async () => {
        const dir = tempDir();
        // An older version's entry, tagged with the account and endpoint it was written for: still this resource's.
        await new OrderJournal(dir).write({ ...order(urn("ci"), { state: "unknown" }), account: "aaaaaaaaaaaaaaaa" } as OrderEntry);
        expect(await lookUp(dir, urn("ci"))).toMatchObject({ key: urn("ci"), state: "unknown" });
        await new OrderJournal(dir).clear(urn("ci"), "order");

        // The resource under another stack, in any unsaved state, blocks: naming that stack first, then `move`.
        for (const state of ["created", "sending", "unknown", "ordered"] as const) {
            await new OrderJournal(dir).write(order(urn("dev"), { state, serviceId: 5 }));
            const other = lookUp(dir, urn("prod"));
            await expect(other).rejects.toThrow(/If that stack still exists, run `pulumi preview` or `pulumi up` there first.*If this stack was renamed from that one, run `node '[^']+' orders move/);
        }
        // Told the provider resource (the plugin): a returned create under another provider of the same name is another
        // stack's and stops nothing; under the same provider (a renamed stack keeps its id), or another name, it stops the write.
        const provider = (stack: string, id: string, name = "default_1_0_0") => ({ urn: `urn:pulumi:${stack}::servers::pulumi:providers:edis::${name}`, id });
        const said: string[] = [];
        const asProd = (id: string, name?: string) => entryFor(new OrderJournal(dir), { key: urn("prod"), aliases: [], provider: provider("prod", id, name) }, "order", (l) => said.push(l));
        await new OrderJournal(dir).write(order(urn("dev"), { state: "created", serviceId: 5, provider: provider("dev", "p1") }));
        expect(await asProd("p2")).toBeUndefined();
        // Passed over, never silently: a provider made anew between a dead engine and a rename would look the same.
        expect(said).toEqual([expect.stringMatching(/^warning: the order journal records service 5 \(web1.example.com\) made at .* for urn:pulumi:dev::.*orders forget [0-9a-f]{16} --kind order/)]);
        await expect(asProd("p1")).rejects.toThrow(/holds an unfinished order for urn:pulumi:dev::/);
        await expect(asProd("p2", "default_2_0_0")).rejects.toThrow(/holds an unfinished order for urn:pulumi:dev::/);
        await new OrderJournal(dir).write(order(urn("dev"), { state: "ordered", serviceId: 5, provider: provider("dev", "p1") }));
        await expect(asProd("p2")).rejects.toThrow(/holds an unfinished order for urn:pulumi:dev::/);
        // Moved to another project, a stack finds its unsaved order by host name (either door); other host names pass.
        const moved = urn("x", "db1").replace("::servers::", "::servers-old::");
        await new OrderJournal(dir).write(order(moved, { state: "unknown", serviceId: 6, provider: provider("x", "p9") }));
        const asMoved = (hostname: string, p?: ReturnType<typeof provider>) =>
            entryFor(new OrderJournal(dir), { key: urn("x", "db1"), aliases: [], provider: p }, "order", (l) => said.push(l), (e) => e.hostname === hostname);
        said.length = 0;
        for (const p of [provider("x", "p9"), provider("x", "p8"), undefined]) {
            await expect(asMoved("web1.example.com", p)).rejects.toThrow(/holds an unfinished order for urn:pulumi:x::servers-old::.*in another stack or project/);
            expect(await asMoved("db1.example.com", p)).toBeUndefined();
        }
        expect(said).toEqual([]);
        // The plugin records the provider the engine names, unless checkpoints are skipped (it may be in none) or its id is unknown.
        const configure = (id: string) => configFromRequest({ getVariablesMap: () => new Map(), getArgs: () => undefined, getUrn: () => provider("dev", id).urn, getId: () => id }).provider;
        expect(configure("p1")).toEqual(provider("dev", "p1"));
        expect(configure(UNKNOWN)).toBeUndefined();
        process.env.PULUMI_SKIP_CHECKPOINTS = "true";
        try {
            expect(configure("p1")).toBeUndefined();
        } finally {
            delete process.env.PULUMI_SKIP_CHECKPOINTS;
        }

        // An entry of the same resource under another stack (its name starts with the resource's digest) that is half written.
        const resource = readdirSync(dir).find((f) => f.includes(".order.json"))!.split(".")[0];
        writeFileSync(join(dir, `${resource}.${"0".repeat(40)}.order.json.1`), "{ half");
        await expect(lookUp(dir, urn("other"))).rejects.toThrow(
            /order journal entry [0-9a-f]{16}\.0{40}\.order\.json .* cannot be read/,
        );
    });

    test("an entry of the same intent written by an earlier process with this host name and pid (a container's) still stops a renamed resource's write", async () => {
        const dir = tempDir();
        await new OrderJournal(dir).write(order(urn("dev", "old"), { state: "unknown" }));
        const file = join(dir, readdirSync(dir).find((f) => f.includes(".order.json"))!);
        writeFileSync(file, readFileSync(file, "utf8").replace(/"writer": "[^"]*"/, `"writer": "${hostname()} pid ${process.pid}"`));
        const renamed = entryFor(new OrderJournal(dir), { key: urn("dev", "new"), aliases: [] }, "order", () => undefined, (e) => e.hostname === "web1.example.com");
        await expect(renamed).rejects.toThrow(/the same intent in this stack/);
    });

    test("settings that would lose the journal are refused: empty values", () => {
        const empty = journalLocationFrom("", "config `edis:journalUrl`");
        expect(empty).toEqual({ kind: "unusable", problem: expect.stringContaining("config `edis:journalUrl` is set but empty") });
        expect(journalLocationFrom(" ", "k")).toMatchObject({ kind: "unusable" });
        expect(resolveConfig(() => undefined, { EDIS_JOURNAL_URL: "" }).journal).toMatchObject({ kind: "unusable" });
    });

    test.each([
        ["s3://bucket/p?endpont=x", /has the unknown parameter "endpont"; an s3:\/\/ journal URL takes endpoint .*region .*profile .*s3ForcePathStyle/],
        ["s3://AKIAEXAMPLE:s3cr3t@bucket/p", /must not hold credentials/],
        ["http://AKIAEXAMPLE:wJalr/K7MD/bPxRfi@minio:9000/j", /./],
        ["s3://bucket/j?endpoint=AKIAEXAMPLE:se%20cr/et@minio:9000", /./],
        ["s3://bucket/j?endpoint=AKIAEXAMPLE:secr/et@", /./],
        ["s3://B_/p", /is not a valid S3 bucket name/],
        ["s3://bucket/p?disableSSL=yes", /parameter disableSSL must be "true" or "false", got "yes"/],
        ["gs://bucket/p", /must be a file:\/\/<dir> or s3:\/\/<bucket>\/<prefix> URL/],
        ["s3://bucket/a%zz", /malformed %-escape/],
        ["file://a%zz", /malformed %-escape/],
    ])("the journal URL %s is refused, saying %s and echoing no key", (url, wanted) => {
        const r = parseJournalUrl(url, "config `edis:journalUrl`", "/work/prog");
        expect("problem" in r).toBe(true);
        const problem = "problem" in r ? r.problem : JSON.stringify(r);
        expect(problem).toMatch(wanted);
        expect(problem).not.toMatch(/s3cr3t|wJalr|K7MD|se cr|secr|AKIAEXAMPLE/);
    });

    test.each([
        ["file://localhost/var/j", { kind: "file", dir: "/var/j" }],
        ["file://.state/journal", { kind: "file", dir: "/work/prog/.state/journal" }],
        ["file:///var/journal", { kind: "file", dir: "/var/journal" }],
        [
            "s3://my-state/ci/edis?endpoint=minio.local:9000&disableSSL=true&s3ForcePathStyle=true&region=eu-1",
            { kind: "s3", url: "s3://my-state/ci/edis?endpoint=minio.local:9000&disableSSL=true&s3ForcePathStyle=true&region=eu-1", bucket: "my-state", prefix: "ci/edis", endpoint: "http://minio.local:9000", region: "eu-1", forcePathStyle: true, profile: undefined },
        ],
    ])("the journal URL %s is read as %j", (url, parsed) => {
        expect(parseJournalUrl(url, "k", "/work/prog")).toEqual(parsed);
    });
});

describe("the journal in S3", () => {
    test("a bucket that does not exist is a failure naming it, never an empty journal", async () => {
        const missing = s3Store("edis-no-such-bucket");
        await expect(missing.get("x.json")).rejects.toThrow(/could not be read .*NoSuchBucket/);
    });

    test("a conditional write retried after its answer was lost finds its own body and succeeds (S3 answers 412 to the retry)", async () => {
        const store = s3Store(await s3.bucket());
        const v = await store.create("x.json", "body");
        // What the SDK's retry of a create whose first answer was lost sees: the object is there, with this body.
        expect(await store.create("x.json", "body")).toBe(v);
        const v2 = await store.replace("x.json", "next", v);
        expect(await store.replace("x.json", "next", v)).toBe(v2);
        await expect(store.create("x.json", "another")).rejects.toThrow(JournalConflictError);
    });

    test("a store that refuses the credentials fails naming the store and why, never the secret key", async () => {
        const bucket = await s3.bucket();
        process.env.AWS_SECRET_ACCESS_KEY = "wrong-secret-key-0123456789";
        try {
            const refused = await s3Store(bucket).create("x.json", "b").then(() => undefined, (e: Error) => e);
            expect(refused).toBeInstanceOf(JournalStoreError);
            expect(refused!.message).toMatch(/could not be written .*SignatureDoesNotMatch/);
            expect(refused!.message).not.toContain("wrong-secret-key");
            expect(refused!.message).not.toContain(s3.secretAccessKey);
        } finally {
            process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
        }
    });

    test("a store that accepts conditional writes and ignores them is refused before the first claim, naming both conditions", async () => {
        // Not S3: an HTTP server that answers every request with success, as a store that ignores the conditions does.
        const { createServer } = await import("node:http");
        const requests: string[] = [];
        const server = createServer((req, res) => {
            requests.push(`${req.method} ${req.headers["if-none-match"] ? "If-None-Match" : ""}${req.headers["if-match"] ? "If-Match" : ""}`);
            req.resume().on("end", () => res.writeHead(req.method === "DELETE" ? 204 : 200, { etag: '"abc"' }).end());
        });
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        try {
            const port = (server.address() as { port: number }).port;
            const store = s3Store("lenient", "j", `s3://lenient/j?endpoint=127.0.0.1:${port}&disableSSL=true&s3ForcePathStyle=true&region=us-east-1`);
            await expect(new OrderJournal(store).claim(order(urn("ci")))).rejects.toThrow(
                /the order journal at s3:\/\/lenient\/j\?endpoint=.* cannot be used: the store ignores S3 conditional writes \(If-None-Match on PutObject, If-Match on PutObject\)/,
            );
            // The probe was sent and removed; the entry was never written.
            expect(requests).toEqual(["PUT If-None-Match", "PUT If-None-Match", "PUT If-Match", "DELETE "]);
        } finally {
            server.close();
        }
    });

    test("a journal whose setting is unusable stops every use of it: nothing can be claimed, so nothing is ordered", async () => {
        const { journalStoreAt } = await import("../provider/journal");
        const journal = new OrderJournal(journalStoreAt({ kind: "unusable", problem: "config `edis:journalUrl` has the unknown parameter \"x\"" }));
        await expect(journal.claim(order(urn("ci")))).rejects.toThrow(/the order journal cannot be used: config `edis:journalUrl` has the unknown parameter "x"/);
        await expect(journal.read(urn("ci"), "order")).rejects.toThrow(JournalStoreError);
    });
});

test("without @aws-sdk/client-s3 installed, a journal in S3 fails naming the package to install; a directory needs none of it", () => {
    const script = `
        const Module = require("node:module");
        const resolve = Module._resolveFilename;
        Module._resolveFilename = function (request, ...rest) {
            if (request.startsWith("@aws-sdk/client-s3")) { const e = new Error("Cannot find module '@aws-sdk/client-s3'"); e.code = "MODULE_NOT_FOUND"; throw e; }
            return resolve.call(this, request, ...rest);
        };
        const { journalStoreAt, parseJournalUrl } = require(${JSON.stringify(join(__dirname, "..", "dist", "provider", "journal"))});
        const s3 = journalStoreAt(parseJournalUrl("s3://bucket/journal?region=eu-central-1", "edis:journalUrl"));
        const dir = journalStoreAt({ kind: "file", dir: ${JSON.stringify(join(tmpdir(), "edis-no-s3"))} });
        Promise.all([s3.get("x.json").then(() => "read", (e) => e.message), dir.get("x.json").then(() => "read", (e) => e.message)]).then((r) => console.log(JSON.stringify(r)));
    `;
    const [s3, dir] = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
    expect(s3).toBe("the order journal cannot be used: a journal in S3 (s3://bucket/journal?region=eu-central-1) needs the AWS SDK's S3 client, which is not installed: run `npm install @aws-sdk/client-s3` in the program's directory");
    expect(dir).toBe("read");
});
