/**
 * Every id an answer names, read from its raw text whatever wraps or precedes it: a byte order mark, PHP notices or
 * warnings before the JSON, trailing HTML, an envelope object, lists, PHP's associative arrays (`{"0":1003}`),
 * numbers as strings, `print_r` and form-encoded dumps. An id in any answer of a paid write, whatever its status, is
 * something EDIS made and may bill (DESIGN.md section 4, "Any answer that names a service is an order").
 *
 *   fields      ids under a key that names them (`serviceids`, `service_id`, `orderId`, `invoice.id`, ...) in any
 *               JSON value found in the text, at any depth, or in a `key => value` / `key=value` / `<key>` dump:
 *               what the provider records (a service id goes to the stack's state and the journal)
 *   mentioned   ids the words mention ("order #5001 awaits payment of invoice #9002"): named in the error and the
 *               journal, never taken as this resource's server (a message may name another service of the account)
 */

export interface NamedIds {
    orderIds: number[];
    serviceIds: number[];
    invoiceIds: number[];
}

export interface IdsInAnswer {
    fields: NamedIds;
    /** "order 5001", "invoice 9002", "service 1003": what the words mention, as written. */
    mentioned: string[];
    /** Values under a key about a KVM (`kvmid`, `kvm_id`, `data.kvm`): the answer names a server. */
    kvms: string[];
}

type Kind = keyof NamedIds;

/** The kind of id a key names (`serviceids`, `service_id`, `service`); WHMCS's service-id names need the suffix (`relid`). */
function kindOfKey(key: string): { kind: Kind; direct: boolean } | undefined {
    const k = key.toLowerCase().replace(/[^a-z]/g, "");
    const m = /^(service|order|invoice|product|hosting|rel)s?(ids?|numbers?|nos?|nums?)?$/.exec(k);
    if (!m) return undefined;
    const whmcs = m[1] === "product" || m[1] === "hosting" || m[1] === "rel";
    if (whmcs && !m[2]?.startsWith("id")) return undefined;
    return { kind: whmcs ? "serviceIds" : (`${m[1]}Ids` as Kind), direct: m[2] !== undefined };
}

/** A whole, positive id: 1003 or "1003" (or "#1003"). */
function idOf(v: unknown): number | undefined {
    if (typeof v === "number") return Number.isSafeInteger(v) && v > 0 ? v : undefined;
    if (typeof v === "string" && /^\s*#?\d{1,15}\s*$/.test(v)) {
        const n = Number(v.replace(/[#\s]/g, ""));
        return n > 0 ? n : undefined;
    }
    return undefined;
}

/** A string that is only a list of ids ("1003,1004", "1003; 1004", "#1003 #1004"). */
function idList(v: string): number[] {
    if (!/^[\s#,;|/]*\d{1,15}(?:[\s#,;|/]+\d{1,15})*[\s#,;|/]*$/.test(v)) return [];
    return (v.match(/\d{1,15}/g) ?? []).map(Number).filter((n) => n > 0);
}

/** Every id in a value under a key that names them: numbers, numeric strings, lists, and maps (their values, or their keys when those are ids). */
function collect(value: unknown, into: number[], depth = 0): void {
    if (depth > 8) return;
    const one = idOf(value);
    if (one !== undefined) return void into.push(one);
    if (typeof value === "string") return void into.push(...idList(value));
    if (Array.isArray(value)) return value.forEach((v) => collect(v, into, depth + 1));
    if (!value || typeof value !== "object") return;
    const entries = Object.entries(value as Record<string, unknown>);
    const before = into.length;
    // A map's plain values, and what it holds under places ("0") or `id`; a nested record under another key has
    // fields of its own (a plan id, a price), which walk() reads by their names.
    for (const [key, v] of entries) if (typeof v !== "object" || /^\d+$/.test(key) || /^ids?$/i.test(key)) collect(v, into, depth + 1);
    // PHP's associative array keyed by the ids themselves: {"1003": "web1"}. Keys 0..n-1 are a list's places.
    const keys = entries.map(([k]) => k);
    if (into.length === before && !keys.every((k, i) => k === String(i))) {
        for (const k of keys) if (/^\d{1,15}$/.test(k) && Number(k) > 0) into.push(Number(k));
    }
}

/** The ids of a record named by its kind (`"service": {"id": 1003}`, `"services": [{"id": 1003}, 1004]`). */
function collectRecord(value: unknown, into: number[]): void {
    if (Array.isArray(value)) return value.forEach((v) => collectRecord(v, into));
    if (!value || typeof value !== "object") return collect(value, into);
    for (const [k, inner] of Object.entries(value as Record<string, unknown>)) if (/^ids?$/i.test(k)) collect(inner, into);
}

/** Walks a parsed value at every depth and collects the ids under keys that name them (and, given `kvms`, KVM values). */
function walk(value: unknown, ids: NamedIds, kvms?: string[], depth = 0): void {
    if (depth > 16 || !value || typeof value !== "object") return;
    if (Array.isArray(value)) return value.forEach((v) => walk(v, ids, kvms, depth + 1));
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        const named = kindOfKey(key);
        if (named) (named.direct ? collect : collectRecord)(v, ids[named.kind]);
        if (kvms && /kvm/i.test(key) && v !== null && v !== undefined && v !== "" && typeof v !== "object") kvms.push(String(v));
        walk(v, ids, kvms, depth + 1);
    }
}

/** The JSON values in a text: all of it (after a BOM), else each balanced `{...}`/`[...]` that parses; JSON in strings too. */
export function jsonValuesIn(text: string): unknown[] {
    const body = text.replace(/^\uFEFF/, "");
    const whole = tryParse(body.trim());
    if (whole.ok) return expand(whole.value);
    const found: unknown[] = [];
    for (let i = 0; i < body.length; i++) {
        const c = body[i];
        if (c !== "{" && c !== "[") continue;
        const end = balancedEnd(body, i);
        if (end < 0) continue;
        const parsed = tryParse(body.slice(i, end + 1));
        if (parsed.ok && parsed.value && typeof parsed.value === "object") {
            found.push(...expand(parsed.value));
            i = end;
        }
    }
    return found;
}

/** A value, and the JSON held in its string fields (a JSON document sent as a string, as add/order's own `order` is). */
function expand(value: unknown, depth = 0): unknown[] {
    const out: unknown[] = [value];
    if (depth > 3 || !value || typeof value !== "object") return out;
    for (const v of Object.values(value as Record<string, unknown>)) {
        if (typeof v === "string" && /^\s*[[{]/.test(v)) {
            const inner = tryParse(v.trim());
            if (inner.ok) out.push(...expand(inner.value, depth + 1));
        } else if (v && typeof v === "object") out.push(...expand(v, depth + 1).slice(1));
    }
    return out;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
    try {
        return { ok: true, value: JSON.parse(text) };
    } catch {
        return { ok: false };
    }
}

/** The index of the bracket that closes the one at `start`, skipping JSON strings; -1 when it is not closed. */
function balancedEnd(text: string, start: number): number {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
        const c = text[i];
        if (inString) {
            if (c === "\\") i++;
            else if (c === '"') inString = false;
            continue;
        }
        if (c === '"') inString = true;
        else if (c === "{" || c === "[") depth++;
        else if (c === "}" || c === "]") {
            depth--;
            if (depth === 0) return i;
        }
    }
    return -1;
}

/**
 * Ids under a named key in a text that is not (or not wholly) JSON: `"serviceids":"1003,1004"` cut short,
 * `[serviceids] => 1003` (print_r), `serviceid=1003` (a form), `<serviceid>1003</serviceid>`. The key is written as
 * a key (quoted, bracketed, tagged or joined to its `=`), so words ("service id 1003 is ...") are not fields.
 */
const KEY = String.raw`((?:service|order|invoice)s?[_-]?(?:ids?|numbers?|nos?|nums?))`;
const DUMPED = new RegExp(
    String.raw`(?:["']${KEY}["']\s*:|\[${KEY}\]\s*=>|\b${KEY}=|<${KEY}>)\s*(?:array\s*\(|[\["'({])?\s*((?:#?\d{1,15}(?:\s*[,;|]\s*|\s+)?)+)`,
    "gi",
);

/** "order #5001", "invoice 9002", "service ID 1003", "services 1003, 1004": the words' mentions. */
const MENTIONED = /\b(service|order|invoice)s?\b(?:\s+(?:id|ids|no\.?|number|num))?\s*[:#]?\s*#?(\d{2,15})\b/gi;

/** The ids under keys that name them in a parsed answer (a success's `serviceids` in whatever shape it comes). */
export function idsInValue(value: unknown): NamedIds {
    const ids: NamedIds = { orderIds: [], serviceIds: [], invoiceIds: [] };
    for (const v of expand(value)) walk(v, ids);
    return { orderIds: unique(ids.orderIds), serviceIds: unique(ids.serviceIds), invoiceIds: unique(ids.invoiceIds) };
}

/** Every id an answer's raw text names: in fields (recorded) and in words (named). */
export function idsInAnswer(raw: string | undefined): IdsInAnswer {
    const fields: NamedIds = { orderIds: [], serviceIds: [], invoiceIds: [] };
    const kvms: string[] = [];
    if (!raw) return { fields, mentioned: [], kvms };
    for (const value of jsonValuesIn(raw)) walk(value, fields, kvms);
    // A form-encoded dump writes the list's commas as %2C.
    for (const text of [raw, raw.replace(/%2C/gi, ",")]) {
        for (const m of text.matchAll(DUMPED)) {
            const named = kindOfKey(m[1] ?? m[2] ?? m[3] ?? m[4]);
            if (named) fields[named.kind].push(...idList(m[5]));
        }
    }
    const mentioned: string[] = [];
    for (const m of raw.matchAll(MENTIONED)) mentioned.push(`${m[1].toLowerCase()} ${m[2]}`);
    return {
        fields: { orderIds: unique(fields.orderIds), serviceIds: unique(fields.serviceIds), invoiceIds: unique(fields.invoiceIds) },
        mentioned: unique(mentioned),
        kvms: unique(kvms),
    };
}

function unique<T>(values: T[]): T[] {
    return [...new Set(values)];
}

/** "order 5001, service 1003, 1004, invoice 9002" for an error, or undefined when the answer names none. */
export function describeIds(ids: IdsInAnswer): string | undefined {
    const parts = [
        ids.fields.orderIds.length ? `order ${ids.fields.orderIds.join(", ")}` : undefined,
        ids.fields.serviceIds.length ? `service ${ids.fields.serviceIds.join(", ")}` : undefined,
        ids.fields.invoiceIds.length ? `invoice ${ids.fields.invoiceIds.join(", ")}` : undefined,
    ].filter((p): p is string => p !== undefined);
    const inFields = new Set(parts.join(" ").match(/\d+/g) ?? []);
    const words = ids.mentioned.filter((m) => !inFields.has(m.split(" ")[1]));
    if (words.length) parts.push(...words);
    return parts.length ? parts.join(", ") : undefined;
}
