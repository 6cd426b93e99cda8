// One answer per shape the specification shows, typed by the strict schemas; values made up, names and types as spec'd.
import { z } from "zod";
import * as spec from "./specSchemas";

export const SESSION_SIGNATURE = "S".repeat(24) + "ig".repeat(12) + "ok";

export const authAnswer: z.input<typeof spec.authAnswer> = {
    status: "success",
    data: {
        kvm_123456_789012: {
            api_host: "api-1.example.net",
            api_rdns: "dns-api.example.net",
            kvm_id: "kvm_123456_789012",
            valid_until: 1790000000,
            signature: SESSION_SIGNATURE,
            suspended: "n",
            description: "KVM M web-1.example.com",
            lps: "07",
            lps_ispremium: false,
        },
        kvm_123457_000001: {
            api_host: "api-2.example.net",
            api_rdns: "dns-api.example.net",
            kvm_id: "kvm_123457_000001",
            valid_until: 1790000000,
            signature: SESSION_SIGNATURE.toLowerCase(),
            suspended: "y",
            description: "KVM S db-1.example.com",
            lps: "12",
            lps_ispremium: true,
        },
    },
};

/** A location with a headline, one with an empty headline, one without. */
export const locationsAnswer: z.input<typeof spec.locationsAnswer> = {
    status: "success",
    locations: {
        "Frankfurt, Germany": { id: 11, headline: "DE-CIX" },
        "Vienna, Austria": { id: 12, headline: "" },
        "Zurich, Switzerland": { id: 13 },
    },
};

const eur = (amount: string) => ({ amount, currency: "EUR" });

/** Two plans whose groups differ; add-ons with and without `price`. */
export const productsAnswer: z.input<typeof spec.productsAnswer> = {
    status: "success",
    products: {
        "KVM M": {
            id: 102,
            description: {
                disk: { size: 40, unit: "GByte" },
                ram: { size: 2048, unit: "MByte" },
                cpu: { size: 2, unit: "core/socket" },
                traffic: { size: 10, unit: "TByte" },
                price: { monthly: eur("8.00"), quarterly: eur("23.28"), semiannually: eur("45.12"), annually: eur("86.40") },
            },
            addons: {
                "operating system": { "77": { id: 77, description: "Debian 12 (64bit)" }, "78": { id: 78, description: "Debian 11 (64bit)" } },
                "additional ram": {
                    "300": { id: 300, description: "no additional RAM" },
                    "301": { id: 301, description: "+1 GB RAM", price: { monthly: eur("2.00") } },
                },
                "additional ip": { "400": { id: 400, description: "+1 IPv4", price: { monthly: eur("1.50") } } },
                "additional drive boost": { "500": { id: 500, description: "no drive boost" } },
            },
        },
        "KVM S": {
            id: 101,
            description: {
                disk: { size: 20, unit: "GByte" },
                ram: { size: 1024, unit: "MByte" },
                cpu: { size: 1, unit: "core/socket" },
                traffic: { size: 2, unit: "TByte" },
                price: { monthly: eur("4.50"), quarterly: eur("13.10"), semiannually: eur("25.38"), annually: eur("48.60") },
            },
            addons: { "operating system": { "77": { id: 77, description: "Debian 12 (64bit)" } } },
        },
    },
};

export const orderAnswer: z.input<typeof spec.orderAnswer> = {
    status: "success",
    orderid: 5001,
    serviceids: "123,124",
    invoiceid: 9001,
    invoicepaid: true,
};
