import { vmSuite } from "./lib/vm-suite.js";
import scenarios from "./pppoe.scenarios.js";

vmSuite("PPPoESession", new URL("./pppoe.scenarios.ts", import.meta.url), scenarios);
