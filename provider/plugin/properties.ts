/** Property values between the engine's wire form and the same plain shapes the dynamic-provider host hands over. */
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";

/** sdk/go/common/resource/properties.go */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type Props = Record<string, unknown>;

function isSecret(v: unknown): v is { value: unknown } {
    return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

function unwrap(v: unknown, path: string, secrets: Set<string>): unknown {
    if (isSecret(v)) {
        secrets.add(path);
        return unwrap(v.value, path, secrets);
    }
    if (Array.isArray(v)) return v.map((x) => unwrap(x, path, secrets));
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrap(x, path, secrets)]));
    return v;
}

/** Plain values, and the top-level names that arrived as secrets (anywhere inside). */
export function fromStruct(s: Struct | undefined): { props: Props; secrets: Set<string> } {
    const secrets = new Set<string>();
    const raw = (s?.toJavaScript() ?? {}) as Props;
    const props = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, unwrap(v, k, secrets)]));
    return { props, secrets };
}

export function toStructValue(props: Props, secret: ReadonlySet<string>): Props {
    const out: Props = {};
    for (const [k, v] of Object.entries(props)) {
        if (v === undefined) continue;
        const plain = JSON.parse(JSON.stringify(v)) as unknown;
        out[k] = secret.has(k) ? { [SIG_KEY]: SECRET_SIG, value: plain } : plain;
    }
    return out;
}
