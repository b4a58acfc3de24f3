import { vmSuite } from "./lib/vm-suite.js";
import scenarios from "./pppoe-daemon.scenarios.js";

vmSuite("routerd-pppoe-client", new URL("./pppoe-daemon.scenarios.ts", import.meta.url), scenarios);
