// Collects every simulator's answers outside the specification; checkEveryAnswer.ts fails the test they happened in.
import type { SimAnswer } from "../../simulator/server";
import { conformanceProblems } from "./specSchemas";

const violations: string[] = [];

/** Checks one answer; the simulator's `onAnswer` hook. */
export function observeAnswer(answer: SimAnswer): void {
    violations.push(...conformanceProblems(answer));
}

export function takeViolations(): string[] {
    return violations.splice(0);
}
