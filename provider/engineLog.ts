/** Provider lines as engine diagnostics (Log service), under the resource's URN and severity: stderr buries them. */
import { AsyncLocalStorage } from "node:async_hooks";
import * as net from "node:net";
import * as path from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import type { Core } from "./runtime";

/** A module of @pulumi/pulumi or one it depends on, resolved from it: npm need not hoist its dependencies beside this package. */
export const fromPulumi = (id: string) => require(require.resolve(id, { paths: [path.dirname(require.resolve("@pulumi/pulumi/package.json"))] }));

const underResource = new AsyncLocalStorage<string>();
/** One line at a time, so the engine shows them in the order they were said ("ordered" before "waiting"). */
let lastLine = Promise.resolve();

export function inResource<T>(urn: string | undefined, run: () => Promise<T>): () => Promise<T> {
    return () => (urn ? underResource.run(urn, run) : run());
}

/** Log lines go to the engine at `address`; when it stops answering, the core is cancelled (watchEngine). */
export function connectEngine(core: Core, address: string): void {
    const grpc: typeof grpcTypes = fromPulumi("@grpc/grpc-js");
    const engrpc = fromPulumi("@pulumi/pulumi/proto/engine_grpc_pb");
    const engproto = fromPulumi("@pulumi/pulumi/proto/engine_pb");
    const engine = new engrpc.EngineClient(address, grpc.credentials.createInsecure());
    core.setLogSink((line) => {
        const req = new engproto.LogRequest();
        const warning = /^pulumi-edis: warning: /.test(line);
        req.setSeverity(warning ? engproto.LogSeverity.WARNING : engproto.LogSeverity.INFO);
        req.setMessage(line.replace(/^pulumi-edis: warning: /, "pulumi-edis: "));
        const urn = underResource.getStore();
        if (urn) req.setUrn(urn);
        lastLine = lastLine.then(
            () =>
                new Promise<void>((resolve) => {
                    // A slow engine holds an answer back 2 s at most; one that refuses gets the line on stderr instead.
                    const timer = setTimeout(resolve, 2000);
                    timer.unref();
                    const refused = () => {
                        clearTimeout(timer);
                        if (!process.stderr.destroyed) process.stderr.write(`${line}\n`);
                        resolve();
                    };
                    // A channel that throws is refused too: no answer (a create's service id) waits on a line.
                    try {
                        engine.log(req, (err: unknown) => (err ? refused() : (clearTimeout(timer), resolve())));
                    } catch {
                        refused();
                    }
                }),
        );
    });
    watchEngine(core, address);
}

/** An engine that stops answering (killed, or gone after a CI's 2nd signal) cancels the core: no paid write starts. */
export function watchEngine(core: Pick<Core, "cancel">, address: string, everyMs = 5_000): void {
    const m = /^(.*):(\d+)$/.exec(address);
    if (!m) return;
    let refused = 0;
    const timer = setInterval(() => {
        const socket = net.connect({ host: m[1], port: Number(m[2]) });
        socket.once("connect", () => ((refused = 0), socket.destroy()));
        socket.once("error", (e: NodeJS.ErrnoException) => {
            socket.destroy();
            // Twice in a row: a refused connection is nothing listening, never a busy engine.
            if (e.code === "ECONNREFUSED" && ++refused >= 2) {
                clearInterval(timer);
                core.cancel();
            }
        });
    }, everyMs);
    timer.unref();
}

/** Calls answer only after this: a Log arriving after its step ends is never shown. */
export function linesDelivered(): Promise<void> {
    return lastLine;
}
