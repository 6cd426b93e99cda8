/**
 * The rule book of what an EDIS answer means (provider/client/answers.ts), as a table of real-looking answers
 * sent over loopback HTTP and read by the transport, so that the shape handling (HTML, empty bodies, status
 * words in other cases, non-JSON) is tested with the words. Each row is one answer a server could plausibly
 * give; the meaning is written by hand from what the words say, never computed.
 */
import { createServer, Server } from "node:http";
import { AddressInfo } from "node:net";
import { Meaning } from "../provider/client/answers";
import { EdisApiError, Redactor } from "../provider/client/errors";
import { postJson } from "../provider/client/transport";

type Row = [http: number, body: string, meaning: Meaning | "success"];
const json = (status: string, message?: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ status, ...(message === undefined ? {} : { message }), ...extra });

const TABLE: Row[] = [
    // ---- success, in any case
    [200, json("success", undefined, { data: {} }), "success"],
    [200, json("Success"), "success"],
    [200, json(" SUCCESS "), "success"],
    // ---- gone: EDIS says it does not know the service, KVM or product asked about
    [200, json("error", "Service not found"), "gone"],
    [200, json("error", "SERVICE NOT FOUND"), "gone"],
    [200, json("error", "service_not_found"), "gone"],
    [404, json("error", "KVM not found"), "gone"],
    [200, json("error", "The requested service could not be found."), "gone"],
    [200, json("error", "Service ID 1003 does not exist"), "gone"],
    [200, json("error", "No such service"), "gone"],
    [200, json("error", "Unknown KVM: kvm-77"), "gone"],
    [404, json("error"), "gone"],
    [200, json("error", "Not found"), "gone"],
    [200, json("error", "Product with ID 1003 was not found"), "gone"],
    [200, json("failed", "<b>Service</b> not&nbsp;found"), "gone"],
    [200, JSON.stringify({ status: "error", msg: "VPS no longer exists" }), "gone"],
    [200, JSON.stringify({ result: "error", status: "error", error: "Webhook with ID 9 not found" }), "gone"],
    // ---- not gone: "not found" about something else, inside other words, or temporary
    [200, json("error", "Service temporarily unavailable (backend not found), please try again later"), "retry"],
    [200, json("error", "Backend for this service not found"), "unknown"],
    [200, json("error", "Location not found"), "refused"],
    [200, json("error", "Payment method not found"), "refused"],
    [200, json("error", "Order ID not found"), "refused"],
    [200, json("error", "An unknown error occurred"), "unknown"],
    [200, json("error", "Invalid request: notfound parameter"), "refused"],
    [200, json("error", "Service found, but the operation is not permitted"), "refused"],
    [404, "<html><body><h1>404 Not Found</h1>nginx</body></html>", "unknown"],
    [404, "Not Found", "unknown"],
    [404, JSON.stringify({ error: "Not Found" }), "unknown"],
    // ---- cancelled, read for its meaning
    [200, json("error", "Service already cancelled"), "cancelled"],
    [200, json("error", "This service has already been terminated"), "cancelled"],
    [200, json("Error", "Product was terminated on 2026-01-02"), "cancelled"],
    [200, json("error", "Service is Cancelled"), "cancelled"],
    [200, json("error", "Service cannot be terminated before the end of its minimum contract term"), "refused"],
    [200, json("error", "Service can not be cancelled: an invoice is overdue"), "refused"],
    [200, json("error", "The service is not yet cancelled"), "refused"],
    [200, json("error", "Termination failed, please contact support"), "unknown"],
    [200, json("error", "Cancellation already requested for the end of the billing period"), "refused"],
    [200, json("error", "There is already an outstanding cancellation request for this service"), "refused"],
    [200, json("error", "Service is not active"), "refused"],
    [200, json("error", "Unable to cancel: it was never terminated"), "refused"],
    [200, json("error", "If the service is already cancelled, nothing is done"), "unknown"],
    [200, json("error", "Service is terminated only at the end of the minimum contract term"), "refused"],
    [200, json("error", "The service will be cancelled at the end of the billing period"), "unknown"],
    // ---- credentials
    [200, json("error", "Invalid email or password"), "credentials"],
    [200, json("error", "Authentication Failed"), "credentials"],
    [401, json("error", "Unauthorized"), "credentials"],
    [403, "<html>Forbidden</html>", "credentials"],
    [200, json("error", "Client not found"), "credentials"],
    // ---- retry later: nothing is known about the thing asked about
    [200, json("error", "Please try again later"), "retry"],
    [200, json("error", "Service not found. Try again in a minute"), "retry"],
    [200, json("error", "System maintenance in progress"), "retry"],
    [429, json("error", "Too many requests"), "retry"],
    [429, "", "retry"],
    [503, json("error", "Service Unavailable"), "retry"],
    [200, json("error", "Rate limit exceeded"), "retry"],
    // ---- unknown: no usable answer
    [200, "", "unknown"],
    [200, "<!DOCTYPE html><html><body>Welcome</body></html>", "unknown"],
    [200, "success", "unknown"],
    [200, JSON.stringify({ message: "ok" }), "unknown"],
    [200, JSON.stringify([{ status: "success" }]), "unknown"],
    [500, json("error", "Database error"), "unknown"],
    [502, "<html><body>Bad Gateway</body></html>", "unknown"],
    [500, "", "unknown"],
    [200, json("error", "Internal processing error"), "unknown"],
    // ---- found by review: words about another subject, or that something was made, never gone, cancelled or refused
    [500, json("error", "A task was canceled."), "unknown"],
    [400, json("error", "The operation was canceled."), "refused"],
    [200, json("error", "Your session has been terminated"), "unknown"],
    [200, json("error", "Order has been cancelled"), "unknown"],
    [200, json("error", "Cancelled already? No: the service is active"), "unknown"],
    [500, json("error", "Database server not found"), "unknown"],
    [502, json("error", "Upstream server not found"), "unknown"],
    [500, json("error", "Unknown server error"), "unknown"],
    [200, json("error", "Service not found or suspended"), "refused"],
    [200, json("error", "Service ID not found in active services"), "refused"],
    [200, json("error", "Missing parameter: serviceid not found in request"), "refused"],
    [200, json("error", "service not found (yet), provisioning queued"), "unknown"],
    [200, json("error", "Your order has been placed but payment failed"), "unknown"],
    [200, json("pending", "Order received"), "unknown"],
    [200, json("error", "SQLSTATE[40001]: Deadlock found when trying to get lock"), "unknown"],
    [200, json("error", "Order pending fraud check"), "unknown"],
    [200, json("error", "no healthy upstream"), "unknown"],
    [200, json("error", "cURL error 56: Recv failure: Connection reset by peer"), "unknown"],
    [200, json("error", "Undefined index: serviceids"), "unknown"],
    [200, json("error", "Duplicate entry '1003' for key 'PRIMARY'"), "unknown"],
    [200, json("error", "Order created"), "unknown"],
    [200, json("error", "KVM kvm_101003_445097 not found"), "gone"],
    // ---- refused: understood and refused, nothing happened
    [200, json("error", "Service 1003 has no KVM assigned at the moment"), "refused"],
    [200, json("error", "The service is not provisioned yet"), "refused"],
    [200, json("error", "Invalid billing cycle"), "refused"],
    [400, json("error", "Missing field: order"), "refused"],
    [200, json("failed", "Out of stock"), "refused"],
    [200, json("error"), "unknown"],
    [400, "Bad Request", "refused"],
];

let server: Server;
let url: string;
let next: { status: number; body: string } = { status: 200, body: "" };

beforeAll(async () => {
    server = createServer((req, res) => {
        req.resume();
        req.on("end", () => {
            res.writeHead(next.status, { "content-type": "application/json" });
            res.end(next.body);
        });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kvm/v2/get/kvmid`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function meaningOfAnswer(status: number, body: string): Promise<Meaning | "success"> {
    next = { status, body };
    try {
        await postJson({ endpoint: "get/kvmid", url, encoding: "form", fields: { serviceid: 1 }, timeoutMs: 5000, redactor: new Redactor(), userAgent: "test" });
        return "success";
    } catch (e) {
        expect(e).toBeInstanceOf(EdisApiError);
        return (e as EdisApiError).meaning;
    }
}

test("the table is the rule book: at least forty answers, every meaning among them", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    expect(new Set(TABLE.map((r) => r[2]))).toEqual(new Set(["success", "gone", "cancelled", "credentials", "refused", "retry", "unknown"]));
});

test.each(TABLE)("HTTP %i %s -> %s", async (status, body, meaning) => {
    expect(await meaningOfAnswer(status, body)).toBe(meaning);
});

test("no answer at all is unknown: a refused connection and a time-out", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await postJson({ endpoint: "get/kvmid", url: `http://127.0.0.1:${port}/`, encoding: "form", fields: {}, timeoutMs: 5000, redactor: new Redactor(), userAgent: "t" }).catch((e) => e);
    expect(refused.meaning).toBe("unknown");
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const slow = await postJson({ endpoint: "get/kvmid", url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, encoding: "form", fields: {}, timeoutMs: 200, redactor: new Redactor(), userAgent: "t" }).catch((e) => e);
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
    expect(slow.meaning).toBe("unknown");
    expect(slow.kind).toBe("timeout");
});
