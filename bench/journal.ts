/**
 * `npm run bench:journal`: the order journal in S3 (MinIO on 127.0.0.1, which counts requests) against one in a
 * directory, through the real `pulumi` CLI. The request counts carry over to a real store; the times do not, as the store
 * here is local.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CliStack, ok } from "../test/cli/pulumi";
import { PACKAGE_ROOT, stackConfigFor } from "../test/support/workspace";
import { EdisSimulator } from "../simulator/server";
import { startS3Server } from "../test/support/s3Server";

const PROGRAM = join(PACKAGE_ROOT, "test", "programs", "servers");

async function main(argv: string[]): Promise<void> {
    const { values } = parseArgs({ args: argv, options: { sizes: { type: "string" } } });
    const sizes = (values.sizes ?? "1,10").split(",").map(Number);
    const s3 = await startS3Server();
    try {
        for (const servers of sizes) {
            for (const journal of ["directory", "S3"] as const) {
                const sim = await EdisSimulator.start({ provisioningDelayMs: 0 });
                const fleet = Object.fromEntries(Array.from({ length: servers }, (_, i) => [`s${i}`, { planId: 101, osId: 1012, hostname: `s${i}.bench.example.com` }]));
                const stack = await CliStack.create({
                    programDir: PROGRAM,
                    config: {
                        ...stackConfigFor(sim),
                        "edis-servers:servers": JSON.stringify(fleet),
                        "edis:maxNewServers": String(servers),
                        ...(journal === "S3" ? { "edis:journalUrl": s3.journalUrl(await s3.bucket()) } : {}),
                    },
                    secretKeys: ["edis:email", "edis:password"],
                    env: s3.env,
                });
                try {
                    for (const operation of ["up", "preview", "refresh", "destroy"] as const) {
                        const before = await s3.requestCounts();
                        const started = Date.now();
                        ok(await stack[operation]());
                        const ms = Date.now() - started;
                        const after = await s3.requestCounts();
                        const requests = Object.fromEntries(Object.keys(after).map((api) => [api, after[api] - (before[api] ?? 0)]).filter(([, n]) => n !== 0));
                        console.log(`${servers} server(s), journal in ${journal}: ${operation} ${ms} ms, S3 requests ${JSON.stringify(requests)}`);
                    }
                } finally {
                    stack.dispose();
                    await sim.stop();
                }
            }
        }
    } finally {
        await s3.stop();
    }
}

main(process.argv.slice(2)).then(() => process.exit(0));
