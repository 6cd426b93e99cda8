/**
 * The engine-path harness: run a Pulumi program against the real dynamic-provider host, as `pulumi up`,
 * `preview`, `refresh` and `destroy` would, without a Pulumi CLI. Used by the tests and by `npm run demo`.
 */
export { TestStack } from "./engine";
export type { OperationResult, ResourceState, StackOptions, StackState, Step, StepOp } from "./engine";
export { ProviderHost, InitFailedError } from "./providerHost";
export { PACKAGE_ROOT, createProject, stackConfigFor } from "./workspace";
export { runNamedCommand } from "./journalCommand";
