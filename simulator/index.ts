export { EdisSimulator, DEFAULT_EMAIL, DEFAULT_PASSWORD } from "./server";
export type { InjectedFault, LogEntry, SimAnswer, SimulatorOptions } from "./server";
export type { AccountBehaviour, AccountState, SimService } from "./account";
export { LOCATIONS, PLANS } from "./catalogue";
