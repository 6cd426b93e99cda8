// What an EDIS answer means (provider/client/answers.ts): hand-written rows over loopback HTTP. kind: from the form
// alone; lookup: corroborates "gone" (a definite refusal in EDIS's form); retry: sent again. No EDIS answer makes a
// paid write "nothing happened" (only a request that never left does), and no words make a lookup definite.
import { createServer } from "node:http";
import { AddressInfo } from "node:net";
import { mayRetry, nothingHappened, refusedInEdisForm } from "../provider/client/answers";
import { EdisApiError, EdisErrorKind } from "../provider/client/errors";
import { postJson } from "../provider/client/transport";
import { request } from "../provider/client/request";
import { DEFAULT_RETRY_POLICY } from "../provider/client/retry";
import { idsInAnswer } from "../provider/client/namedIds";
import { systemClock } from "../provider/clock";
import { OrderEntry, OrderJournal } from "../provider/journal";
import { WriteOutcomeUnknownError, sendOnce } from "../provider/paidWrite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReplyServer, replyServer } from "./support/replyServer";

type Row = [http: number, body: string, kind: EdisErrorKind | "success", lookup: boolean, retry: boolean];
const json = (status: string, message?: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ status, ...(message === undefined ? {} : { message }), ...extra });

const TABLE: Row[] = [
    // ---- success: exactly the specification's word, in any case
    [200, json("success", undefined, { data: {} }), "success", false, false],
    [200, json("Success"), "success", false, false],
    [200, `\uFEFF${json("success")}`, "success", false, false],
    [200, json("ok"), "refused", false, false],
    [200, json("succeeded"), "refused", false, false],
    // ---- refusals in EDIS's form: definite for a lookup only at HTTP 404, whatever the words; unknown for a paid write, whatever the words
    [200, json("error", "Service not found"), "refused", false, false],
    [404, json("error", "KVM not found"), "refused", true, false],
    [404, JSON.stringify({ status: "error", msg: "service terminated" }), "refused", true, false],
    [404, json("error"), "refused", true, false],
    [200, json("error", "Service already cancelled"), "refused", false, false],
    [200, json("error", "Service has been cancelled effective 2031-01-31"), "refused", false, false],
    [200, json("error", "Service was cancelled and has been reactivated"), "refused", false, false],
    [200, json("error", "Your order must be reviewed by our team"), "refused", false, false],
    [200, json("error", "Insufficient credit: order #5001 awaits payment of invoice #9002"), "refused", false, false],
    [200, json("error", "upgrade invoice #77 awaits payment"), "refused", false, false],
    [200, json("error", "Invalid billing cycle"), "refused", false, false],
    [400, json("error", "Missing field: order"), "refused", false, false],
    [200, json("failed", "Out of stock"), "refused", false, false],
    [200, json("pending", "Order received"), "refused", false, false],
    [200, json("failed", "<b>Service</b> not&nbsp;found"), "refused", false, false],
    [200, JSON.stringify({ result: "error", status: "error", error: "Webhook with ID 9 not found" }), "refused", false, false],
    // ---- words that make it safer: "try again" is a retry, never definite; login words are never definite
    [200, json("error", "Please try again later"), "refused", false, true],
    [200, json("error", "Service not found. Try again in a minute"), "refused", false, true],
    [200, json("error", "System maintenance in progress"), "refused", false, true],
    [200, json("error", "Rate limit exceeded"), "refused", false, true],
    [200, json("error", "service_temporarily_unavailable"), "refused", false, true],
    [200, json("error", "Invalid email or password"), "refused", false, false],
    [200, json("error", "Client not found"), "refused", false, false],
    // ---- credentials, by HTTP status; "unknown" for a paid write too (the preflight stops a wrong password first)
    [401, json("error", "Unauthorized"), "credentials", false, false],
    [403, "<html>Forbidden</html>", "credentials", false, false],
    [403, json("failed", "Order placed; payment method not authorised"), "credentials", false, false],
    [401, json("error", "Unauthorized, but order 5001 was created", { orderid: 5001 }), "credentials", false, false],
    // ids in shapes no reader knows, or a success, in a refusal of the login: never "nothing" (any digit, or "success")
    [403, json("failed", "Bestellung 5001 angelegt, Zahlung nicht autorisiert"), "credentials", false, false],
    [403, 'array(1) { ["orderid"]=> int(5001) }', "credentials", false, false],
    [401, JSON.stringify({ status: "failed", productids: "1003" }), "credentials", false, false],
    [401, JSON.stringify({ status: "success", id: 77 }), "credentials", false, false],
    // a 404 is a "no" only in EDIS's form with a failure word, naming nothing, with no word that keeps the server
    [404, json("error", "Client not found"), "refused", false, false],
    [404, json("error", "Service is suspended"), "refused", false, false],
    [404, json("error", "Unknown endpoint get/kvmid"), "refused", false, false],
    [404, JSON.stringify({ status: "success", kvmid: "kvm_123456_789012" }), "refused", false, false],
    [404, JSON.stringify({ status: "error", data: { kvm_id: "kvm_123456_789012" } }), "refused", false, false],
    [404, JSON.stringify({ status: "", message: "" }), "refused", false, false],
    [404, JSON.stringify({ status: "error", message: "not found", detail: "database unavailable, try again later" }), "refused", false, true],
    // a 404 that names an id in its fields is not a "no"
    [404, JSON.stringify({ status: "error", message: "suspended", serviceid: 1003 }), "refused", false, false],
    // only a bare refusal (a failure status and words, nothing else) is a "no"; a known failure word only
    [404, JSON.stringify({ status: "error", kvm: { id: 4242 } }), "refused", false, false],
    [404, JSON.stringify({ status: "error", id: 4242 }), "refused", false, false],
    [404, JSON.stringify({ status: "error", data: { id: 4242 } }), "refused", false, false],
    [404, JSON.stringify({ status: "error", vps: "4242" }), "refused", false, false],
    [404, JSON.stringify({ status: "error", data: { kvm4242: {} } }), "refused", false, false],
    [404, JSON.stringify({ status: "OK.", message: "not found" }), "refused", false, false],
    [404, JSON.stringify({ status: "completed", message: "not found" }), "refused", false, false],
    [404, JSON.stringify({ status: "failed", message: "Service not found" }), "refused", true, false],
    // ---- no usable answer: anything may have happened
    [429, json("error", "Too many requests"), "rate_limited", false, true],
    [429, "", "rate_limited", false, true],
    [503, json("error", "Service Unavailable"), "server_error", false, true],
    [500, json("error", "SQLSTATE[42000]: near 'o\\'brien@example.com'"), "server_error", false, true],
    [502, "<html><body>Bad Gateway</body></html>", "server_error", false, true],
    [500, json("error", "Service not found"), "server_error", false, true],
    [408, "", "server_error", false, true],
    [200, "", "unexpected_answer", false, false],
    [200, "<!DOCTYPE html><html><body>Welcome</body></html>", "unexpected_answer", false, false],
    [200, "success", "unexpected_answer", false, false],
    [200, JSON.stringify({ message: "ok" }), "unexpected_answer", false, false],
    [200, JSON.stringify([{ status: "success" }]), "unexpected_answer", false, false],
    [200, `Notice: Undefined index: x in /var/www/api.php on line 12\n${json("success", undefined, { orderid: 5001, serviceids: "1003" })}`, "unexpected_answer", false, false],
    [200, `${json("success")}<!-- 0.12s -->`, "unexpected_answer", false, false],
    [404, "<html><body><h1>404 Not Found</h1>nginx</body></html>", "unexpected_answer", false, false],
    [404, "Not Found", "unexpected_answer", false, false],
    [404, JSON.stringify({ error: "Not Found" }), "unexpected_answer", false, false],
    [400, "Bad Request", "unexpected_answer", false, false],
];

let peer: ReplyServer;
beforeAll(async () => (peer = await replyServer()));
afterAll(() => peer.close());

async function answer(status: number, body: string): Promise<EdisApiError | "success"> {
    peer.replies = { "add/order": { status, text: body } };
    try {
        await postJson({ endpoint: "add/order", url: `${peer.url}/kvm/v2/add/order`, encoding: "form", fields: { serviceid: 1 }, timeoutMs: 5000, userAgent: "test" });
        return "success";
    } catch (e) {
        expect(e).toBeInstanceOf(EdisApiError);
        // The client adds the ids a paid write's answer names; the table's one such row names its order in a field.
        const err = e as EdisApiError;
        return /"orderid"/.test(body) ? err.with({ orderId: 5001 }) : err;
    }
}

test.each(TABLE)("HTTP %i %s -> %s (a paid write: unknown), a lookup definite: %s, retried: %s", async (status, body, kind, lookup, retry) => {
    const got = await answer(status, body);
    if (kind === "success") return expect(got).toBe("success");
    expect(got).not.toBe("success");
    const e = got as EdisApiError;
    expect(e.kind).toBe(kind);
    expect(nothingHappened(e)).toBe(false);
    expect(refusedInEdisForm(e)).toBe(lookup);
    expect(mayRetry(e)).toBe(retry);
});

test.each([
    ["closed", "not_sent", true],
    ["silent", "timeout", false],
    ["dropping", "network", false],
] as const)("a request to a %s port fails as %s; nothing happened: %s (only one that never left this machine made nothing)", async (how, kind, nothing) => {
    const peer = createServer(how === "dropping" ? (req) => req.socket.destroy() : () => undefined);
    await new Promise<void>((r) => peer.listen(0, "127.0.0.1", r));
    const port = (peer.address() as AddressInfo).port;
    const close = () => new Promise<void>((r) => peer.close(() => r()));
    if (how === "closed") await close();
    const timeoutMs = how === "silent" ? 200 : 5000;
    const e = await postJson({ endpoint: "add/order", url: `http://127.0.0.1:${port}/`, encoding: "form", fields: {}, timeoutMs, userAgent: "t" }).catch((e) => e);
    peer.closeAllConnections();
    if (how !== "closed") await close();
    expect([e.kind, nothingHappened(e)]).toEqual([kind, nothing]);
});

test("a failure on this side after the write was sent (no EDIS answer at all) is an unknown outcome: recorded, and its error is given the entry", async () => {
    const journal = new OrderJournal(mkdtempSync(join(tmpdir(), "edis-journal-")));
    const key = "urn:pulumi:dev::p::edis:index:KvmServer::web";
    const entry: OrderEntry = { kind: "order", state: "sending", key, hostname: "web.example.com", sentAt: new Date().toISOString(), inputs: {} };
    let given: OrderEntry | undefined;
    const sent = sendOnce<OrderEntry, unknown>({
        journal,
        entry,
        endpoint: "add/order",
        log: () => undefined,
        send: async () => {
            throw new TypeError("Cannot read properties of undefined (reading 'serviceids')");
        },
        made: (s) => s,
        madeDespite: () => undefined,
        unknown: (problem, e) => ((given = e), new WriteOutcomeUnknownError("the order", problem, "")),
    });
    await expect(sent).rejects.toBeInstanceOf(WriteOutcomeUnknownError);
    expect(given).toMatchObject({ key, state: "unknown" });
    expect(await journal.read(key, "order")).toMatchObject({ state: "unknown", problem: expect.stringContaining("serviceids") });
});

test("an answer whose reading throws is an answer of an unexpected shape: its text is kept, so the ids it names are read", async () => {
    peer.replies = { "add/order": { status: 200, text: json("success", undefined, { orderid: 5001, serviceids: "1003" }) } };
    const throwing = {
        safeParse(): never {
            throw new TypeError("Cannot read properties of undefined (reading 'x')");
        },
    };
    const settings = { timeoutMs: 5000, retryPolicy: DEFAULT_RETRY_POLICY, log: () => undefined, userAgent: "test", clock: systemClock };
    const call = { endpoint: "add/order", url: `${peer.url}/kvm/v2/add/order`, encoding: "form" as const, fields: {}, retry: "never" as const, schema: throwing };
    const e = (await request(settings, call).catch((x: unknown) => x)) as EdisApiError;
    expect(e).toBeInstanceOf(EdisApiError);
    expect(e.kind).toBe("unexpected_answer");
    expect(e.message).toContain("Cannot read properties of undefined");
    expect(idsInAnswer(e.rawAnswer).fields).toMatchObject({ orderIds: [5001], serviceIds: [1003] });
});
