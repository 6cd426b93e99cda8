#!/usr/bin/env node
/** The native provider plugin: the engine starts `pulumi-resource-edis [flags] <engine address>` and reads its port from stdout's first line. */
import { packageVersion } from "../version";
import { Core } from "../runtime";
import { serve } from "./server";
import { connectEngine } from "../engineLog";

const USAGE =
    "usage: pulumi-resource-edis <engine address>\n" +
    "The edis provider plugin, started by the Pulumi engine (pulumi up, preview, refresh, destroy, import);\n" +
    "put it on the PATH (npm install --global pulumi-edis) or name its directory under `plugins:` in Pulumi.yaml.";

/** Taken and ignored. */
const ENGINE_FLAGS = /^(--logtostderr|--logflow|-v=\d+|--v=\d+)$/;

function main(args: string[]): void {
    if (args.includes("--version")) return void process.stdout.write(`pulumi-resource-edis ${packageVersion()}\n`);
    if (args.includes("--help") || args.includes("-h")) return void process.stdout.write(`${USAGE}\n`);
    const positional: string[] = [];
    for (let i = 0; i < args.length; i++) {
        const a = args[i];
        if (ENGINE_FLAGS.test(a)) continue;
        if (a === "--tracing") i++;
        else if (a.startsWith("-")) {
            process.stderr.write(`Unknown option '${a}'\n${USAGE}\n`);
            process.exit(2);
        } else positional.push(a);
    }
    const core = new Core();
    if (positional[0]) connectEngine(core, positional[0]);
    serve(core).then(
        (port) => process.stdout.write(`${port}\n`),
        (e) => {
            process.stderr.write(`pulumi-resource-edis: ${(e as Error).message}\n`);
            process.exit(1);
        },
    );
}

main(process.argv.slice(2));
