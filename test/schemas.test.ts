/**
 * The tolerant parsing EDIS-API.md asks for, for answer shapes the simulator does not use. The shapes the
 * specification shows are in test/spec/conformance.test.ts.
 */
import * as wire from "../provider/client/schemas";
import { nextDelayMs, parseRetryAfter, DEFAULT_RETRY_POLICY } from "../provider/client/retry";
import { EdisApiError, Redactor } from "../provider/client/errors";

describe("get/kvmid and get/serviceid answers", () => {
    test.each([
        [{ status: "success", kvmid: "kvm_1_2" }, "kvm_1_2"],
        [{ status: "success", kvm_id: "kvm_1_2" }, "kvm_1_2"],
        [{ status: "success", data: { kvmid: "kvm_1_2" } }, "kvm_1_2"],
        [{ status: "success", data: { kvm_id: "kvm_1_2" } }, "kvm_1_2"],
        [{ status: "success", kvmid: null }, undefined],
        [{ status: "success", kvmid: "" }, undefined],
        [{ status: "success" }, undefined],
    ])("kvm id from %j", (body, expected) => {
        expect(wire.kvmIdAnswer.parse(body)).toBe(expected);
    });

    test.each([
        [{ serviceid: 12 }, 12],
        [{ serviceid: "12" }, 12],
        [{ service_id: "12" }, 12],
        [{ data: { serviceid: 12 } }, 12],
        [{ data: { service_id: "12" } }, 12],
        [{}, undefined],
    ])("service id from %j", (body, expected) => {
        expect(wire.serviceIdAnswer.parse(body)).toBe(expected);
    });

    test("an id that is not a number is an error naming the field", () => {
        const r = wire.serviceIdAnswer.safeParse({ serviceid: "abc" });
        expect(r.success).toBe(false);
        expect(wire.describeIssues(r.error!)).toContain("serviceid");
    });
});

describe("billing cycles and payment methods", () => {
    test.each([
        [{ billingcycles: ["Monthly", "Semi-Annually", "annually"] }, ["monthly", "semiannually", "annually"]],
        [{ billingcycles: { monthly: "Monthly", quarterly: "Quarterly" } }, ["monthly", "quarterly"]],
        [{ data: ["quarterly"] }, ["quarterly"]],
    ])("cycles from %j", (body, expected) => {
        expect(wire.billingCyclesAnswer.parse(body)).toEqual(expected);
    });

    test.each([
        [{ paymentmethods: ["paypal"] }, [{ id: "paypal", name: "paypal" }]],
        [{ paymentmethods: { paymentmethod: [{ module: "paypal", displayname: "PayPal" }] } }, [{ id: "paypal", name: "PayPal" }]],
        [{ paymentmethods: { paypal: "PayPal" } }, [{ id: "paypal", name: "PayPal" }]],
    ])("methods from %j", (body, expected) => {
        expect(wire.paymentMethodsAnswer.parse(body)).toEqual(expected);
    });
});

describe("orders, locations, sessions", () => {
    test("service ids as a comma list, a number or a list; invoicepaid as bool or string", () => {
        expect(wire.orderAnswer.parse({ orderid: "5", serviceids: "1, 2", invoiceid: 9, invoicepaid: "true" })).toEqual({ orderId: 5, serviceIds: [1, 2], invoiceId: 9, invoicePaid: true });
        expect(wire.orderAnswer.parse({ orderid: 5, serviceids: 7 }).serviceIds).toEqual([7]);
        expect(wire.orderAnswer.parse({ orderid: 5, serviceids: ["7", 8] }).serviceIds).toEqual([7, 8]);
        expect(wire.orderAnswer.safeParse({ orderid: 5, serviceids: "7,x" }).success).toBe(false);
    });

    test("locations with the fields another client saw", () => {
        expect(wire.locationsAnswer.parse({ locations: { Vienna: { id: "2", country: "AT", out_of_stock: 1 } } })).toEqual([
            { id: 2, name: "Vienna", headline: undefined, country: "AT", outOfStock: true },
        ]);
    });

    test("get/auth: an empty account is [] in PHP; suspended is any letter but n", () => {
        expect(wire.authAnswer.parse({ data: [] })).toEqual([]);
        const [s] = wire.authAnswer.parse({ data: { kvm_1_2: { api_host: "h", signature: "s", suspended: "y", lps: 3 } } });
        expect(s).toMatchObject({ kvmId: "kvm_1_2", suspended: true, lps: "3" });
    });
});

test("which failures leave a write's outcome unknown", () => {
    const unknown = (["network", "timeout", "server_error", "unexpected_answer"] as const).map((kind) => new EdisApiError({ endpoint: "x", kind }));
    const known = (["credentials", "not_found", "bad_request", "rate_limited"] as const).map((kind) => new EdisApiError({ endpoint: "x", kind }));
    expect(unknown.every((e) => e.outcomeUnknown)).toBe(true);
    expect(known.some((e) => e.outcomeUnknown)).toBe(false);
});

describe("retry timing and redaction", () => {
    const transient = new EdisApiError({ endpoint: "get/auth", kind: "server_error", status: 503 });
    test("exponential backoff with full jitter, capped; no retry after the last attempt or of a permanent error", () => {
        expect(nextDelayMs(DEFAULT_RETRY_POLICY, transient, 1, () => 1)).toBe(500);
        expect(nextDelayMs(DEFAULT_RETRY_POLICY, transient, 3, () => 1)).toBe(2000);
        expect(nextDelayMs({ ...DEFAULT_RETRY_POLICY, maxAttempts: 10 }, transient, 9, () => 1)).toBe(8000);
        expect(nextDelayMs(DEFAULT_RETRY_POLICY, transient, 1, () => 0)).toBe(0);
        expect(nextDelayMs(DEFAULT_RETRY_POLICY, transient, 4)).toBeUndefined();
        expect(nextDelayMs(DEFAULT_RETRY_POLICY, new EdisApiError({ endpoint: "x", kind: "credentials" }), 1)).toBeUndefined();
    });

    test("Retry-After in seconds or as a date, capped", () => {
        expect(parseRetryAfter("3")).toBe(3);
        expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3);
        expect(parseRetryAfter("soon")).toBeUndefined();
        const asked = new EdisApiError({ endpoint: "x", kind: "rate_limited", retryAfterSeconds: 3600 });
        expect(nextDelayMs(DEFAULT_RETRY_POLICY, asked, 1)).toBe(60_000);
    });

    test("the redactor removes a secret in every encoding an echo may use, longest first", () => {
        const r = new Redactor(["a+b c&d", "a+b"]);
        expect(r.redact("x a+b c&d y a%2Bb%20c%26d z a%2Bb+c%26d")).toBe("x [redacted] y [redacted] z [redacted]");
        const pw = "p/ä&\"x";
        const echoes = [
            pw,
            "p%2f%c3%a4%26%22x", // lower-case percent-encoding
            "p%2F%C3%A4%26%22x",
            "p\\/\\u00e4&\\\"x", // PHP's json_encode: \/ and \u00e4
            "p\\u002F\\u00E4\\u0026\\u0022x",
            "p&#47;&#228;&amp;&quot;x", // HTML entities
            "p&#x2f;&#xE4;&#38;&#x22;x",
        ];
        for (const echo of echoes) expect(new Redactor([pw]).redact(`<${echo}>`)).toBe("<[redacted]>");
    });

    test("with the signatures of a large account (1,000 secrets) every one is still removed, plain or encoded, and one secret inside another still goes whole", () => {
        const signatures = Array.from({ length: 1000 }, (_, i) => `sig${i.toString(36)}x${(i * 7919).toString(16)}Zq`);
        const r = new Redactor(["pass w+rd", ...signatures]);
        const some = [signatures[0], signatures[499], signatures[999]];
        expect(r.redact(`a ${some[0]} b ${some[1].toUpperCase()} c`)).toBe("a [redacted] b [redacted] c");
        const percent = [...some[2]].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join("");
        expect(r.redact(`echo=${percent}&pw=pass%20w%2Brd`)).toBe("echo=[redacted]&pw=[redacted]");
        // Text that holds no secret comes back as it was.
        expect(r.redact("EDIS get/power: no answer within 30 s")).toBe("EDIS get/power: no answer within 30 s");
        const nested = new Redactor([...signatures, `${signatures[5]}-tail`]);
        expect(nested.redact(`x ${signatures[5]}-tail y`)).toBe("x [redacted] y");
    });

    test("secrets of any length are removed from foreign text; the error's own words are never touched", () => {
        const r = new Redactor(["ab", "server"]);
        const e = new EdisApiError({ endpoint: "get/auth", kind: "server_error", status: 503, serverMessage: "server ab busy", detail: 'status "ab"', redactor: r });
        expect(e.message).toBe('EDIS get/auth: server error (HTTP 503); server said: [redacted] [redacted] busy; status "[redacted]"');
    });

    test("a secret across the cut of a long server message does not survive as a prefix", () => {
        const secret = "s3cr3t-Passw0rd";
        const e = new EdisApiError({ endpoint: "x", kind: "bad_request", serverMessage: `${"x".repeat(495)}${secret} and more`, redactor: new Redactor([secret]) });
        expect(e.serverMessage).toBe(`${"x".repeat(495)}[reda...`);
        expect(e.message).not.toContain("s3cr3");
    });
});
