#!/usr/bin/env node
/**
 * `pulumi-resource-edis`: the native provider plugin. The engine starts it as `pulumi-resource-edis [flags]
 * <engine address>` and reads the port it serves on from the first line of its stdout. The provider's lines go
 * to the engine's log (a plugin's stderr is shown only at higher verbosity), so a user sees them as with the
 * dynamic host.
 */
import * as path from "node:path";
import { setLogSink } from "../runtime";
import { packageVersion } from "../version";
import { serve } from "./server";

const USAGE =
    "usage: pulumi-resource-edis <engine address>\n" +
    "The edis provider plugin, started by the Pulumi engine (pulumi up, preview, refresh, destroy, import);\n" +
    "put it on the PATH (npm install --global pulumi-edis) or name its directory under `plugins:` in Pulumi.yaml.";

/** The flags the engine may pass a plugin (logging, tracing), taken and ignored. */
const ENGINE_FLAGS = /^(--logtostderr|--logflow|-v=\d+|--v=\d+)$/;

function engineLog(address: string): void {
    const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
    const fromPulumi = (id: string) => require(require.resolve(id, { paths: [pulumiDir] }));
    const grpc = fromPulumi("@grpc/grpc-js");
    const engrpc = fromPulumi("@pulumi/pulumi/proto/engine_grpc_pb");
    const engproto = fromPulumi("@pulumi/pulumi/proto/engine_pb");
    const engine = new engrpc.EngineClient(address, grpc.credentials.createInsecure());
    setLogSink((line) => {
        const req = new engproto.LogRequest();
        req.setSeverity(/^pulumi-edis: warning: /.test(line) ? engproto.LogSeverity.WARNING : engproto.LogSeverity.INFO);
        req.setMessage(line.replace(/^pulumi-edis: warning: /, "pulumi-edis: "));
        engine.log(req, () => undefined);
    });
}

function main(args: string[]): void {
    if (args.includes("--version")) return void process.stdout.write(`pulumi-resource-edis ${packageVersion()}\n`);
    if (args.includes("--help") || args.includes("-h")) return void process.stdout.write(`${USAGE}\n`);
    const positional: string[] = [];
    for (let i = 0; i < args.length; i++) {
        const a = args[i];
        if (ENGINE_FLAGS.test(a)) continue;
        if (a === "--tracing") {
            i++;
            continue;
        }
        if (a.startsWith("-")) {
            process.stderr.write(`Unknown option '${a}'\n${USAGE}\n`);
            process.exit(2);
        }
        positional.push(a);
    }
    if (positional[0]) engineLog(positional[0]);
    serve().then(
        (port) => process.stdout.write(`${port}\n`),
        (e) => {
            process.stderr.write(`pulumi-resource-edis: ${(e as Error).message}\n`);
            process.exit(1);
        },
    );
}

main(process.argv.slice(2));
