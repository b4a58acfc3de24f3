import { vmSuite } from "./lib/vm-suite.js";
import scenarios from "./links.scenarios.js";

vmSuite("link kinds", new URL("./links.scenarios.ts", import.meta.url), scenarios);
