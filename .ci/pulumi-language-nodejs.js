#!/usr/bin/env node
/*
 * A stand-in for Pulumi's Node.js language host, installed by install-pulumi.sh only when the Go module proxy refuses
 * the real one (its module has no tags, and the proxy answers 403 for its pseudo-version). It decides nothing the
 * engine does: as the real host's Run (v3.259.0), it starts the program's @pulumi/pulumi `cmd/run` with the monitor and
 * engine addresses, project, stack, organization, directories, dry-run flag, parallelism and entry point as arguments,
 * and the config as PULUMI_CONFIG (keys `<namespace>:config:<name>`) and PULUMI_CONFIG_SECRET_KEYS. Left out: the
 * monitor proxy and synchronous-invoke pipes (unused by current SDKs), GetRequiredPackages/Plugins (read as none: the
 * bundled pulumi-nodejs is the only plugin needed), `pulumi new`/`install`/`about` and the debugger. Started as
 * `pulumi-language-nodejs <engine address>` in the program's directory; prints its port.
 */
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");

// The program's own @pulumi/pulumi, as the real host finds it: from the program's directory.
function fromProgram(mod, dir) {
    return require(require.resolve(mod, { paths: [dir || process.cwd()] }));
}

const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [process.cwd()] }));
const grpc = require(require.resolve("@grpc/grpc-js", { paths: [pulumiDir] }));
const langrpc = fromProgram("@pulumi/pulumi/proto/language_grpc_pb");
const langproto = fromProgram("@pulumi/pulumi/proto/language_pb");
const plugproto = fromProgram("@pulumi/pulumi/proto/plugin_pb");

const engineAddress = process.argv[process.argv.length - 1];
/** cmd/run's exit code for "the user was already told what is wrong": the engine stops without more output. */
const BAIL_EXIT_CODE = 32;
let running;

function runProgram(req) {
    const info = req.getInfo();
    const programDir = info ? info.getProgramDirectory() : req.getPwd();
    const options = info && info.getOptions() ? info.getOptions().toJavaScript() : {};
    const runPath = require.resolve("@pulumi/pulumi/cmd/run", { paths: [programDir] });
    const args = [runPath];
    const add = (k, v) => v !== undefined && v !== null && v !== "" && args.push(`--${k}`, String(v));
    add("monitor", req.getMonitorAddress());
    add("engine", engineAddress);
    add("organization", req.getOrganization());
    add("project", req.getProject());
    add("root-directory", info ? info.getRootDirectory() : undefined);
    add("stack", req.getStack());
    add("pwd", programDir);
    if (req.getDryrun()) args.push("--dry-run");
    add("parallel", req.getParallel());
    args.push(info ? info.getEntryPoint() || "." : req.getProgram() || ".");
    args.push(...req.getArgsList());

    const config = {};
    for (const [k, v] of req.getConfigMap().entries()) {
        const i = k.indexOf(":");
        config[i < 0 ? k : `${k.slice(0, i)}:config:${k.slice(i + 1)}`] = v;
    }
    const env = { ...process.env, PULUMI_CONFIG: JSON.stringify(config), PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(req.getConfigsecretkeysList()) };
    if (options.typescript !== false) env.PULUMI_NODEJS_TYPESCRIPT = "true";
    if (options.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = options.tsconfig;
    const nodeargs = options.nodeargs ? String(options.nodeargs).split(/\s+/).filter(Boolean) : [];

    return new Promise((resolve) => {
        const child = spawn(process.execPath, [...nodeargs, ...args], { cwd: programDir, env, stdio: ["ignore", "inherit", "inherit"] });
        running = child;
        child.on("error", (e) => resolve({ error: `Problem executing program (could not run language executor): ${e.message}` }));
        child.on("exit", (code, signal) => {
            running = undefined;
            if (code === 0) resolve({ error: "" });
            else if (code === BAIL_EXIT_CODE) resolve({ error: "", bail: true });
            else resolve({ error: `Program exited with non-zero exit code: ${code === null ? signal : code}` });
        });
    });
}

// The methods left out answer UNIMPLEMENTED (grpc-js's default handler), on which the engine falls back or stops.
const service = {
    run(call, cb) {
        runProgram(call.request).then(({ error, bail }) => {
            const resp = new langproto.RunResponse();
            resp.setError(error);
            if (bail) resp.setBail(true);
            cb(null, resp);
        });
    },
    getPluginInfo(_call, cb) {
        const resp = new plugproto.PluginInfo();
        resp.setVersion(require(path.join(pulumiDir, "package.json")).version);
        cb(null, resp);
    },
    cancel(_call, cb) {
        if (running) running.kill("SIGINT");
        cb(null, new (fromProgram("google-protobuf/google/protobuf/empty_pb", pulumiDir).Empty)());
    },
};

const server = new grpc.Server();
server.addService(langrpc.LanguageRuntimeService, service);
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
        console.error(`pulumi-language-nodejs: ${err.message}`);
        process.exit(1);
    }
    // The engine reads the port from the first line of stdout.
    process.stdout.write(`${port}\n`);
});
