#!/usr/bin/env node
/** `pulumi-edis-simulator` (USAGE): prints where it listens and how a stack points at it, then runs until stopped. */
import { parseArgs } from "node:util";
import { DEFAULT_PASSWORD, EdisSimulator, InjectedFault } from "./server";
import { packageVersion } from "../provider/version";

const USAGE =
    "usage: pulumi-edis-simulator (in this repository: npm run simulator --) [--version] [--help] [--port N] [--state FILE] [--email E] [--password P] [--credit EUR] " +
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
            version: { type: "boolean", short: "v" },
        },
    });
    if (values.help) return console.log(USAGE);
    if (values.version) return console.log(`pulumi-edis-simulator ${packageVersion()}`);
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
    console.log(
        [
            `EDIS simulator listening on ${sim.url}`,
            `  account: ${sim.account.state.email} (password: ${sim.account.state.password === DEFAULT_PASSWORD ? DEFAULT_PASSWORD : "the one it was started with"}), credit ${sim.account.state.credit.toFixed(2)} EUR`,
            `  point a stack at it:`,
            `    pulumi config set edis:baseUrl ${sim.url}`,
            `    pulumi config set edis:authUrl ${sim.url}`,
            `    pulumi config set edis:managementUrl '${sim.managementUrl}'`,
            `    pulumi config set --secret edis:email ${sim.account.state.email}`,
            `    pulumi config set --secret edis:password <the password>`,
            `    pulumi config set edis:paymentMethod credit`,
        ].join("\n"),
    );
    const stop = () => void sim.stop().then(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
}

main(process.argv.slice(2)).catch((e) => {
    const message = (e as Error).message;
    console.error(`simulator: ${message}${message.includes(USAGE) ? "" : `\n${USAGE}`}`);
    process.exit(2);
});
