/** Offline input checks: unset optional inputs are left out (the host cannot send `undefined`) or defaulted. */
import { RESOURCE_ALIASES, RESOURCE_KEY } from "./journal";

/** pulumi.runtime.unknownValue */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type Validator = (value: unknown) => { value?: unknown; error?: string };

export interface FieldRule {
    required?: boolean;
    default?: unknown;
    validate: Validator;
}

export interface CheckFailure {
    property: string;
    reason: string;
}

export function checkFields(
    resource: string,
    rules: Record<string, FieldRule>,
    news: Record<string, unknown>,
): { inputs: Record<string, unknown>; failures: CheckFailure[] } {
    const names = Object.keys(rules);
    const inputs: Record<string, unknown> = {};
    const failures: CheckFailure[] = [];
    for (const name of names) {
        const raw = news[name];
        const rule = rules[name];
        if (raw === undefined || raw === null || (raw === "" && !rule.required)) {
            if (rule.required) failures.push({ property: name, reason: `${name} is required` });
            else if (rule.default !== undefined) inputs[name] = rule.default;
            continue;
        }
        const result = raw === UNKNOWN ? { value: raw } : rule.validate(raw);
        if (result.error) failures.push({ property: name, reason: `${name} ${result.error}` });
        else inputs[name] = result.value;
    }
    if (typeof news[RESOURCE_KEY] === "string") inputs[RESOURCE_KEY] = news[RESOURCE_KEY];
    if (Array.isArray(news[RESOURCE_ALIASES])) inputs[RESOURCE_ALIASES] = (news[RESOURCE_ALIASES] as unknown[]).filter((a) => typeof a === "string");
    for (const key of Object.keys(news)) {
        if (key !== "__provider" && key !== RESOURCE_KEY && key !== RESOURCE_ALIASES && !names.includes(key)) {
            const near = nearest(key, names);
            failures.push({
                property: key,
                reason: `${key} is not a ${resource} input${near ? ` (did you mean ${near}?)` : `; inputs are ${names.join(", ")}`}`,
            });
        }
    }
    return { inputs, failures };
}

/** Short, and never an object's contents. */
export function show(v: unknown): string {
    if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
    if (v === null || typeof v !== "object") return String(v);
    return Array.isArray(v) ? "a list" : "an object";
}

/** The provider host cannot send undefined ("Unexpected struct type"). */
export function compact<T extends object>(obj: T): T {
    return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

/** The name a mistyped one most resembles (case aside, at most a quarter of its letters, and 2, changed), if any. */
export function nearest(name: string, names: readonly string[]): string | undefined {
    const limit = Math.max(2, Math.floor(name.length / 4));
    let best: { name: string; distance: number } | undefined;
    for (const candidate of names) {
        const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
        if (distance <= limit && (!best || distance < best.distance)) best = { name: candidate, distance };
    }
    return best?.name;
}

function editDistance(a: string, b: string): number {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
        const next = [i];
        for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        row = next;
    }
    return row[b.length];
}
