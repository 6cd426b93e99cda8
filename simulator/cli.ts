#!/usr/bin/env node
/**
 * `npm run simulator -- --port 18080 [--state file] [--email e] [--password p] [--latency-ms n]
 *   [--provisioning-delay-ms n] [--unpaid-invoices] [--out-of-stock pid,pid] [--fail endpoint:status[:times]]
 *   [--drop-after-order n] [--kvmid-not-yet null|error] [--provisioning-polls n] [--session-ttl-seconds n]
 *   [--no-api-access]`
 * Prints the base URL on one line and runs until stopped.
 */
import { parseArgs } from "node:util";
import { EdisSimulator, InjectedFault } from "./server";

const USAGE =
    "usage: npm run simulator -- [--port N] [--state FILE] [--email E] [--password P] [--credit EUR] " +
    "[--latency-ms N] [--provisioning-delay-ms N] [--unpaid-invoices] [--out-of-stock PID,PID] " +
    "[--fail ENDPOINT:STATUS[:TIMES]] [--drop-after-order N] [--kvmid-not-yet null|error] [--provisioning-polls N] " +
    "[--session-ttl-seconds N] [--no-api-access]";

async function main(argv: string[]): Promise<void> {
    const { values } = parseArgs({
        args: argv,
        options: {
            port: { type: "string" },
            state: { type: "string" },
            email: { type: "string" },
            password: { type: "string" },
            credit: { type: "string" },
            "latency-ms": { type: "string" },
            "provisioning-delay-ms": { type: "string" },
            "unpaid-invoices": { type: "boolean" },
            "out-of-stock": { type: "string" },
            fail: { type: "string", multiple: true },
            "drop-after-order": { type: "string" },
            "kvmid-not-yet": { type: "string" },
            "provisioning-polls": { type: "string" },
            "session-ttl-seconds": { type: "string" },
            "no-api-access": { type: "boolean" },
            help: { type: "boolean", short: "h" },
        },
    });
    if (values.help) {
        console.log(USAGE);
        return;
    }
    const num = (name: string, v: string | undefined) => {
        if (v === undefined) return undefined;
        const n = Number(v);
        if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} takes a number, got "${v}"\n${USAGE}`);
        return n;
    };
    const faults: InjectedFault[] = (values.fail ?? []).map((spec) => {
        const [endpoint, status, times] = spec.split(":");
        if (!endpoint || !/^\d{3}$/.test(status ?? "")) throw new Error(`--fail takes ENDPOINT:STATUS[:TIMES], got "${spec}"`);
        return { endpoint, status: Number(status), times: times ? Number(times) : 1 };
    });
    const notYet = values["kvmid-not-yet"];
    if (notYet !== undefined && notYet !== "null" && notYet !== "error") throw new Error(`--kvmid-not-yet takes null or error, got "${notYet}"\n${USAGE}`);
    const drops = num("drop-after-order", values["drop-after-order"]);
    if (drops) faults.push({ endpoint: "add/order", drop: "after", times: drops });
    const sim = await EdisSimulator.start({
        port: num("port", values.port),
        statePath: values.state,
        email: values.email,
        password: values.password,
        credit: num("credit", values.credit),
        latencyMs: num("latency-ms", values["latency-ms"]),
        provisioningDelayMs: num("provisioning-delay-ms", values["provisioning-delay-ms"]),
        unpaidInvoices: values["unpaid-invoices"],
        outOfStock: values["out-of-stock"]?.split(",").map(Number),
        kvmIdNotYet: notYet,
        provisioningPolls: num("provisioning-polls", values["provisioning-polls"]),
        sessionTtlSeconds: num("session-ttl-seconds", values["session-ttl-seconds"]),
        faults,
    });
    if (values["no-api-access"]) sim.account.state.apiAccess = false;
    console.log(sim.url);
    // The Management API hosts of every server, on the same port: config `edis:managementUrl`.
    console.log(sim.managementUrl);
    const stop = () => void sim.stop().then(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
}

main(process.argv.slice(2)).catch((e) => {
    const message = (e as Error).message;
    console.error(`simulator: ${message}${message.includes(USAGE) ? "" : `\n${USAGE}`}`);
    process.exit(2);
});
