#!/usr/bin/env node
/**
 * `pulumi-resource-edis`: the native provider plugin. The engine starts it as `pulumi-resource-edis <engine
 * address>` and reads the port it serves on from the first line of its stdout. The provider's lines go to the
 * engine's log (a plugin's stderr is shown only at higher verbosity), so a user sees them as with the dynamic host.
 */
import * as path from "node:path";
import { setLogSink } from "../runtime";
import { serve } from "./server";

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

const address = process.argv[2];
if (address) engineLog(address);

serve().then(
    (port) => process.stdout.write(`${port}\n`),
    (e) => {
        process.stderr.write(`pulumi-resource-edis: ${(e as Error).message}\n`);
        process.exit(1);
    },
);
