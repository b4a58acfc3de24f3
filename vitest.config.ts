import { defineConfig } from "vitest/config";

// Workspace packages export "source" (their src/*.ts) first, so tests never run against a stale dist/.
const conditions = ["source", "module", "node", "development|production"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts"],
          environment: "node",
          // Unit tests are bounded by work (fuzz counts, SIGKILL loops), not by time: vitest's 5 s default only
          // made them fail on a busy 2-core machine.
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test-e2e/**/*.test.ts"],
          exclude: ["test-e2e/kernel/**"],
          environment: "node",
          // Namespace tests touch real kernels and real daemons: one file at a time keeps them readable.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: "kernel",
          include: ["test-e2e/kernel/**/*.test.ts"],
          environment: "node",
          // One lab VM per file (it boots once and runs the file's scenarios); VMs take both cores, so one at a
          // time, and after the other tiers (groupOrder) so emulation never slows timing-sensitive namespace tests.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
          hookTimeout: 900_000,
        },
      },
    ],
  },
});
