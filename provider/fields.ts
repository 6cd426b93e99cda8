/**
 * The offline input check of every resource: each input validated and normalized by its rule. Unset optional inputs are
 * left out (the host cannot send `undefined`) or set to their default, so that state shows what was used.
 */
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
        if (raw === UNKNOWN) {
            inputs[name] = raw;
            continue;
        }
        const result = rule.validate(raw);
        if (result.error) failures.push({ property: name, reason: `${name} ${result.error}` });
        else inputs[name] = result.value;
    }
    if (typeof news[RESOURCE_KEY] === "string") inputs[RESOURCE_KEY] = news[RESOURCE_KEY];
    if (Array.isArray(news[RESOURCE_ALIASES])) inputs[RESOURCE_ALIASES] = (news[RESOURCE_ALIASES] as unknown[]).filter((a) => typeof a === "string");
    for (const key of Object.keys(news)) {
        if (key !== "__provider" && key !== RESOURCE_KEY && key !== RESOURCE_ALIASES && !names.includes(key)) {
            const near = names.find((n) => n.toLowerCase() === key.toLowerCase());
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
