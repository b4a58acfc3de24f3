import { vmSuite } from "./lib/vm-suite.js";
import scenarios from "./lab.scenarios.js";

vmSuite("kernel lab", new URL("./lab.scenarios.ts", import.meta.url), scenarios);
