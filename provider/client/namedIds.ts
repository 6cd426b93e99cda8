/** Ids an answer names, from its raw text: any in a paid write's answer may be billed; ids in words are only named. */

export interface NamedIds {
    orderIds: number[];
    serviceIds: number[];
    invoiceIds: number[];
}

export interface IdsInAnswer {
    fields: NamedIds;
    /** How many of `fields.serviceIds` come first by place: the documented `serviceids` field's, else every one. */
    placed: number;
    mentioned: string[];
    kvms: string[];
}

type Kind = keyof NamedIds;

/** WHMCS's service-id names need the suffix (`relid`). */
function kindOfKey(key: string): { kind: Kind; direct: boolean } | undefined {
    const k = key.toLowerCase().replace(/[^a-z]/g, "");
    const m = /^(service|order|invoice|product|hosting|rel)s?(ids?|numbers?|nos?|nums?)?$/.exec(k);
    if (!m) return undefined;
    const whmcs = m[1] === "product" || m[1] === "hosting" || m[1] === "rel";
    if (whmcs && !m[2]?.startsWith("id")) return undefined;
    return { kind: whmcs ? "serviceIds" : (`${m[1]}Ids` as Kind), direct: m[2] !== undefined };
}

function idOf(v: unknown): number | undefined {
    if (typeof v === "number") return Number.isSafeInteger(v) && v > 0 ? v : undefined;
    if (typeof v === "string" && /^\s*#?\d{1,15}\s*$/.test(v)) {
        const n = Number(v.replace(/[#\s]/g, ""));
        return n > 0 ? n : undefined;
    }
    return undefined;
}

function idList(v: string): number[] {
    if (!/^[\s#,;|/]*\d{1,15}(?:[\s#,;|/]+\d{1,15})*[\s#,;|/]*$/.test(v)) return [];
    return (v.match(/\d{1,15}/g) ?? []).map(Number).filter((n) => n > 0);
}

function collect(value: unknown, into: number[], depth = 0): void {
    if (depth > 8) return;
    const one = idOf(value);
    if (one !== undefined) return void into.push(one);
    if (typeof value === "string") return void into.push(...idList(value));
    if (Array.isArray(value)) return value.forEach((v) => collect(v, into, depth + 1));
    if (!value || typeof value !== "object") return;
    const entries = Object.entries(value as Record<string, unknown>);
    const before = into.length;
    // A nested record under another key has fields of its own (a plan id, a price): walk() reads those by name.
    for (const [key, v] of entries) if (typeof v !== "object" || /^\d+$/.test(key) || /^ids?$/i.test(key)) collect(v, into, depth + 1);
    // PHP's array keyed by the ids themselves: {"1003": "web1"}. Keys 0..n-1 are a list's places.
    const keys = entries.map(([k]) => k);
    if (into.length === before && !keys.every((k, i) => k === String(i))) {
        for (const k of keys) if (/^\d{1,15}$/.test(k) && Number(k) > 0) into.push(Number(k));
    }
}

/** `"service": {"id": 1003}`, `"services": [{"id": 1003}, 1004]`, `"services": {"1003": {...}}` (PHP's map keyed by ids). */
function collectRecord(value: unknown, into: number[]): void {
    if (Array.isArray(value)) return value.forEach((v) => collectRecord(v, into));
    if (!value || typeof value !== "object") return collect(value, into);
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length && entries.every(([k]) => /^\d{1,15}$/.test(k))) return void into.push(...entries.map(([k]) => Number(k)).filter((n) => n > 0));
    for (const [k, inner] of entries) if (/^ids?$/i.test(k)) collect(inner, into);
}

/** What a key naming a KVM holds: `"kvm": "kvm_1"`, `"kvm": {"id": "kvm_1"}`, `"kvms": ["kvm_1"]`. */
function kvmValues(v: unknown): string[] {
    if (v === null || v === undefined || v === "") return [];
    if (Array.isArray(v)) return v.flatMap(kvmValues);
    if (typeof v !== "object") return [String(v)];
    return Object.entries(v as Record<string, unknown>).flatMap(([k, inner]) => (/^ids?$/i.test(k) ? kvmValues(inner) : []));
}

function walk(value: unknown, ids: NamedIds, kvms?: string[], depth = 0): void {
    if (depth > 16 || !value || typeof value !== "object") return;
    if (Array.isArray(value)) return value.forEach((v) => walk(v, ids, kvms, depth + 1));
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        const named = kindOfKey(key);
        if (named) (named.direct ? collect : collectRecord)(v, ids[named.kind]);
        if (kvms && /kvm/i.test(key)) kvms.push(...kvmValues(v));
        walk(v, ids, kvms, depth + 1);
    }
}

/** All of the text as JSON, else each balanced `{...}`/`[...]` that parses; JSON in strings too. */
function jsonValuesIn(text: string): unknown[] {
    const whole = jsonOf(text);
    if (whole !== undefined) return expand(whole);
    const found: unknown[] = [];
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c !== "{" && c !== "[") continue;
        const end = balancedEnd(text, i);
        if (end < 0) continue;
        const parsed = jsonOf(text.slice(i, end + 1));
        if (parsed && typeof parsed === "object") {
            found.push(...expand(parsed));
            i = end;
        }
    }
    return found;
}

function expand(value: unknown, depth = 0): unknown[] {
    const out: unknown[] = [value];
    if (depth > 3 || !value || typeof value !== "object") return out;
    for (const v of Object.values(value as Record<string, unknown>)) {
        if (typeof v === "string" && /^\s*[[{]/.test(v)) {
            const inner = jsonOf(v);
            if (inner !== undefined) out.push(...expand(inner, depth + 1));
        } else if (v && typeof v === "object") out.push(...expand(v, depth + 1).slice(1));
    }
    return out;
}

/** The text as JSON, spaces and a byte-order mark around it aside (`trim` takes both); undefined when it is not JSON. */
export function jsonOf(text: string): unknown {
    try {
        return JSON.parse(text.trim());
    } catch {
        return undefined;
    }
}

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

/** Keys in non-JSON dumps; only written as a key, so words ("service id 1003 is ...") are not fields. */
const KEY = String.raw`((?:service|order|invoice)s?[_-]?(?:ids?|numbers?|nos?|nums?))`;
const DUMPED = new RegExp(
    String.raw`(?:["']${KEY}["']\s*:|\[${KEY}\]\s*=>|\b${KEY}=|<${KEY}>)\s*(?:array\s*\(|[\["'({])?\s*((?:#?\d{1,15}(?:\s*[,;|]\s*|\s+)?)+)`,
    "gi",
);

/** "service 1003", "order #5001", for the errors that name what an answer holds; not the start of a date or decimal. */
const MENTIONED = /\b(service|order|invoice)s?\b(?:\s+(?:id|ids|no\.?|number|num))?\s*[:#]?\s*#?(\d{2,15})\b(?![.,:/-]\d)/gi;

export function idsInAnswer(raw: string | undefined): IdsInAnswer {
    const fields: NamedIds = { orderIds: [], serviceIds: [], invoiceIds: [] };
    const kvms: string[] = [];
    if (!raw) return { fields, placed: 0, mentioned: [], kvms };
    const values = jsonValuesIn(raw);
    for (const value of values) walk(value, fields, kvms);
    for (const text of [raw, raw.replace(/%2C/gi, ",")]) {
        for (const m of text.matchAll(DUMPED)) {
            const named = kindOfKey(m[1] ?? m[2] ?? m[3] ?? m[4]);
            if (named) fields[named.kind].push(...idList(m[5]));
        }
    }
    const mentioned: string[] = [];
    for (const m of raw.matchAll(MENTIONED)) mentioned.push(`${m[1].toLowerCase()} ${m[2]}`);
    // Which service is which item's is read from add/order's documented fields alone, whatever order the keys come in:
    // an add-on's service id elsewhere in the answer is one of the extra services, never an item's.
    const record = documentedRecord(values);
    for (const [kind, name] of DOCUMENTED) fields[kind].unshift(...((record && fieldIds(record, name)) ?? []));
    const documented = record && fieldIds(record, "serviceids");
    const ids = uniqueIds(fields);
    // Without one readable documented field, none is placed: which item is whose cannot be told, and every id is extra.
    const placed = unique(documented ?? []).length;
    return { fields: ids, placed, mentioned: unique(mentioned), kvms: unique(kvms) };
}

/** The specification's fields of add/order's answer: `serviceids` has one id per ordered server, in item order. */
const DOCUMENTED: Array<[Kind, string]> = [["serviceIds", "serviceids"], ["orderIds", "orderid"], ["invoiceIds", "invoiceid"]];

/**
 * The record with add/order's `serviceids` field, wherever it stands (an envelope such as `data` is read); undefined when
 * none has it, or two name different ids (a notice quoting another answer, an add-on's record): which is ours is not told.
 */
function documentedRecord(values: unknown[]): object | undefined {
    const found = new Map<string, object>();
    const visit = (v: unknown): void => {
        if (!v || typeof v !== "object") return;
        const ids = fieldIds(v, "serviceids");
        if (ids) found.set(ids.join(","), v);
        for (const child of Object.values(v)) visit(child);
    };
    values.forEach(visit);
    return found.size === 1 ? [...found.values()][0] : undefined;
}

export function fieldIds(value: unknown, name: string): number[] | undefined {
    if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
    const key = Object.keys(value).find((k) => k.toLowerCase() === name);
    if (key === undefined) return undefined;
    const ids: number[] = [];
    collect((value as Record<string, unknown>)[key], ids);
    return ids;
}

function unique<T>(values: T[]): T[] {
    return [...new Set(values)];
}

function uniqueIds(ids: NamedIds): NamedIds {
    return { orderIds: unique(ids.orderIds), serviceIds: unique(ids.serviceIds), invoiceIds: unique(ids.invoiceIds) };
}

export function describeIds(ids: IdsInAnswer): string | undefined {
    const parts = (["order", "service", "invoice"] as const)
        .filter((kind) => ids.fields[`${kind}Ids`].length)
        .map((kind) => `${kind} ${ids.fields[`${kind}Ids`].join(", ")}`);
    const inFields = new Set(parts.join(" ").match(/\d+/g) ?? []);
    parts.push(...ids.mentioned.filter((m) => !inFields.has(m.split(" ")[1])));
    return parts.length ? parts.join(", ") : undefined;
}
