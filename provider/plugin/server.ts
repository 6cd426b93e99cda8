/** The plugin's gRPC ResourceProvider over the dynamic implementations, adding config, detailed diff, URNs, import. */
import type * as grpcTypes from "@grpc/grpc-js";
import { withheldError, withhold } from "../client/withhold";
import { unknownSettings } from "../config";
import { CheckFailure, UNKNOWN } from "../fields";
import { RESOURCE_KEY, checkpointsSaved } from "../journal";
import { ConfigureRequest, Core } from "../runtime";
import { fromPulumi, inResource, linesDelivered } from "../engineLog";
import { packageVersion } from "../version";
import { Props, fromStruct, toStructValue } from "./properties";
import { ResourceDoor, inputsForState, outputsForState, resourcesOn, schemaText } from "./resources";
import { detailedDiff } from "./detailedDiff";

const grpc: typeof grpcTypes = fromPulumi("@grpc/grpc-js");
const provproto = fromPulumi("@pulumi/pulumi/proto/provider_pb");
const provrpc = fromPulumi("@pulumi/pulumi/proto/provider_grpc_pb");
const plugproto = fromPulumi("@pulumi/pulumi/proto/plugin_pb");
const statusproto = fromPulumi("@pulumi/pulumi/proto/status_pb");
const structproto = fromPulumi("google-protobuf/google/protobuf/struct_pb");
const emptyproto = fromPulumi("google-protobuf/google/protobuf/empty_pb");
const anyproto = fromPulumi("google-protobuf/google/protobuf/any_pb");
const { DIFF_SOME, DIFF_NONE, DIFF_UNKNOWN } = provproto.DiffResponse.DiffChanges;

/** Secrets in the provider's state whatever the stack config says. */
const CREDENTIALS = ["email", "password"] as const;

type Call = { request: any };
type Callback = (err: unknown, resp?: unknown, metadata?: unknown) => void;
type Step = (req: any, door: ResourceDoor, secrets: Set<string>) => Promise<unknown>;

function struct(props: Props) {
    return structproto.Struct.fromJavaScript(props);
}

function doorOf(resources: Record<string, ResourceDoor>, urn: string): ResourceDoor {
    // urn:pulumi:<stack>::<project>::<parent types$>type::name
    const type = urn.split("::")[2]?.split("$").pop() ?? "";
    const door = Object.hasOwn(resources, type) ? resources[type] : undefined;
    if (!door) throw new Error(`the edis provider has no resource type "${type}"; it has ${Object.keys(resources).join(", ")}`);
    return door;
}

function withKey(props: Props, urn: string): Props {
    return { ...props, [RESOURCE_KEY]: urn };
}

/** "Created but failed to initialise": id and outputs reach state, so the next `pulumi up` resumes the server. */
function failure(e: unknown, secrets: ReadonlySet<string>) {
    const err = withheldError(e) as { message?: string; id?: string; properties?: Props; reasons?: string[] };
    const message = err?.message ?? String(e);
    const metadata = new grpc.Metadata();
    if (err?.id) {
        const status = new statusproto.Status();
        status.setCode(grpc.status.UNKNOWN);
        status.setMessage(message);
        const detail = new provproto.ErrorResourceInitFailed();
        detail.setId(err.id);
        detail.setProperties(struct(toStructValue(err.properties ?? {}, secrets)));
        detail.setReasonsList(err.reasons?.length ? err.reasons : [message]);
        const any = new anyproto.Any();
        any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
        status.addDetails(any);
        metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
    }
    return { code: grpc.status.UNKNOWN, details: message, message, metadata };
}

function handle<T>(cb: Callback, run: () => Promise<T>, secrets: ReadonlySet<string> = new Set()): void {
    run().then(
        (resp) => linesDelivered().then(() => cb(null, resp)),
        (e) => {
            const f = failure(e, secrets);
            return linesDelivered().then(() => cb(f, null, f.metadata));
        },
    );
}

export function configFromRequest(req: any): ConfigureRequest {
    const values = new Map<string, string>();
    // `variables`: "edis:config:email" (older engines, and every key set in the stack config); `args`: typed inputs.
    for (const [k, v] of req.getVariablesMap().entries() as Iterable<[string, string]>) {
        const m = /^([^:]+):(?:config:)?(.+)$/.exec(k);
        if (m && m[1] === "edis") values.set(`edis:${m[2]}`, v);
    }
    const { props } = fromStruct(req.getArgs());
    for (const [k, v] of Object.entries(props)) {
        if (k === "version" || v === undefined || v === null) continue;
        values.set(`edis:${k}`, typeof v === "string" ? v : JSON.stringify(v));
    }
    // Sent by engines since March 2025; in a preview of a new provider the id is unknown (no create is sent then). With
    // PULUMI_SKIP_CHECKPOINTS the provider may be in no checkpoint when a create returns: then it is not recorded.
    const [urn, id] = [req.getUrn?.(), req.getId?.()];
    const provider = urn && id && id !== UNKNOWN && checkpointsSaved() ? { urn, id } : undefined;
    return { config: { get: (key: string) => values.get(key) }, provider };
}

function checkFailure(f: CheckFailure): unknown {
    const failure = new provproto.CheckFailure();
    failure.setProperty(f.property);
    failure.setReason(withhold(f.reason, { scope: "composed" }));
    return failure;
}

/** The service on one core. grpc-js calls handlers without `this`, so they reach the core through this closure. */
export function providerService(core: Core) {
    const resources = resourcesOn(core);
    /** A call about one resource, under its URN; `secrets`: outputs kept secret, a failure's too. */
    const onResource = (call: Call, cb: Callback, given: ReadonlySet<string>, run: Step) => {
        const secrets = new Set(given);
        const urn = call.request.getUrn();
        const step = async () => {
            const door = doorOf(resources, urn);
            for (const name of door.secretOutputs) secrets.add(name);
            return run(call.request, door, secrets);
        };
        handle(cb, inResource(urn, step), secrets);
    };
    return new (class EdisProviderService {
        getPluginInfo(_call: Call, cb: Callback) {
            const resp = new plugproto.PluginInfo();
            resp.setVersion(packageVersion());
            cb(null, resp);
        }

        getSchema(_call: Call, cb: Callback) {
            handle(cb, async () => {
                const resp = new provproto.GetSchemaResponse();
                resp.setSchema(schemaText());
                return resp;
            });
        }

        checkConfig(call: Call, cb: Callback) {
            handle(cb, async () => {
                // The engine sends CheckConfig no secret marks: credentials go back as secrets whatever the config says.
                const { props } = fromStruct(call.request.getNews());
                const resp = new provproto.CheckResponse();
                resp.setInputs(struct(toStructValue(props, new Set(CREDENTIALS))));
                // Keys the engine or an SDK adds beside the settings (older engines put these at the top level).
                const added = ["version", "pluginDownloadURL", "pluginChecksums", "parameter", "__internal"];
                resp.setFailuresList(unknownSettings(Object.keys(props).filter((k) => !added.includes(k))).map(checkFailure));
                return resp;
            });
        }

        diffConfig(call: Call, cb: Callback) {
            handle(cb, async () => {
                const olds = fromStruct(call.request.getOlds()).props;
                const news = fromStruct(call.request.getNews()).props;
                const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => k !== "version" && JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
                const resp = new provproto.DiffResponse();
                // A changed setting never replaces the servers a provider manages.
                resp.setChanges(keys.length ? DIFF_SOME : DIFF_NONE);
                resp.setDiffsList(keys);
                return resp;
            });
        }

        configure(call: Call, cb: Callback) {
            handle(cb, async () => {
                core.configure(configFromRequest(call.request));
                const resp = new provproto.ConfigureResponse();
                resp.setAcceptsecrets(true);
                resp.setSupportspreview(false);
                resp.setAcceptresources(false);
                resp.setAcceptoutputs(false);
                return resp;
            });
        }

        invoke(call: Call, cb: Callback) {
            handle(cb, async () => {
                const tok: string = call.request.getTok();
                // Lazy: the lookups bring @pulumi/pulumi's runtime, a second of start-up.
                const FUNCTIONS = (require("./functions") as typeof import("./functions")).functionsOn(core);
                const fn = FUNCTIONS[tok];
                if (!fn) throw new Error(`the edis provider has no function "${tok}"; it has ${Object.keys(FUNCTIONS).join(", ")}`);
                const result = await fn(fromStruct(call.request.getArgs()).props);
                const resp = new provproto.InvokeResponse();
                resp.setReturn(struct(toStructValue(result as Props, new Set())));
                return resp;
            });
        }

        check(call: Call, cb: Callback) {
            onResource(call, cb, new Set(), async (req, door) => {
                const olds = fromStruct(req.getOlds());
                const news = fromStruct(req.getNews());
                const result = await door.impl.check(olds.props, withKey(news.props, req.getUrn()));
                const resp = new provproto.CheckResponse();
                resp.setInputs(struct(toStructValue(inputsForState(result.inputs ?? news.props), news.secrets)));
                resp.setFailuresList((result.failures ?? []).map(checkFailure));
                return resp;
            });
        }

        diff(call: Call, cb: Callback) {
            onResource(call, cb, new Set(), async (req, door) => {
                const olds = fromStruct(req.getOlds()).props;
                const news = withKey(fromStruct(req.getNews()).props, req.getUrn());
                const result = await door.impl.diff(req.getId(), olds, news);
                const resp = new provproto.DiffResponse();
                resp.setChanges(result.changes === true ? DIFF_SOME : result.changes === false ? DIFF_NONE : DIFF_UNKNOWN);
                resp.setReplacesList(result.replaces ?? []);
                resp.setDeletebeforereplace(!!result.deleteBeforeReplace);
                const detail = detailedDiff(door, olds, news, result);
                if (!detail) return resp;
                resp.setDiffsList(Object.keys(detail));
                const map = resp.getDetaileddiffMap();
                for (const [key, { kind, inputDiff }] of Object.entries(detail)) {
                    const d = new provproto.PropertyDiff();
                    d.setKind(provproto.PropertyDiff.Kind[kind]);
                    d.setInputdiff(inputDiff);
                    map.set(key, d);
                }
                resp.setHasdetaileddiff(true);
                return resp;
            });
        }

        create(call: Call, cb: Callback) {
            const inputs = fromStruct(call.request.getProperties());
            onResource(call, cb, inputs.secrets, async (req, door, secrets) => {
                const result = await door.impl.create(withKey(inputs.props, req.getUrn()));
                const resp = new provproto.CreateResponse();
                resp.setId(result.id);
                resp.setProperties(struct(toStructValue(outputsForState(result.outs), secrets)));
                return resp;
            });
        }

        read(call: Call, cb: Callback) {
            const props = fromStruct(call.request.getProperties());
            onResource(call, cb, props.secrets, async (req, door, secrets) => {
                const inputs = fromStruct(req.getInputs());
                // No outputs: `pulumi import` (no inputs either) or `refresh --import-pending-creates`.
                const bare = Object.keys(props.props).length === 0;
                // A `get` (read step, refresh) sends empty inputs, an import none: a `get` holds nothing, so no URN.
                const reading = req.hasInputs() && Object.keys(inputs.props).length === 0 && props.props[RESOURCE_KEY] === undefined;
                const result = await door.impl.read(req.getId(), reading ? props.props : withKey(props.props, req.getUrn()));
                const resp = new provproto.ReadResponse();
                resp.setId(result.id ?? "");
                if (!result.id) return resp;
                let outs = outputsForState(result.props ?? {});
                // Import: inputs learned from EDIS are outputs too; what EDIS reported wins.
                const importing = bare && Object.keys(inputs.props).length === 0;
                const next = importing ? door.importedInputs(outs) : inputsForState(inputs.props);
                if (bare) outs = { ...next, ...outs };
                resp.setProperties(struct(toStructValue(outs, secrets)));
                resp.setInputs(struct(toStructValue(inputsForState(next), inputs.secrets)));
                return resp;
            });
        }

        update(call: Call, cb: Callback) {
            const news = fromStruct(call.request.getNews());
            onResource(call, cb, news.secrets, async (req, door, secrets) => {
                const olds = fromStruct(req.getOlds()).props;
                const result = await door.impl.update(req.getId(), olds, withKey(news.props, req.getUrn()));
                const resp = new provproto.UpdateResponse();
                resp.setProperties(struct(toStructValue(outputsForState(result.outs), secrets)));
                return resp;
            });
        }

        delete(call: Call, cb: Callback) {
            onResource(call, cb, new Set(), async (req, door) => {
                const props = fromStruct(req.getProperties()).props;
                await door.impl.delete(req.getId(), withKey(props, req.getUrn()));
                return new emptyproto.Empty();
            });
        }

        cancel(_call: Call, cb: Callback) {
            core.cancel();
            cb(null, new emptyproto.Empty());
        }
    })();
}

export function serve(core: Core): Promise<number> {
    const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
    const service = providerService(core) as unknown as grpcTypes.UntypedServiceImplementation;
    server.addService(provrpc.ResourceProviderService, service);
    return new Promise((resolve, reject) =>
        server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
    );
}
