// The tolerant parsing EDIS-API.md asks for, on shapes the simulator does not use (spec shapes: spec/conformance.test).
import * as wire from "../provider/client/schemas";
import { nextDelayMs, parseRetryAfter, DEFAULT_RETRY_POLICY } from "../provider/client/retry";
import { EdisApiError } from "../provider/client/errors";
import { idsInAnswer } from "../provider/client/namedIds";
import { productsAnswer } from "./spec/fixtures";

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
        expect(wire.orderAnswer.parse({ orderid: "5", serviceids: "1, 2", invoiceid: 9, invoicepaid: "true" })).toEqual({ orderId: 5, serviceIds: [1, 2], placed: 2, invoiceId: 9, invoicePaid: true });
        expect(wire.orderAnswer.parse({ orderid: 5, serviceids: 7 }).serviceIds).toEqual([7]);
        expect(wire.orderAnswer.parse({ orderid: 5, serviceids: ["7", 8] }).serviceIds).toEqual([7, 8]);
        // Ids in any shape (namedIds.ts): PHP's associative arrays, under data, as strings.
        expect(wire.orderAnswer.parse({ orderid: 5, serviceids: { "0": 7, "1": "8" } }).serviceIds).toEqual([7, 8]);
        expect(wire.orderAnswer.parse({ data: { orderid: "5", serviceids: "7" } })).toMatchObject({ orderId: 5, serviceIds: [7] });
        // Not the specification's order result: read as unexpected, so its raw text's ids and words are named.
        expect(wire.orderAnswer.safeParse({ orderid: 5, serviceids: "7,x" }).success).toBe(false);
        expect(idsInAnswer(JSON.stringify({ orderid: 5, services: { "1003": { status: "Pending" } } })).fields.serviceIds).toEqual([1003]);
    });

    test("locations with the fields another client saw", () => {
        expect(wire.locationsAnswer.parse({ locations: { Vienna: { id: "2", country: "AT", out_of_stock: 1 } } }).locations).toEqual([
            { id: 2, name: "Vienna", headline: undefined, country: "AT", outOfStock: true },
        ]);
    });

    test("get/auth: an empty account is [] in PHP; suspended is any letter but n", () => {
        expect(wire.authAnswer.parse({ data: [] })).toEqual({ sessions: [], unreadable: [] });
        const [s] = wire.authAnswer.parse({ data: { kvm_1_2: { api_host: "h", kvm_id: "kvm_1_2", signature: "s", suspended: "y", lps: 3 } } }).sessions;
        expect(s).toMatchObject({ kvmId: "kvm_1_2", suspended: true, lps: "3" });
    });
});

describe("retry timing", () => {
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
        const now = Date.parse("2026-01-02T03:04:05Z");
        expect(parseRetryAfter(new Date(now + 5000).toUTCString(), now)).toBe(5);
        expect(parseRetryAfter("soon")).toBeUndefined();
        const asked = new EdisApiError({ endpoint: "x", kind: "rate_limited", retryAfterSeconds: 3600 });
        expect(nextDelayMs(DEFAULT_RETRY_POLICY, asked, 1)).toBe(60_000);
    });
});

test("an add-on group named like an Object property (constructor, toString) is another group, never a crash", () => {
    const answer = structuredClone(productsAnswer) as { products: Record<string, { addons: Record<string, unknown> }> };
    Object.assign(answer.products["KVM M"].addons, { constructor: { "600": { id: 600, description: "x" } }, toString: { "601": { id: 601, description: "y" } } });
    const plan = wire.productsAnswer(1).parse(answer).find((p) => p.id === 102)!;
    expect(Object.keys(plan.addons.other).sort()).toEqual(["constructor", "toString"]);
    expect(wire.addonGroupNamed("constructor")).toBeUndefined();
    expect(wire.addonGroupNamed("additional ram")).toBe("ram");
});
