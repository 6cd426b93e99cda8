/**
 * The provider's lines as the engine's diagnostics: under the resource they are about (its URN) and with their severity
 * (a line that starts "warning:" is a warning), through the engine's Log service at the address each door's host is
 * given. Stderr would put them under the stack, as info, or hide them below the default verbosity.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import * as path from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import type { Core } from "./runtime";

// Resolved from @pulumi/pulumi: npm need not hoist its dependencies beside this package.
const fromPulumi = (id: string) => require(require.resolve(id, { paths: [path.dirname(require.resolve("@pulumi/pulumi/package.json"))] }));

/** The resource a call is about: its log lines show under it. */
const underResource = new AsyncLocalStorage<string>();

export function inResource<A extends unknown[], T>(urn: string | undefined, run: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
    return (...args) => (urn ? underResource.run(urn, () => run(...args)) : run(...args));
}

export function connectEngineLog(core: Core, address: string): void {
    const grpc: typeof grpcTypes = fromPulumi("@grpc/grpc-js");
    const engrpc = fromPulumi("@pulumi/pulumi/proto/engine_grpc_pb");
    const engproto = fromPulumi("@pulumi/pulumi/proto/engine_pb");
    const engine = new engrpc.EngineClient(address, grpc.credentials.createInsecure());
    core.setLogSink((line) => {
        const req = new engproto.LogRequest();
        req.setSeverity(/^pulumi-edis: warning: /.test(line) ? engproto.LogSeverity.WARNING : engproto.LogSeverity.INFO);
        req.setMessage(line.replace(/^pulumi-edis: warning: /, "pulumi-edis: "));
        const urn = underResource.getStore();
        if (urn) req.setUrn(urn);
        // An engine that went away must not hold an answer back.
        const sent = new Promise<void>((resolve) => {
            setTimeout(resolve, 2000).unref();
            engine.log(req, () => resolve());
        });
        linesInFlight.add(sent);
        void sent.then(() => linesInFlight.delete(sent));
    });
}

const linesInFlight = new Set<Promise<void>>();

/** Calls answer only after this: a Log arriving after its step ends is never shown. */
export function linesDelivered(): Promise<void> {
    return Promise.all([...linesInFlight]).then(() => undefined);
}
