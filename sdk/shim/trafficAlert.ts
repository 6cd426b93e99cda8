/** The trafficAlert shim as this module's whole export, so that state stores a require of this file (see ../providerShim.ts). */
import { shimFor } from "../providerShim";

export = shimFor("trafficAlert");
