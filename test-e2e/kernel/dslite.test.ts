import { vmSuite } from "./lib/vm-suite.js";
import scenarios from "./dslite.scenarios.js";

vmSuite("DSLiteTunnel", new URL("./dslite.scenarios.ts", import.meta.url), scenarios);
