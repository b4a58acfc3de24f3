// The DHCPv6 client scenarios use the shared lab (test-e2e/lib/lab.ts) with their own name prefix.
import { Lab as SharedLab } from "../../lib/lab.js";

export { sh, terminate } from "../../lib/lab.js";

export class Lab extends SharedLab {
  constructor(area: string) {
    super(area, "rd6");
  }
}
