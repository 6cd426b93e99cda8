/**
 * Collects, for the whole test run, what the simulators answered outside the specification. Every simulator a
 * test starts (test/support/sim.ts) reports each answer here; checkEveryAnswer.ts fails the test during which
 * a violation happened.
 */
import { appendFileSync } from "node:fs";
import type { SimAnswer } from "../../simulator/server";
import { conformanceProblems } from "./specSchemas";

const violations: string[] = [];
const checked: Record<string, number> = {};

/** Checks one answer; the simulator's `onAnswer` hook. */
export function observeAnswer(answer: SimAnswer): void {
    checked[answer.endpoint] = (checked[answer.endpoint] ?? 0) + 1;
    violations.push(...conformanceProblems(answer));
}

/** The violations seen since the last call. */
export function takeViolations(): string[] {
    return violations.splice(0);
}

/** With EDIS_CONFORMANCE_REPORT=<file>, each test file appends how many answers of each endpoint it checked. */
export function reportChecked(testFile: string): void {
    const file = process.env.EDIS_CONFORMANCE_REPORT;
    if (file) appendFileSync(file, `${JSON.stringify({ testFile, checked })}\n`);
}
